/**
 * Step Functions refuses a task result over 256 KiB (States.DataLimitExceeded) even when the state
 * discards it, and then runs the item's Catch as if the stage had failed after its work was done. So
 * a stage's result lists at most MAX_LISTED of anything whose number grows with the estate (the
 * scopes of a state bucket shared by thousands of workspaces, owners, outbox digests) and counts the
 * rest; the full account is in the log and the findings store.
 */
export const STEP_FUNCTIONS_PAYLOAD_BYTES = 256 * 1024;
export const MAX_LISTED = 100;
/** A reason quoted in a result (an error message) is cut to this many characters. */
export const MAX_REASON_CHARS = 500;

export function listAtMost<T>(items: readonly T[], max = MAX_LISTED): { listed: T[]; notListed: number } {
  return { listed: items.slice(0, max), notListed: Math.max(0, items.length - max) };
}
