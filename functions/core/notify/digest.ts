import { createHash } from 'node:crypto';
import { appendTo } from '../collections.js';
import { changeSummary, openDays, resourceLabel } from '../findings/describe.js';
import type { Finding, Severity } from '../findings/model.js';
import { maxSeverity, severityRank } from '../findings/model.js';
import type { NotificationSettings, Registry } from '../registry/model.js';
import { chatCode, chatText, escapeForChat, limitText } from '../text/sanitize.js';

/**
 * One digest per owner per scan (DESIGN.md principle 8), as an AWS Chatbot (Amazon Q Developer in
 * chat applications) custom notification: new, changed and regressed findings in full, resolved
 * ones summarised, reminders for findings open a whole number of reminder periods, and nothing at
 * all when nothing of that happened. Every next step is a reviewed remediation, never an automatic fix.
 */
export interface ChatbotNotification {
  version: '1.0';
  source: 'custom';
  id: string;
  content: {
    textType: 'client-markdown';
    title: string;
    description: string;
    nextSteps: string[];
    keywords: string[];
  };
  metadata: {
    threadId: string;
    summary: string;
    eventType: string;
    relatedResources: string[];
    additionalContext: Record<string, string>;
  };
}

export interface DigestAttributes {
  owner: string;
  /** The most severe finding reported (not counting resolved ones). */
  severity: Severity;
  environment: string[];
  kinds: string[];
  digestId: string;
}

export interface Digest {
  owner: string;
  /** `<scanId>.<owner>`: a digest is sent at most once per scan and owner. */
  digestId: string;
  message: ChatbotNotification;
  attributes: DigestAttributes;
  counts: {
    new: number;
    changed: number;
    regressed: number;
    resolved: number;
    reminders: number;
    notListed: number;
  };
}

export interface DigestInput {
  scanId: string;
  now: Date;
  /** What the scan saw and resolved (history lines of every check), with owners set. */
  findings: readonly Finding[];
  fallbackOwner: string;
  settings: NotificationSettings;
}

/** The digest input of a scan: its findings, with the registry's fallback owner and notification settings. */
export function digestInput(
  registry: Pick<Registry, 'owners' | 'notifications'>,
  scan: { scanId: string; now: Date },
  findings: readonly Finding[],
): DigestInput {
  return {
    scanId: scan.scanId,
    now: scan.now,
    findings,
    fallbackOwner: registry.owners.fallback,
    settings: registry.notifications,
  };
}

const DAY_MS = 24 * 60 * 60_000;
/**
 * Length limits of a digest, in UTF-16 code units (at least as many characters). The Chatbot
 * custom-notification documentation we could reach states no per-field limits, so these follow
 * the smallest limits of the Slack blocks a notification is drawn with (a header holds 150
 * characters, a section's text 3000) and SNS (a subject under 100 characters): conservative
 * choices, not documented Chatbot limits. The full list is one CLI command away.
 */
export const DIGEST_LIMITS = {
  title: 150,
  description: 3000,
  nextSteps: 5,
  nextStep: 400,
  keywords: 10,
  keyword: 75,
  summary: 99,
  relatedResources: 20,
  relatedResource: 256,
  /** One piece of data inside a line: an address, a workspace, what changed. */
  label: 200,
  what: 160,
} as const;
const SEVERITY_ICONS: Record<Severity, string> = {
  critical: ':red_circle:',
  high: ':large_orange_circle:',
  medium: ':large_yellow_circle:',
  low: ':large_blue_circle:',
  info: ':white_circle:',
};

export function buildDigests(input: DigestInput): Digest[] {
  const byOwner = new Map<string, Finding[]>();
  for (const finding of input.findings) {
    const owner = finding.owner ?? input.fallbackOwner;
    appendTo(byOwner, owner, finding);
  }
  const digests: Digest[] = [];
  for (const [owner, findings] of [...byOwner.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const digest = buildDigest(owner, findings, input);
    if (digest) digests.push(digest);
  }
  return digests;
}

/** A finding is reminded on the scans where it has been open a whole number of reminder periods. */
export function isReminderDue(finding: Finding, now: Date, remindEveryMs: number): boolean {
  if (finding.status !== 'ongoing') return false;
  const periodDays = Math.max(1, Math.round(remindEveryMs / DAY_MS));
  const days = openDays(finding.firstSeenAt, now);
  return days >= periodDays && days % periodDays === 0;
}

function buildDigest(owner: string, findings: readonly Finding[], input: DigestInput): Digest | undefined {
  const bySeverity = (a: Finding, b: Finding) => severityRank(a.severity) - severityRank(b.severity);
  const pick = (status: Finding['status']) =>
    findings.filter((finding) => finding.status === status).sort(bySeverity);
  const fresh = pick('new');
  const changed = pick('changed');
  const regressed = pick('regressed');
  const resolved = pick('resolved');
  const reminders = findings
    .filter((finding) => isReminderDue(finding, input.now, input.settings.remindEveryMs))
    .sort(bySeverity);
  if (fresh.length + changed.length + regressed.length + resolved.length + reminders.length === 0)
    return undefined;

  const digestId = `${input.scanId}.${owner}`;
  const reported = [...fresh, ...changed, ...regressed, ...reminders];
  const severity = reported.reduce<Severity>(
    (worst, finding) => maxSeverity(worst, finding.severity),
    'info',
  );
  const listed = { remaining: input.settings.maxFindingsPerDigest, notListed: 0 };
  const sections = [
    section('New', fresh, listed, input.now),
    section('Changed', changed, listed, input.now),
    section('Regressed (resolved before, back now)', regressed, listed, input.now),
    section(
      `Still open (reminder every ${Math.round(input.settings.remindEveryMs / DAY_MS)}d)`,
      reminders,
      listed,
      input.now,
    ),
    resolvedSummary(resolved),
  ].filter((text) => text !== '');
  const more = `+${listed.notListed} more — ${chatCode(`driftwatch findings --owner ${owner}`)}`;
  const description = boundDescription(sections, listed.notListed > 0 ? more : undefined, owner);

  const counts = [
    fresh.length && `${fresh.length} new`,
    changed.length && `${changed.length} changed`,
    regressed.length && `${regressed.length} regressed`,
    reminders.length && `${reminders.length} still open`,
    resolved.length && `${resolved.length} resolved`,
  ].filter(Boolean);
  // The owner is data (registry ids are checked, but this is the last place before chat).
  const summary = limitText(
    escapeForChat(`driftwatch for ${owner}: ${counts.join(', ')}`),
    DIGEST_LIMITS.summary,
  );
  const workspaces = [...new Set(findings.map((finding) => finding.workspace))].sort();
  // Resolved findings count for the filter attributes too: a subscription filtered on
  // `environment` or `kinds` must also hear that its findings went away.
  const mentioned = [...reported, ...resolved];
  const environments = [...new Set(mentioned.map((finding) => finding.environment).filter(isString))].sort();
  const kinds = [...new Set(mentioned.map((finding) => finding.kind))].sort();

  return {
    owner,
    digestId,
    message: {
      version: '1.0',
      source: 'custom',
      id: digestId,
      content: {
        textType: 'client-markdown',
        title: limitText(
          `${reported.length ? SEVERITY_ICONS[severity] : ':white_check_mark:'} ${summary}`,
          DIGEST_LIMITS.title,
        ),
        description,
        nextSteps: nextSteps(reported, resolved),
        keywords: [...new Set([severity, ...kinds, ...workspaces])]
          .slice(0, DIGEST_LIMITS.keywords)
          .map((keyword) => chatText(keyword, DIGEST_LIMITS.keyword)),
      },
      metadata: {
        threadId: threadId(owner, workspaces),
        summary,
        eventType: 'DriftwatchDigest',
        relatedResources: [...new Set(reported.map(resourceLabel))]
          .slice(0, DIGEST_LIMITS.relatedResources)
          .map((label) => chatText(label, DIGEST_LIMITS.relatedResource)),
        additionalContext: {
          scanId: input.scanId,
          owner: escapeForChat(owner),
          digestId,
          workspaces: chatText(workspaces.join(','), 500),
        },
      },
    },
    attributes: { owner, severity, environment: environments, kinds, digestId },
    counts: {
      new: fresh.length,
      changed: changed.length,
      regressed: regressed.length,
      resolved: resolved.length,
      reminders: reminders.length,
      notListed: listed.notListed,
    },
  };
}

function section(
  heading: string,
  findings: readonly Finding[],
  listed: { remaining: number; notListed: number },
  now: Date,
): string {
  if (findings.length === 0) return '';
  const lines: string[] = [];
  for (const finding of findings) {
    if (listed.remaining <= 0) {
      listed.notListed++;
      continue;
    }
    listed.remaining--;
    lines.push(findingLine(finding, now));
  }
  return [`*${heading}* (${findings.length})`, ...lines].join('\n');
}

/** Our markup (bullet, icon, code span, italics) around data escaped piece by piece. */
function findingLine(finding: Finding, now: Date): string {
  const where = finding.environment ? `${finding.workspace} (${finding.environment})` : finding.workspace;
  const age = openDays(finding.firstSeenAt, now);
  const open = age > 0 ? `, open ${age}d` : '';
  const what = chatText(changeSummary(finding, 2, 40), DIGEST_LIMITS.what);
  return `• ${SEVERITY_ICONS[finding.severity]} ${label(finding)} in ${chatText(where, DIGEST_LIMITS.label)}: ${what} — _${escapeForChat(finding.ruleId)}${open}_`;
}

/** A finding's resource as inline code: escaped, and short enough to leave room for the rest of its line. */
function label(finding: Finding): string {
  return chatCode(resourceLabel(finding), DIGEST_LIMITS.label);
}

function resolvedSummary(resolved: readonly Finding[]): string {
  if (resolved.length === 0) return '';
  const names = resolved
    .slice(0, 5)
    .map((finding) => `${label(finding)} (${chatText(finding.workspace, DIGEST_LIMITS.label)})`);
  const rest = resolved.length > 5 ? ` and ${resolved.length - 5} more` : '';
  return `*Resolved* (${resolved.length}): ${names.join(', ')}${rest}`;
}

/** Keeps whole lines while the description fits, then says how many findings were left out. */
function boundDescription(sections: string[], more: string | undefined, owner: string): string {
  const text = [...sections, more].filter(isString).join('\n\n');
  if (text.length <= DIGEST_LIMITS.description) return text;
  const tail = `\n\n… — ${chatCode(`driftwatch findings --owner ${owner}`)}`;
  const lines = text.split('\n');
  let kept = '';
  for (const line of lines) {
    if (kept.length + line.length + 1 + tail.length > DIGEST_LIMITS.description) break;
    kept += `${kept ? '\n' : ''}${line}`;
  }
  // Lines are short (each piece of data has its own budget); the cut is a last guard.
  return limitText(`${kept}${tail}`, DIGEST_LIMITS.description);
}

/**
 * Reviewed paths only: revert through the pipeline or adopt in configuration (drift, per workspace),
 * recreate or remove (deletions), and for other checks their own remediation (unlock after checking
 * the holder is gone, fix the backend...). Most severe first, at most five.
 */
function nextSteps(reported: readonly Finding[], resolved: readonly Finding[]): string[] {
  const groups = new Map<string, { build: (names: string[]) => string; names: Set<string> }>();
  for (const finding of reported) {
    const name = label(finding);
    const workspace = escapeForChat(finding.workspace);
    const drift = finding.kind === 'terraform-drift' && finding.drift?.action !== 'delete';
    const deleted = finding.kind === 'terraform-drift' && finding.drift?.action === 'delete';
    const key = drift
      ? `drift ${finding.workspace}`
      : deleted
        ? `delete ${finding.workspace}`
        : `other ${finding.remediation.summary}`;
    const group = groups.get(key) ?? {
      build: drift
        ? (names: string[]) =>
            `${workspace}: revert (a normal \`terraform plan\` through the team's pipeline, reviewed, restores the declared configuration) or adopt (change the configuration to the live values, review, merge): ${names.join(', ')}`
        : deleted
          ? (names: string[]) =>
              `${workspace}: recreate ${names.join(', ')} with a reviewed plan through the pipeline, or remove it from the configuration (a \`removed\` block) if the deletion was intended`
          : // Remediations are ours, but they quote data: lock ids and holders, bucket and object names.
            () => escapeForChat(finding.remediation.summary),
      names: new Set<string>(),
    };
    group.names.add(name);
    groups.set(key, group);
  }
  const steps = [...groups.values()]
    .slice(0, DIGEST_LIMITS.nextSteps)
    .map((group) => limitText(group.build([...group.names]), DIGEST_LIMITS.nextStep));
  if (steps.length === 0 && resolved.length > 0)
    steps.push('Nothing to do: these findings were fixed since the last scan.');
  return steps;
}

/** Chat threads per owner and workspace; a digest spanning workspaces threads on their set. */
function threadId(owner: string, workspaces: readonly string[]): string {
  if (workspaces.length === 1) return `driftwatch-${owner}-${workspaces[0]}`;
  const hash = createHash('sha256').update(workspaces.join(',')).digest('hex').slice(0, 12);
  return `driftwatch-${owner}-${workspaces.length}-workspaces-${hash}`;
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}
