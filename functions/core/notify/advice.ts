import { shellWord } from '../backend/rule.js';
import { resourceLabel } from '../findings/describe.js';
import type { Finding, FindingKind, Severity } from '../findings/model.js';
import { visibleValue } from '../text/sanitize.js';

/**
 * What a digest says to do about one finding: the rule's own advice, by kind, rule and severity.
 * One table, consulted in order: the content rule that raised the severity (a security group opened
 * to the world), then the rule id, then the kind. Every kind has an entry (the compiler checks),
 * and the test lists which rule ids rely on their kind's entry, so a new rule is a decision, not an
 * accident. The texts reuse each finding's own remediation (Terraform's revert/adopt paragraphs,
 * the backend rules' summaries, the lock's force-unlock command) instead of repeating it.
 *
 * Texts and commands are plain data here; each message body escapes them its own way.
 */
export interface Advice {
  /** The table entry that gave it: `content:open-ingress`, `rule:lock.stale`, `kind:cluster-drift`, `default`. */
  source: string;
  /** What to do and how urgent it is, one paragraph. */
  text: string;
  /** Commands to run after reading the text (after the checks it names), each complete. */
  commands: string[];
}

export interface AdviceContext {
  /** The AWS region of the finding's workspace (its backend's), for CloudTrail lookups. */
  region?: string | undefined;
}

type AdviceBuilder = (finding: Finding, context: AdviceContext) => Omit<Advice, 'source'>;

/** How soon, by severity: the same drift reads differently on a critical and a low finding. */
export const URGENCY: Readonly<Record<Severity, string>> = {
  critical: 'Act now',
  high: 'Today',
  medium: 'This week',
  low: 'At the next change',
  info: 'No action needed',
};

const urgent = (finding: Finding, text: string) => `${URGENCY[finding.severity]}: ${text}`;
const only = (text: string): Omit<Advice, 'source'> => ({ text, commands: [] });
const summary = (finding: Finding) => finding.remediation.summary;

/**
 * Content rules of Terraform severity (functions/core/terraform/severity.ts CONTENT_RULES), found in
 * `evidence.severityReasons` as `<rule id>: …`. They say more than the rule id (`drift.update`).
 */
export const ADVICE_BY_CONTENT_RULE: Readonly<Record<string, AdviceBuilder>> = {
  'open-ingress': (finding, context) => {
    const address = resourceLabel(finding);
    // A rule resource's `id` is the rule's (sgr-…); its group is `security_group_id`.
    const groupAttribute = isSecurityGroupRule(finding) ? 'security_group_id' : 'id';
    return {
      text: `Close it now: ${address} lets the whole internet in (0.0.0.0/0 or ::/0). Revert it through the team's pipeline today (driftwatch remediate prints the reviewed plan); until then it is open. Find who opened it in CloudTrail (GROUP_ID below is the ${groupAttribute} attribute that terraform state show ${address} prints${context.region ? '' : '; add --region with its region'}):`,
      commands: [
        `aws cloudtrail lookup-events${context.region ? ` --region ${shellWord(context.region)}` : ''} --lookup-attributes AttributeKey=ResourceName,AttributeValue=GROUP_ID`,
      ],
    };
  },
  'public-access': (finding) =>
    only(
      `Close it now: ${resourceLabel(finding)} is public. Revert it through the team's pipeline today, and check the access logs for what was read while it was open. ${summary(finding)}`,
    ),
  'network-exposure': (finding) =>
    only(
      urgent(
        finding,
        `a network path toward the internet was opened outside Terraform on ${resourceLabel(finding)} (public IPs on launch, a network ACL allowing the world, a default route to an internet gateway, a public API endpoint): revert it through the team's pipeline unless the opening is approved, check what now sits behind it (security groups, instances with public addresses), and find out who opened it (CloudTrail). ${summary(finding)}`,
      ),
    ),
  'iam-policy': (finding) =>
    only(
      urgent(
        finding,
        `a permission changed outside Terraform on ${resourceLabel(finding)}: find out who changed it (CloudTrail) before adopting it; revert unless the change is understood. ${summary(finding)}`,
      ),
    ),
  'protection-off': (finding) =>
    only(
      urgent(
        finding,
        `a guard was turned off outside Terraform on ${resourceLabel(finding)} (deletion protection, versioning, logging or threat detection, IMDSv2, image tag immutability or scanning, a KMS key or its rotation, the password policy): turn it back on through the team's pipeline, and find out who turned it off (CloudTrail) — stopping logging or detection is how an intruder hides. ${summary(finding)}`,
      ),
    ),
  encryption: (finding) =>
    only(
      urgent(
        finding,
        `encryption changed outside Terraform on ${resourceLabel(finding)}: revert it, or adopt it only if the new setting is at least as strict. ${summary(finding)}`,
      ),
    ),
};

/**
 * A content rule on a pending change: nothing is live yet (no one to find in CloudTrail, no access
 * logs to read), the next apply would do it. What it would do, per content rule.
 */
export const PENDING_CONTENT_EFFECT: Readonly<Record<string, string>> = {
  'open-ingress': 'open it to the whole internet (0.0.0.0/0 or ::/0)',
  'public-access': 'make it public',
  'network-exposure': 'open a network path toward the internet',
  'iam-policy': 'change a permission',
  'protection-off':
    'turn a guard off (deletion protection, versioning, logging or threat detection, IMDSv2, image tag immutability or scanning, a KMS key or its rotation, the password policy)',
  encryption: 'change its encryption',
};

function pendingContentAdvice(rule: string, finding: Finding): Omit<Advice, 'source'> {
  return only(
    urgent(
      finding,
      `the next apply of ${finding.workspace} would ${PENDING_CONTENT_EFFECT[rule]} on ${resourceLabel(finding)}; nothing is live yet: stop it in review unless that is intended. ${summary(finding)}`,
    ),
  );
}

/** Rules whose advice differs from their kind's. */
export const ADVICE_BY_RULE: Readonly<Record<string, AdviceBuilder>> = {
  'drift.delete': (finding) =>
    only(
      urgent(
        finding,
        `${resourceLabel(finding)} was deleted outside Terraform: recreate it through the team's pipeline (a reviewed plan recreates it), or remove it from the configuration (a removed block) if the deletion was intended.`,
      ),
    ),
  'drift.replace': (finding) =>
    only(
      urgent(
        finding,
        `the next apply replaces ${resourceLabel(finding)} (destroys and recreates it): revert or adopt before anyone applies. ${summary(finding)}`,
      ),
    ),
  'drift.moved': (finding) => only(summary(finding)),
  'drift.ignored-changes': (finding) => only(summary(finding)),
  'drift.output': (finding) => only(summary(finding)),
  'drift.check-failed': (finding) => only(summary(finding)),
  'pending.import': (finding) => only(summary(finding)),
  'lock.stale': (finding) => {
    const lockId = lockIdOf(finding);
    const holder = typeof finding.evidence.holder === 'string' ? ` (${finding.evidence.holder})` : '';
    return {
      text: urgent(
        finding,
        `the lock ${lockId === undefined ? '' : visibleValue(lockId)} is proven stale (the same ID in two observations, older than its operation's threshold, state not written since) and blocks every plan and apply. Check that its holder${holder} is gone, then ${finding.evidence.lockIdIncomplete === true ? 'remove it (its ID is not shown whole)' : 'release it from the workspace'} and run a fresh plan:`,
      ),
      commands: forceUnlockCommands(finding, lockId),
    };
  },
  'cluster.missing': (finding) =>
    only(
      urgent(
        finding,
        `${resourceLabel(finding)} is in Git but not in the cluster: recreate it with a reviewed sync, or remove it from the manifests if the deletion was intended.`,
      ),
    ),
  'cluster.orphaned': (finding) =>
    only(
      urgent(
        finding,
        `${resourceLabel(finding)} runs in the cluster but is in no manifest: add it to Git (adopt) or delete it after review.`,
      ),
    ),
  'cluster.extraneous': (finding) =>
    only(
      urgent(
        finding,
        `${resourceLabel(finding)} carries its application's tracking but Git no longer renders it: prune it after review, add it back to Git, or mark it IgnoreExtraneous.`,
      ),
    ),
  'scan.missing': (finding) => only(urgent(finding, `no scan completed on schedule: ${summary(finding)}`)),
};

/** Every kind's own advice: what a finding of that kind gets when no content rule or rule id says more. */
export const ADVICE_BY_KIND: Readonly<Record<FindingKind, AdviceBuilder>> = {
  'terraform-drift': (finding) => {
    const paths = (finding.drift?.changes ?? []).map((change) => change.path);
    if (paths.length > 0 && paths.every(isTagPath))
      return only(
        `${URGENCY[finding.severity === 'info' ? 'info' : 'low']}: only tags changed on ${resourceLabel(finding)}. Revert them or adopt the live values in the configuration at the next change of ${finding.workspace}; nothing is at risk.`,
      );
    return only(urgent(finding, summary(finding)));
  },
  'pending-change': (finding) =>
    only(
      urgent(
        finding,
        `${summary(finding)} Apply it through the team's pipeline after review, or revert the configuration change.`,
      ),
    ),
  'scan-failed': (finding) =>
    only(
      urgent(finding, `drift of ${finding.workspace} is unknown until this is fixed. ${summary(finding)}`),
    ),
  'backend-policy': (finding) =>
    only(
      urgent(finding, `fix the state bucket's setting through its own configuration. ${summary(finding)}`),
    ),
  'state-integrity': (finding) =>
    only(
      urgent(
        finding,
        `the state of ${finding.workspace} may be damaged or replaced: nobody applies until it is compared with the previous version. ${summary(finding)}`,
      ),
    ),
  // Orphaned, unreadable and live-writer locks: each rule's own summary says whether to unlock.
  'stale-lock': (finding) => only(urgent(finding, summary(finding))),
  'cluster-drift': (finding) =>
    only(
      urgent(
        finding,
        `revert by syncing from Git (review kubectl diff or the Argo CD diff first), or adopt the live fields in the manifests in Git. ${summary(finding)}`,
      ),
    ),
  'ownership-conflict': (finding) =>
    only(
      urgent(
        finding,
        `two owners manage ${resourceLabel(finding)}: decide which one does and remove it from the other's configuration before either applies. ${summary(finding)}`,
      ),
    ),
  'workspace-busy': (finding) =>
    only(
      `Nothing to do unless it repeats: ${finding.workspace} was busy (locked by a running apply). ${summary(finding)}`,
    ),
};

/** For a kind this version does not know (a store written by a newer driftwatch): the finding's own summary. */
const DEFAULT_ADVICE: AdviceBuilder = (finding) => only(summary(finding));

export function adviceFor(finding: Finding, context: AdviceContext = {}): Advice {
  const contentRule = contentRuleOf(finding);
  if (contentRule) {
    const advice =
      finding.kind === 'pending-change'
        ? pendingContentAdvice(contentRule, finding)
        : ADVICE_BY_CONTENT_RULE[contentRule]!(finding, context);
    return { source: `content:${contentRule}`, ...advice };
  }
  const byRule = ADVICE_BY_RULE[finding.ruleId];
  if (byRule) return { source: `rule:${finding.ruleId}`, ...byRule(finding, context) };
  const byKind = Object.hasOwn(ADVICE_BY_KIND, finding.kind) ? ADVICE_BY_KIND[finding.kind] : undefined;
  if (byKind) return { source: `kind:${finding.kind}`, ...byKind(finding, context) };
  return { source: 'default', ...DEFAULT_ADVICE(finding, context) };
}

/** The first content rule (most severe first, as listed) that raised this finding's severity. */
function contentRuleOf(finding: Finding): string | undefined {
  const reasons = finding.evidence.severityReasons;
  if (!Array.isArray(reasons)) return undefined;
  return Object.keys(ADVICE_BY_CONTENT_RULE).find((id) =>
    reasons.some((reason) => typeof reason === 'string' && reason.startsWith(`${id}: `)),
  );
}

function isSecurityGroupRule(finding: Finding): boolean {
  const resource = finding.resource;
  const type = resource && 'type' in resource ? resource.type : undefined;
  return (
    type === 'aws_security_group_rule' ||
    type === 'aws_vpc_security_group_ingress_rule' ||
    type === 'aws_vpc_security_group_egress_rule'
  );
}

function isTagPath(path: string): boolean {
  return /^tags(_all)?(\.|\[|$)/.test(path);
}

function lockIdOf(finding: Finding): string | undefined {
  const resource = finding.resource;
  if (resource && 'lockId' in resource && typeof resource.lockId === 'string') return resource.lockId;
  return typeof finding.evidence.lockId === 'string' ? finding.evidence.lockId : undefined;
}

/** One shell word as shellWord writes it: bare, in single quotes (`'\\''` for a quote), or `$'…'`. */
const SHELL_WORD = String.raw`(?:[\w./:=@+-]+|'[^'\n]*'(?:\\''[^'\n]*')*|\$'(?:[^'\\\n]|\\.)*')`;
/**
 * The commands of the lock rule's release step (lock-facts.ts forceUnlockSteps): `terraform
 * force-unlock <ID>`, a `workspace select` first where the state is a CLI workspace's, or the AWS
 * CLI removal of a lock whose ID is not shown whole.
 */
const RELEASE_COMMANDS = new RegExp(
  `^(?:(?:terraform workspace select ${SHELL_WORD}\n)?terraform force-unlock ${SHELL_WORD}|aws (?:s3api delete-object --bucket ${SHELL_WORD} --key|dynamodb delete-item --table-name ${SHELL_WORD} --key) ${SHELL_WORD})$`,
);

/**
 * The lock rule's own commands (its release step: a sentence, then the commands), else the
 * force-unlock of the ID, unless the ID is shown only in part (capped, redacted: not the lock's).
 * Only whole commands are taken: findings stored by versions that wrote a line break of a state
 * key, workspace or lock ID as it was had the rest of that value on a line of its own, which would
 * be listed as a command to run.
 */
function forceUnlockCommands(finding: Finding, lockId: string | undefined): string[] {
  for (const step of finding.remediation.steps) {
    const commands = step.slice(step.indexOf('\n') + 1);
    if (step.includes('\n') && RELEASE_COMMANDS.test(commands)) return commands.split('\n');
  }
  return lockId && finding.evidence.lockIdIncomplete !== true
    ? [`terraform force-unlock ${shellWord(lockId)}`]
    : [];
}
