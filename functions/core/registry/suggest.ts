/**
 * The candidate closest to `word`, if it is close enough to be a likely typo: `bakend` ->
 * `backend`, `dri` -> `dir`, `RoleArn` -> `roleArn`; or else the one candidate `word` begins, as a
 * shortened id does (`payments` -> `payments-prod`). Far-off words, and a beginning shared by
 * several candidates (`payments` of `payments-prod` and `payments-dev`), get no suggestion, since a
 * wrong hint misleads more than none.
 */
export function closestMatch(word: string, candidates: readonly string[]): string | undefined {
  const typed = word.toLowerCase();
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(typed, candidate.toLowerCase());
    if (distance <= typoBudget(candidate) && (best === undefined || distance < best.distance)) {
      best = { candidate, distance };
    }
  }
  return best?.candidate ?? onlyCandidateStartingWith(typed, candidates);
}

/** A beginning this short (`p`, `pa`) says too little of which id was meant. */
const MIN_PREFIX_LENGTH = 3;

function onlyCandidateStartingWith(typed: string, candidates: readonly string[]): string | undefined {
  if (typed.length < MIN_PREFIX_LENGTH) return undefined;
  const starting = new Set(candidates.filter((candidate) => candidate.toLowerCase().startsWith(typed)));
  return starting.size === 1 ? [...starting][0] : undefined;
}

/** One edit per three characters, at least one: `id` tolerates `ix`, `backend` tolerates two. */
function typoBudget(candidate: string): number {
  return Math.max(1, Math.floor(candidate.length / 3));
}

/**
 * Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`: the optimal
 * string alignment distance. Swaps count once because `dri` for `dir` is one slip, not two.
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const above = rows[i - 1] ?? [];
      let distance = Math.min((above[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (above[j - 1] ?? 0) + cost);
      const swapped = i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1];
      if (swapped) distance = Math.min(distance, (rows[i - 2]?.[j - 2] ?? 0) + 1);
      row.push(distance);
    }
    rows.push(row);
  }
  return rows[a.length]?.[b.length] ?? 0;
}

/**
 * `; did you mean 'email'?` for a mistyped choice (`emial`, `Email`). Only the suggestion is printed,
 * never what was typed; long text is no typo of a choice (and would cost an edit distance per letter).
 */
export function choiceHint(input: unknown, choices: readonly unknown[]): string {
  if (typeof input !== 'string' || input.length > 64) return '';
  const near = closestMatch(
    input,
    choices.filter((choice): choice is string => typeof choice === 'string'),
  );
  return near === undefined || near === input ? '' : `; did you mean '${near}'?`;
}
