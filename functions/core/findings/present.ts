import { REDACTED, redactText, SENSITIVE_MARKER } from '../redaction/secrets.js';
import { UNKNOWN_VALUE } from '../terraform/plan-model.js';
import type { AttributeChange, Finding, JsonValue, Suppression } from './model.js';

/**
 * Stored findings as every reader of the store shows them (the CLI's listings in every format,
 * `findings show`, `remediate`, `suppress`, the HTML report, the nightly reports and the findings
 * API). Presentation only: nothing is written back.
 *
 * - Every text of the finding (title, detail, evidence, drift paths and values, remediation,
 *   resource names, suppression) passes the product's credential rules once more, and a change
 *   marked sensitive shows no value that is not a hash: a store written by an older driftwatch,
 *   before a rule existed, or by hand, never prints, exports, reports or serves a credential.
 * - A suppression whose `until` has passed no longer hides its finding, even before the scope is
 *   scanned again (it may never be): the finding is shown as the next scan will record it (the
 *   lifecycle's rule), status `new` with the expired suppression in `evidence.suppressionExpired`.
 */
export function presentFinding(finding: Finding, now: Date): Finding {
  return redactFindingText(liftExpiredSuppression(finding, now));
}

export function presentFindings(findings: readonly Finding[], now: Date): Finding[] {
  return redactFindingsText(findings.map((finding) => liftExpiredSuppression(finding, now)));
}

/**
 * The status part of {@link presentFinding} alone: for a reader that filters many findings by
 * status and redacts only those it passes on (the findings API's pages).
 */
export function liftExpiredSuppression(finding: Finding, now: Date): Finding {
  const suppression = finding.suppression;
  // No `until` that parses is no end: such a suppression hides nothing either.
  if (finding.status === 'suppressed' && suppression && !(Date.parse(suppression.until) > now.getTime())) {
    const { suppression: _lifted, ...rest } = finding;
    return { ...rest, status: 'new', evidence: { ...finding.evidence, suppressionExpired: suppression } };
  }
  return finding;
}

/** The user's free text of a suppression, redacted (`until` and `at` are times the CLI parsed). */
export function redactSuppression(suppression: Suppression): Suppression {
  return { ...suppression, reason: redactText(suppression.reason), by: redactText(suppression.by) };
}

/**
 * The suppression that expired, on a finding shown open because of it (reopened by a scan, which
 * keeps it in the evidence, or by `presentFinding`); redacted. Undefined on any other finding.
 */
export function expiredSuppressionOf(finding: Finding): Suppression | undefined {
  const stored = finding.evidence?.suppressionExpired;
  if (!isSuppression(stored)) return undefined;
  return redactSuppression(stored);
}

/**
 * Every text of a finding through the credential rules once more, member names included, and the
 * values of changes marked sensitive that are not hashes replaced: what {@link presentFinding} shows.
 * Stored findings are redacted when they are made, so this changes nothing on them (redacting twice
 * changes nothing); it is the second lock against a store written by hand or by an older driftwatch.
 */
export function redactFindingText(finding: Finding): Finding {
  return redactWith(finding, redactText);
}

/** {@link redactFindingText} of many findings, whose texts repeat (rule texts, steps, times): each text is redacted once. */
export function redactFindingsText(findings: readonly Finding[]): Finding[] {
  const redact = rememberingRedactor();
  return findings.map((finding) => redactWith(finding, redact));
}

function redactWith(finding: Finding, redact: (text: string) => string): Finding {
  const redacted = redactStrings(finding, redact) as Finding;
  const changes = redacted.drift?.changes;
  if (!Array.isArray(changes)) return redacted;
  return { ...redacted, drift: { ...redacted.drift!, changes: changes.map(hideSensitiveValues) } };
}

/**
 * A change marked sensitive holds what the scanners write there: a hash (`(sensitive:<8 hex>)`),
 * null for "not set", `(known after apply)`, or a block whose shape is kept with its secrets hashed
 * inside (cluster objects: a marker among its members). Any other value is one a store kept from
 * before its hashing (or had written by hand), and is shown as `(redacted)`.
 */
function hideSensitiveValues(change: AttributeChange): AttributeChange {
  if (typeof change !== 'object' || change === null || change.sensitive !== true) return change;
  return { ...change, before: hiddenValue(change.before), after: hiddenValue(change.after) };
}

function hiddenValue(value: JsonValue): JsonValue {
  if (value === null || value === undefined) return value;
  if (typeof value === 'string') return isHiddenText(value) ? value : REDACTED;
  return holdsHiddenText(value) ? value : REDACTED;
}

function isHiddenText(text: string): boolean {
  return SENSITIVE_MARKER.test(text) || text === REDACTED || text === UNKNOWN_VALUE;
}

function holdsHiddenText(value: JsonValue): boolean {
  if (typeof value === 'string') return SENSITIVE_MARKER.test(value) || value === REDACTED;
  if (typeof value !== 'object' || value === null) return false;
  return Object.values(value).some(holdsHiddenText);
}

function redactStrings(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, redact));
  if (typeof value !== 'object' || value === null) return value;
  // Object.fromEntries defines each member (a `__proto__` key stays a member, as JSON.parse made it).
  return Object.fromEntries(
    Object.entries(value).map(([key, member]) => [redact(key), redactStrings(member, redact)]),
  );
}

/** redactText that answers a text it has seen from memory (bounded: started afresh when full). */
function rememberingRedactor(): (text: string) => string {
  const answers = new Map<string, string>();
  return (text) => {
    let answer = answers.get(text);
    if (answer === undefined) {
      answer = redactText(text);
      if (answers.size >= 100_000) answers.clear();
      answers.set(text, answer);
    }
    return answer;
  };
}

function isSuppression(value: unknown): value is Suppression {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record.reason === 'string' &&
    typeof record.by === 'string' &&
    typeof record.until === 'string' &&
    typeof record.at === 'string'
  );
}
