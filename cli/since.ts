import { parseDuration } from '../functions/core/registry/duration.js';
import { CliError } from './context.js';

/** `--since 2026-11-01`, `--since 2026-11-01T08:00:00Z` or `--since 7d` (that long ago). */
export function parseSince(text: string, now: Date): Date {
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    const date = new Date(text);
    if (Number.isNaN(date.getTime())) throw new CliError(`--since: ${text} is not a date`);
    return date;
  }
  try {
    return new Date(now.getTime() - parseDuration(text));
  } catch {
    throw new CliError(`--since takes a date (2026-11-01) or a duration (7d, 12h), not ${text}`);
  }
}
