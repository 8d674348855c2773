import { redactCredentials } from '../redaction/secret-values.js';

/**
 * A plan that cannot be evaluated: not JSON, truncated, empty, not an object, or a format we do not
 * understand. The message is the reason shown to users (DESIGN.md principle 3: a failed scan is a
 * `scan-failed` finding, never drift), so keep it short and free of plan values: it reaches stderr,
 * logs and the stored finding. Quote plan text only through `shownAddress` and `shownToken`; as a
 * backstop, credential-shaped text (AKIA…, password=…, URL passwords) is redacted here.
 */
export class PlanFormatError extends Error {
  override readonly name = 'PlanFormatError';

  constructor(message: string, options?: ErrorOptions) {
    super(redactCredentials(message), options);
  }
}

/**
 * A resource address for an error message, its string instance keys left out: `for_each` keys can
 * be secrets (`for_each = nonsensitive(var.tokens)`), and an error is written before the plan's
 * secret values are known (the normal path hashes them; `resource_drift[3]` still locates the entry).
 */
export function shownAddress(address: string): string {
  return address.replace(/\["(?:[^"\\]|\\.)*"\]/g, '["…"]');
}

/**
 * A plan value named in an error (an action, a version): shown only when it has the shape of one
 * (`shape`: Terraform's actions are lower-case words, versions digits and dots); anything else may
 * be a secret put in the wrong place, and only its kind is said.
 */
export function shownToken(value: unknown, shape: RegExp): string {
  if (typeof value === 'string' && shape.test(value)) return `"${value}"`;
  if (typeof value === 'number' && Number.isFinite(value)) return `the number ${value}`;
  return `${describeJson(value)} (not shown)`;
}

/** The kind of a JSON value, for errors that must not quote it: `a string`, `an object`, `null`. */
export function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return typeof value === 'string' ? 'a string' : `a ${typeof value}`;
}

/**
 * JSON.parse's reason without the excerpt of the input V8 adds (`Unexpected token 'C', ..."assword":
 * CNRY"... is not valid JSON`): the excerpt is plan text, possibly the secret whose quotes were lost.
 * The position V8 gives in the other messages is kept.
 */
export function jsonParseReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const withoutExcerpt = message.replace(/,? (?:\.\.\.)?"[\s\S]*"(?:\.\.\.)? is not valid JSON$/, '');
  return withoutExcerpt === '' ? 'not valid JSON' : withoutExcerpt;
}
