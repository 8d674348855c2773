import { redactText } from '../redaction/secrets.js';
import type { Finding, Suppression } from './model.js';

/**
 * Stored findings as every reader of the store shows them (the CLI's `findings`, `findings show`,
 * `report`, and the findings API), in every format. Presentation only: nothing is written back.
 *
 * - The free text of a suppression (its reason, who decided) is what a person typed: passed through
 *   the product's redaction once more, so a credential stored before `suppress` redacted it (or
 *   written into the store by hand) is never printed, exported to SARIF, put in a report or served.
 * - A suppression whose `until` has passed no longer hides its finding, even before the scope is
 *   scanned again (it may never be): the finding is shown as the next scan will record it (the
 *   lifecycle's rule), status `new` with the expired suppression in `evidence.suppressionExpired`.
 */
export function presentFinding(finding: Finding, now: Date): Finding {
  const expired = expiredSuppressionOf(finding);
  const evidence =
    expired === undefined ? finding.evidence : { ...finding.evidence, suppressionExpired: expired };
  const suppression = finding.suppression && redactSuppression(finding.suppression);
  if (finding.status === 'suppressed' && suppression && !(Date.parse(suppression.until) > now.getTime())) {
    const { suppression: _lifted, ...rest } = finding;
    return { ...rest, status: 'new', evidence: { ...evidence, suppressionExpired: suppression } };
  }
  if (!suppression && evidence === finding.evidence) return finding;
  return { ...finding, evidence, ...(suppression ? { suppression } : {}) };
}

export function presentFindings(findings: readonly Finding[], now: Date): Finding[] {
  return findings.map((finding) => presentFinding(finding, now));
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
 * Every text of a finding (title, detail, evidence, drift values, remediation, suppression) through
 * the credential rules once more, for a reader that passes findings on unread (the findings API).
 * Stored findings are redacted when they are made, so this changes nothing on them (redacting twice
 * changes nothing); it is the second lock against a store written by hand or by an older driftwatch.
 */
export function redactFindingText(finding: Finding): Finding {
  return redactStrings(finding) as Finding;
}

function redactStrings(value: unknown): unknown {
  if (typeof value === 'string') return redactText(value);
  if (Array.isArray(value)) return value.map(redactStrings);
  if (typeof value !== 'object' || value === null) return value;
  // Object.fromEntries defines each member (a `__proto__` key stays a member, as JSON.parse made it).
  return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, redactStrings(member)]));
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
