/**
 * How the commands that read the store show stored findings: the rules are the product's, shared
 * with the findings API (functions/core/findings/present.ts).
 */
export {
  expiredSuppressionOf,
  liftExpiredSuppression,
  presentFinding,
  presentFindings,
  redactSuppression,
} from '../functions/core/findings/present.js';

/** `2020-01-01` of an ISO time (the time as given when it is not one). */
export function dayOf(time: string): string {
  return /^\d{4}-\d{2}-\d{2}/.test(time) ? time.slice(0, 10) : time;
}
