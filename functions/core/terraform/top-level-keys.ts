import { PlanFormatError } from './plan-error.js';
import { selectPlanPath } from './plan-paths.js';

/**
 * A member of the plan object that driftwatch reads, given twice. JSON.parse keeps the last one and
 * the streaming reader would read both, so the two readers would judge one file differently (and
 * `"resource_drift": [...]` followed by `"resource_drift": []` would hide the drift from one of
 * them). Terraform writes each member once: the plan was edited or joined by hand, and is rejected.
 */
export function repeatedMemberError(key: string): PlanFormatError {
  return new PlanFormatError(
    `invalid plan: ${key} appears twice in the plan object (terraform show -json writes each member once: was the file edited or joined by hand?)`,
  );
}

/** Whether a top-level member is read by driftwatch (a repeated one it skips changes nothing). */
export function isReadMember(key: string): boolean {
  return selectPlanPath([key]) !== 'skip';
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The first read member that `text` (a JSON object, already parsed successfully) gives twice, or
 * undefined. For the in-memory reader, whose JSON.parse no longer shows repetitions: one pass that
 * looks only at nesting and at where strings end (indexOf), as the streaming reader's skip does.
 */
export function firstRepeatedMember(text: string): string | undefined {
  const seen = new Set<string>();
  let depth = 0;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const end = stringEnd(text, i);
      if (expectKey && depth === 1) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (isReadMember(key)) {
          if (seen.has(key)) return key;
          seen.add(key);
        }
      }
      expectKey = false;
      i = end;
    } else if (code === 0x7b /* { */ || code === 0x5b /* [ */) {
      depth++;
      expectKey = code === 0x7b && depth === 1;
    } else if (code === 0x7d /* } */ || code === 0x5d /* ] */) {
      depth--;
    } else if (code === 0x2c /* , */) {
      expectKey = depth === 1;
    }
  }
  return undefined;
}

/** The index of the quote that closes the string opening at `start`. */
function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  for (;;) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}
