import type { FindingsStore } from '../functions/core/findings/findings-store.js';
import type { Finding } from '../functions/core/findings/model.js';
import { visibleValue } from '../functions/core/text/sanitize.js';
import { matchFindingId, shortIdLength } from './finding-ids.js';
import { CliError, UsageError } from './usage.js';

/** At most this many candidates are named in the one line an ambiguous prefix gets. */
const MAX_CANDIDATES_SHOWN = 8;

/**
 * A usage error (64) for a text that cannot name a finding, before any store is read. The text is
 * shown escaped (visibleValue): stripped of what a terminal would act on, `4f5f<ESC>[31m` read as
 * "4f5f is not a finding id", naming a valid prefix as the culprit.
 */
export function assertFindingIdShape(typed: string): void {
  const match = matchFindingId(typed, []);
  if (match.kind === 'invalid')
    throw new UsageError(`${visibleValue(typed)} is not a finding id or prefix: ${match.reason}`);
}

/**
 * The full id a typed id or prefix names among `ids`, or a one-line error: a text that cannot be an
 * id is a usage error (64); an ambiguous prefix (its candidates' short ids listed) and an unknown id
 * are errors of what the store holds (1): the same command line is right against another store
 * (docs/cli.md "Finding ids").
 */
export function resolveFindingId(
  typed: string,
  ids: Iterable<string>,
  where: string,
  noun = 'finding',
  /** What each candidate of an ambiguous prefix is (`open`, `resolved`), when the ids are of several kinds. */
  labelOf?: (id: string) => string,
): string {
  const match = matchFindingId(typed, ids);
  switch (match.kind) {
    case 'match':
      return match.id;
    case 'invalid':
      throw new UsageError(`${visibleValue(typed)} is not a finding id or prefix: ${match.reason}`);
    case 'unknown':
      throw new CliError(
        `no ${noun} ${typed} in ${where}: list the open ones with driftwatch findings (the ID column)`,
      );
    case 'ambiguous': {
      const length = shortIdLength(match.candidates);
      const shown = match.candidates
        .slice(0, MAX_CANDIDATES_SHOWN)
        .map((id) => `${id.slice(0, length)}${labelOf ? ` (${labelOf(id)})` : ''}`);
      const more = match.candidates.length - shown.length;
      throw new CliError(
        `${typed} matches ${match.candidates.length} ${noun}s: ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''} (give more characters of the id)`,
      );
    }
  }
}

/**
 * The finding a typed id or prefix names for `findings show` and `remediate`, which take an open
 * finding or one of the last `days` of history. A prefix is judged among both together, as
 * `git show` judges a short id among every object: one shared by an open and a resolved finding is
 * ambiguous (each candidate named with what it is), never the open one chosen silently. `suppress`
 * acts on open findings only and judges among those, as `git log` judges among commits. `recent`
 * is the history read to judge (every scope's lines of those days), when it was read.
 */
export async function findOpenOrRecent(
  store: Pick<FindingsStore, 'openFindings' | 'recentHistory' | 'location'>,
  typed: string,
  now: Date,
  days: number,
): Promise<{ finding: Finding; recent?: Finding[] }> {
  const open = await store.openFindings();
  const openById = new Map(open.map((finding) => [finding.id, finding]));
  const inOpen = matchFindingId(typed, openById.keys());
  if (inOpen.kind === 'invalid')
    throw new UsageError(`${typed} is not a finding id or prefix: ${inOpen.reason}`);
  // A whole id names one finding wherever it is: no history is read for it.
  if (inOpen.kind === 'match' && inOpen.id === typed.trim().toLowerCase())
    return { finding: openById.get(inOpen.id)! };
  const recent = await store.recentHistory(now, days);
  const id = resolveFindingId(
    typed,
    [...openById.keys(), ...recent.map((line) => line.id)],
    store.location,
    'finding',
    (candidate) => (openById.has(candidate) ? 'open' : 'resolved'),
  );
  const finding = openById.get(id) ?? latestLine(recent.filter((line) => line.id === id));
  if (!finding) throw new Error('a resolved finding id has no finding');
  return { finding, recent };
}

/**
 * The history line that says where a finding stands now: the one of the latest event. A resolved
 * line keeps the lastSeenAt of the scan that last saw the finding, the same as the line of that
 * scan, so lastSeenAt alone ties them and picked the older `new` line: the event of a resolved line
 * is its resolvedAt. Lines come in history order (oldest scan first), so a tie goes to the later.
 */
function latestLine(lines: readonly Finding[]): Finding | undefined {
  const at = (line: Finding) =>
    line.status === 'resolved' ? (line.resolvedAt ?? line.lastSeenAt) : line.lastSeenAt;
  let latest: Finding | undefined;
  for (const line of lines) if (latest === undefined || at(line) >= at(latest)) latest = line;
  return latest;
}
