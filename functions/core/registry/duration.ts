const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 } as const;

/** Units in descending order, each at most once: `1d`, `2h30m`, `90s`, `1h0m30s`. */
const DURATION = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

export const DURATION_EXAMPLES = '30m, 1h, 2h30m, 90s or 1d';

/**
 * Parses a Go-style duration (`30m`, `1h`, `2h30m`, `90s`, `1d`) into milliseconds.
 * Throws on anything else, including bare numbers: "600" could mean seconds or milliseconds,
 * and guessing wrong makes a stale-lock alert fire 1000 times too early or too late.
 */
export function parseDuration(text: string): number {
  const match = DURATION.exec(text);
  if (text === '' || match === null) {
    throw new Error(
      `'${text}' is not a duration: use a number and a unit (d, h, m, s), e.g. ${DURATION_EXAMPLES}`,
    );
  }
  const [, days, hours, minutes, seconds] = match;
  const ms =
    toNumber(days) * UNIT_MS.d +
    toNumber(hours) * UNIT_MS.h +
    toNumber(minutes) * UNIT_MS.m +
    toNumber(seconds) * UNIT_MS.s;
  if (!Number.isSafeInteger(ms)) throw new Error(`'${text}' is too long a duration`);
  return ms;
}

function toNumber(digits: string | undefined): number {
  return digits === undefined ? 0 : Number(digits);
}
