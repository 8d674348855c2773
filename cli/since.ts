import {
  assertCalendarDay,
  assertIsoForm,
  parseSince as parseSinceFilter,
  TimeFilterError,
} from '../functions/core/query/since.js';
import { limitText } from '../functions/core/text/sanitize.js';
import { UsageError } from './context.js';

/** `--since 2026-11-01`, `--since 2026-11-01T08:00:00Z` or `--since 7d` (that long ago). */
export function parseSince(text: string, now: Date): Date {
  return asUsageError(() => parseSinceFilter(text, now, '--since'));
}

/** `--until 2027-01-31` (the end of that day, UTC: it includes the 31st) or an ISO time. */
export function parseUntil(text: string): Date {
  asUsageError(() => assertCalendarDay(text, '--until'));
  if (/^\d{4}-\d{2}-\d{2}/.test(text))
    asUsageError(() => assertIsoForm(text, limitText(text, 80), '--until'));
  const date = /^\d{4}-\d{2}-\d{2}$/.test(text) ? new Date(`${text}T23:59:59Z`) : new Date(text);
  if (Number.isNaN(date.getTime()))
    throw new UsageError(`--until takes a date (2027-01-31) or an ISO time, not ${text}`);
  return date;
}

function asUsageError<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof TimeFilterError) throw new UsageError(error.message);
    throw error;
  }
}
