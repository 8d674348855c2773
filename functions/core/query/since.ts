import { parseDuration } from '../registry/duration.js';
import { toIsoDate } from '../registry/formats.js';
import { limitText } from '../text/sanitize.js';

/** A `since` or `until` the reader cannot use; the message names the option as the caller spelled it. */
export class TimeFilterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TimeFilterError';
  }
}

/** Dates outside this range cannot name a finding's time (and some are not representable at all). */
const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * `2026-11-01`, `2026-11-01T08:00:00Z` or `7d` (that long before `now`): the `since` of the CLI
 * (`--since`) and of the findings API (`since=`), one parser so both accept and refuse the same.
 * `name` is the option as the caller wrote it, for the message.
 */
export function parseSince(text: string, now: Date, name: string): Date {
  const shown = limitText(text, 80);
  let date: Date;
  if (/^[+-]?\d{4,}-\d{2}-\d{2}/.test(text)) {
    assertCalendarDay(text, name);
    assertIsoForm(text, shown, name);
    date = new Date(text);
    if (Number.isNaN(date.getTime()) && !/^\d{4}-/.test(text)) throw outOfRange(shown, name);
    if (Number.isNaN(date.getTime())) throw new TimeFilterError(`${name}: ${shown} is not a date`);
  } else {
    let ms: number;
    try {
      ms = parseDuration(text);
    } catch {
      throw new TimeFilterError(
        `${name} takes a date (2026-11-01) or a duration (7d, 12h), not ${shown || 'an empty value'}`,
      );
    }
    date = new Date(now.getTime() - ms);
  }
  // `new Date` of a time beyond ±8.64e15 ms is Invalid Date, which only fails later (toISOString).
  if (Number.isNaN(date.getTime()) || date.getTime() < EARLIEST || date.getTime() > LATEST)
    throw outOfRange(shown, name);
  return date;
}

function outOfRange(shown: string, name: string): TimeFilterError {
  return new TimeFilterError(
    `${name} ${shown} is out of range: use a date from 1970-01-01 to 9999-12-31 or a shorter duration`,
  );
}

/**
 * A date or an ISO time (`2026-11-01`, `2026-11-01T08:00`, `…:00Z`, `…+01:00`; a space for the `T`),
 * nothing after it. `new Date` also reads words after a date, and a month name among them is taken as
 * the month: `2026-11-01 dec` was the 11th of December, listed or suppressed as that without a word.
 */
const ISO_FORM =
  /^[+-]?\d{4,}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

export function assertIsoForm(text: string, shown: string, name: string): void {
  if (!ISO_FORM.test(text))
    throw new TimeFilterError(
      `${name}: ${shown} is not a date: use YYYY-MM-DD or an ISO time such as 2026-11-01T08:00:00Z`,
    );
}

/**
 * `new Date('2026-02-30')` is March 2nd and `new Date('2026-04-31')` is May 1st: a day that does not
 * exist is a typo, and reading it as another day would list or suppress the wrong range silently.
 */
export function assertCalendarDay(text: string, name: string): void {
  const day = /^(\d{4}-\d{2}-\d{2})/.exec(text)?.[1];
  if (day !== undefined && 'problem' in toIsoDate(day))
    throw new TimeFilterError(
      `${name}: ${day} is not a day of the calendar: use YYYY-MM-DD, e.g. 2027-01-31`,
    );
}
