import { createHash } from 'node:crypto';
import { shellWord } from '../backend/rule.js';
import { appendTo } from '../collections.js';
import { changeSummary, openDays, resourceLabel, shortValue } from '../findings/describe.js';
import { shortId, shortIdLength } from '../findings/finding-ids.js';
import type { Finding, JsonValue, Severity } from '../findings/model.js';
import { maxSeverity, severityRank } from '../findings/model.js';
import { redactFindingsText } from '../findings/present.js';
import type { NotificationSettings, Registry } from '../registry/model.js';
import { notApplicableReason } from '../remediation/prepare.js';
import { effectiveOwner } from '../routing/finding-owner.js';
import { chatCode, chatText, escapeForChat, limitText } from '../text/sanitize.js';
import { adviceFor } from './advice.js';
import {
  type DigestContent,
  type DigestCounts,
  type DigestItem,
  SECTION_HEADINGS,
} from './digest-content.js';
import { type DigestDocument, digestDocument } from './digest-document.js';
import { type DigestEmail, digestEmail } from './digest-email.js';

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

/**
 * Who a message of a digest is for, as the `audience` message attribute subscriptions filter on
 * (infra/subscription-filters.ts, docs/notifications.md): people get the chat payload (Chatbot,
 * through the chat relay queues) or the plain-text e-mail, picked by SNS per protocol; machines
 * (HTTPS and SQS destinations) get the finding list. A digest is two messages, one per audience
 * (adapters/sns-publisher.ts).
 */
export type DigestAudience = 'people' | 'machines';

export interface Digest {
  owner: string;
  /** `<scanId>.<owner>`: a digest is sent at most once per scan and owner. */
  digestId: string;
  /** For chat (AWS Chatbot custom notification). */
  message: ChatbotNotification;
  /** For e-mail: a subject and a plain-text body. Absent in outbox digests of older versions. */
  email?: DigestEmail;
  /** For HTTPS and SQS consumers: the finding list (docs/notifications.md). Absent in older outbox digests. */
  document?: DigestDocument;
  attributes: DigestAttributes;
  counts: DigestCounts;
  /**
   * Outbox digests only: the audiences whose message SNS already accepted when the other's failed.
   * The next attempt sends only the rest: a chat channel never gets the same digest twice.
   */
  delivered?: DigestAudience[];
}

export interface DigestInput {
  scanId: string;
  now: Date;
  /** What the scan saw and resolved (history lines of every check), with owners set. */
  findings: readonly Finding[];
  fallbackOwner: string;
  /**
   * The registry's team ids: a finding whose owner is none of them (a team removed from the registry,
   * a forged record) goes to the fallback owner, since no destination would take its digest.
   * Unset: any owner that is a valid id gets its own digest.
   */
  teamIds?: ReadonlySet<string>;
  settings: NotificationSettings;
  /**
   * The findings store as the team's CLI names it (`s3://<findings bucket>` deployed): the commands
   * in a digest carry it as `--store`, so they work as printed. Unset: commands without `--store`.
   */
  store?: string | undefined;
  /** AWS region of each workspace (its backend's), for the CloudTrail lookups in advice. */
  regions?: Readonly<Record<string, string>>;
  /** A link to each owner's report (by owner id): one more next step in every body when present. */
  reportUrls?: Readonly<Record<string, string>>;
}

/** The digest input of a scan: its findings, with the registry's fallback owner and notification settings. */
export function digestInput(
  registry: Pick<Registry, 'owners' | 'notifications'> & Partial<Pick<Registry, 'workspaces'>>,
  scan: { scanId: string; now: Date },
  findings: readonly Finding[],
  options: { store?: string | undefined; reportUrls?: Readonly<Record<string, string>> } = {},
): DigestInput {
  return {
    scanId: scan.scanId,
    now: scan.now,
    findings,
    fallbackOwner: registry.owners.fallback,
    teamIds: new Set(registry.owners.teams.map((team) => team.id)),
    settings: registry.notifications,
    store: options.store,
    regions: Object.fromEntries(
      (registry.workspaces ?? []).map((workspace) => [workspace.id, workspace.backend.region]),
    ),
    ...(options.reportUrls ? { reportUrls: options.reportUrls } : {}),
  };
}

export type { DigestContent, DigestCounts, DigestItem } from './digest-content.js';

/** A command line on one line: words that need no quoting as they are, the others as shellWord quotes them. */
export function shellCommand(words: readonly string[]): string {
  return words.map((word) => (/^[\w./:=@+,%-]+$/.test(word) ? word : shellWord(word))).join(' ');
}

function storeWords(store: string | undefined): string[] {
  return store ? ['--store', store] : [];
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
  /** An item's advice paragraph, and the longest command listed after it (a longer one is not listed: cut short, it could still run). */
  advice: 400,
  command: 300,
  /** A presigned report link is long; cut, it would not open. */
  reportUrl: 2000,
} as const;
const SEVERITY_ICONS: Record<Severity, string> = {
  critical: ':red_circle:',
  high: ':large_orange_circle:',
  medium: ':large_yellow_circle:',
  low: ':large_blue_circle:',
  info: ':white_circle:',
};

export function buildDigests(input: DigestInput): Digest[] {
  const idLength = shortIdLength(input.findings.map((finding) => finding.id));
  const byOwner = new Map<string, Finding[]>();
  // Shown as every reader of the store shows a finding (redacted once more): a resolved line
  // carries the text its finding was stored with, maybe by a driftwatch from before a rule existed.
  for (const finding of redactFindingsText(input.findings))
    appendTo(byOwner, effectiveOwner(finding, input), finding);
  const digests: Digest[] = [];
  for (const [owner, findings] of [...byOwner.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const digest = buildDigest(owner, findings, input, idLength);
    if (digest) digests.push(digest);
  }
  return digests;
}

/**
 * A finding is reminded once per reminder period it has been open: on the first scan that sees it
 * open a whole number of periods more than the scan before. Counted from that scan
 * (`previousSeenAt`), not from the day: a night without a scan (a broken registry, a failed run) moved
 * the reminder a whole period later, and a re-scan on the day reminded the owner twice. Lines
 * without it (an older driftwatch's) are reminded on the day the period completes.
 */
export function isReminderDue(finding: Finding, now: Date, remindEveryMs: number): boolean {
  if (finding.status !== 'ongoing') return false;
  const periodDays = Math.max(1, Math.round(remindEveryMs / DAY_MS));
  const days = openDays(finding.firstSeenAt, now);
  if (days < periodDays) return false;
  const before = finding.previousSeenAt === undefined ? Number.NaN : Date.parse(finding.previousSeenAt);
  if (Number.isNaN(before)) return days % periodDays === 0;
  const daysBefore = openDays(finding.firstSeenAt, new Date(before));
  return Math.floor(days / periodDays) > Math.floor(daysBefore / periodDays);
}

function buildDigest(
  owner: string,
  findings: readonly Finding[],
  input: DigestInput,
  idLength: number,
): Digest | undefined {
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
  const item = (finding: Finding, section: DigestItem['section']) =>
    digestItem(finding, section, input, idLength);
  const sectioned: DigestItem[] = [
    ...fresh.map((finding) => item(finding, 'new')),
    ...changed.map((finding) => item(finding, 'changed')),
    ...regressed.map((finding) => item(finding, 'regressed')),
    ...reminders.map((finding) => item(finding, 'reminder')),
  ];
  const items = sectioned.slice(0, input.settings.maxFindingsPerDigest);
  const notListed = sectioned.length - items.length;
  // Right after the scan the store's open findings of the owner with these statuses are exactly the
  // news; reminders are `ongoing` like every other open finding, so with reminders the command
  // lists all open findings of the owner (the reported ones among them).
  const exact = reminders.length === 0;
  const moreCommand = shellCommand([
    'driftwatch',
    'findings',
    ...storeWords(input.store),
    '--owner',
    owner,
    ...(exact ? ['--status', 'new,changed,regressed'] : []),
  ]);
  const counts = {
    new: fresh.length,
    changed: changed.length,
    regressed: regressed.length,
    resolved: resolved.length,
    reminders: reminders.length,
    notListed,
  };
  const reportUrl = input.reportUrls?.[owner];
  const content: DigestContent = {
    owner,
    scanId: input.scanId,
    digestId,
    severity,
    counts,
    items,
    resolved: resolved.map((finding) => ({
      id: finding.id,
      shortId: shortId(finding.id, idLength),
      resource: resourceLabel(finding),
      workspace: finding.workspace,
    })),
    moreCommand,
    moreCommandExact: exact,
    ...(reportUrl ? { reportUrl } : {}),
  };

  const description = chatDescription(content, input.settings.remindEveryMs);
  const countsText = [
    fresh.length && `${fresh.length} new`,
    changed.length && `${changed.length} changed`,
    regressed.length && `${regressed.length} regressed`,
    reminders.length && `${reminders.length} still open`,
    resolved.length && `${resolved.length} resolved`,
  ].filter(Boolean);
  // The owner is data (registry ids are checked, but this is the last place before chat).
  const summary = limitText(
    escapeForChat(`driftwatch for ${owner}: ${countsText.join(', ')}`),
    DIGEST_LIMITS.summary,
  );
  const workspaces = [...new Set(findings.map((finding) => finding.workspace))].sort();
  // Resolved findings count for the filter attributes too: a subscription filtered on
  // `environment` or `kinds` must also hear that its findings went away.
  const mentioned = [...reported, ...resolved];
  const environments = environmentAttribute(mentioned.map((finding) => finding.environment).filter(isString));
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
        nextSteps: nextSteps(reported, resolved, content),
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
    email: digestEmail(content, input.settings.remindEveryMs),
    document: digestDocument(content),
    attributes: { owner, severity, environment: environments, kinds, digestId },
    counts,
  };
}

function digestItem(
  finding: Finding,
  section: DigestItem['section'],
  input: DigestInput,
  idLength: number,
): DigestItem {
  const id = shortId(finding.id, idLength);
  const store = storeWords(input.store);
  return {
    id: finding.id,
    shortId: id,
    section,
    severity: finding.severity,
    kind: finding.kind,
    ruleId: finding.ruleId,
    title: finding.title,
    resource: resourceLabel(finding),
    workspace: finding.workspace,
    ...(finding.environment ? { environment: finding.environment } : {}),
    what: changeSummary(finding, 2, 40),
    whatInWords: changeInWords(finding),
    openDays: Math.max(0, openDays(finding.firstSeenAt, input.now)),
    advice: adviceFor(finding, { region: input.regions?.[finding.workspace] }),
    commands: [
      shellCommand(['driftwatch', 'findings', 'show', id, ...store]),
      // The command as it runs: `remediate` needs a mode (exit 64 without one). Revert, putting the
      // declared configuration back, is the one a digest proposes; its output names the adopt command.
      ...(notApplicableReason(finding, 'revert') === undefined
        ? [shellCommand(['driftwatch', 'remediate', id, '--revert', ...store])]
        : []),
    ],
  };
}

/** For readers of plain text (e-mail): no JSON, even of a value. */
function changeInWords(finding: Finding, maxChanges = 3): string {
  const changes = finding.drift?.changes ?? [];
  if (changes.length === 0) return finding.title;
  const scalar = (value: JsonValue) => value === null || typeof value !== 'object';
  const shown = changes.slice(0, maxChanges).map((change) => {
    const path = change.path === '' ? 'the value' : change.path;
    return scalar(change.before) && scalar(change.after)
      ? `${path}: ${shortValue(change.before, 40)} → ${shortValue(change.after, 40)}`
      : `${path} (a structured value: the finding shows it)`;
  });
  return changes.length > maxChanges
    ? `${shown.join('; ')}; and ${changes.length - maxChanges} more`
    : shown.join('; ');
}

/**
 * The chat description: per section a heading and per item two lines (the finding; its advice and
 * commands), whole items while they fit the limit, then "+N more" with a command that lists them.
 * Our markup (bullet, icon, code span, italics) goes around data escaped piece by piece.
 */
function chatDescription(content: DigestContent, remindEveryMs: number): string {
  const more = (count: number) => `+${count} more — ${chatCode(content.moreCommand)}`;
  const resolved = resolvedSummary(content);
  // Room for the longest "+N more" line and the resolved summary, which always show.
  const reserve = more(content.counts.notListed + content.items.length).length + resolved.length + 8;
  const blocks: string[] = [];
  let length = 0;
  let shown = 0;
  let heading: DigestItem['section'] | undefined;
  for (const item of content.items) {
    const lines = [chatItem(item)];
    if (item.section !== heading) {
      heading = item.section;
      const total = content.counts[item.section === 'reminder' ? 'reminders' : item.section];
      const label =
        item.section === 'reminder'
          ? `${SECTION_HEADINGS.reminder} (reminder every ${Math.round(remindEveryMs / DAY_MS)}d)`
          : SECTION_HEADINGS[item.section];
      lines.unshift(`${blocks.length ? '\n' : ''}*${label}* (${total})`);
    }
    const block = lines.join('\n');
    if (length + block.length + 1 + reserve > DIGEST_LIMITS.description) break;
    blocks.push(block);
    length += block.length + 1;
    shown++;
  }
  const notShown = content.counts.notListed + content.items.length - shown;
  const text = [blocks.join('\n'), notShown > 0 ? more(notShown) : '', resolved]
    .filter((part) => part !== '')
    .join('\n\n');
  // Each piece of data has its own budget; the cut is a last guard.
  return limitText(text, DIGEST_LIMITS.description);
}

function chatItem(item: DigestItem): string {
  const where = item.environment ? `${item.workspace} (${item.environment})` : item.workspace;
  const open = item.openDays > 0 ? `, open ${item.openDays}d` : '';
  const what = chatText(item.what, DIGEST_LIMITS.what);
  const all = [...item.advice.commands, ...item.commands];
  const whole = all.filter(shownWholeInChat);
  const commands = [
    ...whole.map((command) => chatCode(command)),
    ...(whole.length < all.length ? [COMMAND_NOT_SHOWN] : []),
  ].join(' · ');
  return [
    `• ${SEVERITY_ICONS[item.severity]} ${chatCode(item.resource, DIGEST_LIMITS.label)} in ${chatText(where, DIGEST_LIMITS.label)}: ${what} — _${escapeForChat(item.ruleId)}${open}_ · id ${chatCode(item.shortId)}`,
    `    ↳ ${chatText(item.advice.text, DIGEST_LIMITS.advice)}${commands ? ` ${commands}` : ''}`,
  ].join('\n');
}

/** Said in place of the commands a chat message cannot show as they are (the finding shows them whole). */
const COMMAND_NOT_SHOWN = '(a command too long or unusual to show here: findings show prints it whole)';

/**
 * A command is listed only as the reader will paste it: within its budget (a command cut short may
 * still run: a bare key cut before its end names another object, and `aws s3api delete-object` of
 * a key that does not exist succeeds) and unchanged by escapeForChat except for `&`, `<` and `>`,
 * which the client shows as those characters (a zero-width space after an `@` or a backtick
 * written as U+02CB would be pasted into the argument).
 */
function shownWholeInChat(command: string): boolean {
  const escaped = escapeForChat(command);
  return (
    escaped.length <= DIGEST_LIMITS.command &&
    escaped === command.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
  );
}

/** A finding's resource as inline code: escaped, and short enough to leave room for the rest of its line. */
function label(finding: Finding): string {
  return chatCode(resourceLabel(finding), DIGEST_LIMITS.label);
}

function resolvedSummary(content: DigestContent): string {
  const { resolved } = content;
  if (resolved.length === 0) return '';
  const names = resolved
    .slice(0, 5)
    .map(
      (entry) =>
        `${chatCode(entry.resource, DIGEST_LIMITS.label)} (${chatText(entry.workspace, DIGEST_LIMITS.label)})`,
    );
  const rest = resolved.length > 5 ? ` and ${resolved.length - 5} more` : '';
  return `*Resolved* (${resolved.length}): ${names.join(', ')}${rest}`;
}

/**
 * Reviewed paths only: revert through the pipeline or adopt in configuration (drift, per workspace),
 * recreate or remove (deletions), and for other checks their own remediation (unlock after checking
 * the holder is gone, fix the backend...). The owner's report first when there is one; most severe
 * first, at most five.
 */
function nextSteps(
  reported: readonly Finding[],
  resolved: readonly Finding[],
  content: DigestContent,
): string[] {
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
  const report = content.reportUrl ? [`Report: ${reportLink(content.reportUrl)}`] : [];
  const steps = [
    ...report,
    ...[...groups.values()]
      .slice(0, DIGEST_LIMITS.nextSteps - report.length)
      .map((group) => limitText(group.build([...group.names]), DIGEST_LIMITS.nextStep)),
  ];
  if (steps.length === report.length && resolved.length > 0)
    steps.push('Nothing to do: these findings were fixed since the last scan.');
  return steps;
}

/**
 * The report link as a chat client shows it: escaped like data (a presigned URL holds `&`), and
 * bare, so the client links it showing its own target.
 */
function reportLink(url: string): string {
  return limitText(escapeForChat(url), DIGEST_LIMITS.reportUrl, '');
}

/** Chat threads per owner and workspace; a digest spanning workspaces threads on their set. */
function threadId(owner: string, workspaces: readonly string[]): string {
  if (workspaces.length === 1) return `driftwatch-${owner}-${workspaces[0]}`;
  const hash = createHash('sha256').update(workspaces.join(',')).digest('hex').slice(0, 12);
  return `driftwatch-${owner}-${workspaces.length}-workspaces-${hash}`;
}

/**
 * Room for the `environment` attribute (a JSON array) in a message: the bodies' budgets leave it a
 * few KiB of SNS's 256 KiB, and registry environments (`prod`, `eu-staging`) take far less.
 */
export const ENVIRONMENT_ATTRIBUTE_BYTES = 8 * 1024;

/**
 * The environments a digest's findings name, sorted, within ENVIRONMENT_ATTRIBUTE_BYTES: the
 * longest are left out first. An environment comes with the finding (deployed, from a scanner's
 * pending record), and one of a megabyte would make SNS refuse both messages of the digest, night
 * after night from the outbox; short names are the ones filter policies list.
 */
function environmentAttribute(names: readonly string[]): string[] {
  const kept: string[] = [];
  let bytes = 2;
  for (const name of [...new Set(names)].sort((a, b) => a.length - b.length)) {
    const size = Buffer.byteLength(JSON.stringify(name)) + 1;
    if (bytes + size > ENVIRONMENT_ATTRIBUTE_BYTES) break;
    kept.push(name);
    bytes += size;
  }
  return kept.sort();
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}
