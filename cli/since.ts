import { parseDuration } from '../functions/core/registry/duration.js';
import { toIsoDate } from '../functions/core/registry/formats.js';
import { UsageError } from './context.js';

/** Dates outside this range cannot name a finding's time (and some are not representable at all). */
const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** `--since 2026-11-01`, `--since 2026-11-01T08:00:00Z` or `--since 7d` (that long ago). */
export function parseSince(text: string, now: Date): Date {
  let date: Date;
  if (/^[+-]?\d{4,}-\d{2}-\d{2}/.test(text)) {
    assertCalendarDay(text, '--since');
    date = new Date(text);
    if (Number.isNaN(date.getTime()) && !/^\d{4}-/.test(text)) throw outOfRange(text);
    if (Number.isNaN(date.getTime())) throw new UsageError(`--since: ${text} is not a date`);
  } else {
    let ms: number;
    try {
      ms = parseDuration(text);
    } catch {
      throw new UsageError(`--since takes a date (2026-11-01) or a duration (7d, 12h), not ${text}`);
    }
    date = new Date(now.getTime() - ms);
  }
  // `new Date` of a time beyond ±8.64e15 ms is Invalid Date, which only fails later (toISOString).
  if (Number.isNaN(date.getTime()) || date.getTime() < EARLIEST || date.getTime() > LATEST)
    throw outOfRange(text);
  return date;
}

function outOfRange(text: string): UsageError {
  return new UsageError(
    `--since ${text} is out of range: use a date from 1970-01-01 to 9999-12-31 or a shorter duration`,
  );
}

/**
 * `new Date('2026-02-30')` is March 2nd and `new Date('2026-04-31')` is May 1st: a day that does not
 * exist is a typo, and reading it as another day would list or suppress the wrong range silently.
 */
function assertCalendarDay(text: string, option: string): void {
  const day = /^(\d{4}-\d{2}-\d{2})/.exec(text)?.[1];
  if (day !== undefined && 'problem' in toIsoDate(day))
    throw new UsageError(`${option}: ${day} is not a day of the calendar: use YYYY-MM-DD, e.g. 2027-01-31`);
}

/** `--until 2027-01-31` (the end of that day, UTC: it includes the 31st) or an ISO time. */
export function parseUntil(text: string): Date {
  assertCalendarDay(text, '--until');
  const date = /^\d{4}-\d{2}-\d{2}$/.test(text) ? new Date(`${text}T23:59:59Z`) : new Date(text);
  if (Number.isNaN(date.getTime()))
    throw new UsageError(`--until takes a date (2027-01-31) or an ISO time, not ${text}`);
  return date;
}
