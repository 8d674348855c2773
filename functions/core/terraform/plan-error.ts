/**
 * A plan that cannot be evaluated: not JSON, truncated, empty, not an object, or a format we do not
 * understand. The message is the reason shown to users (DESIGN.md principle 3: a failed scan is a
 * `scan-failed` finding, never drift), so keep it short and free of plan values.
 */
export class PlanFormatError extends Error {
  override readonly name = 'PlanFormatError';
}
