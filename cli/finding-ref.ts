import { matchFindingId, shortIdLength } from './finding-ids.js';
import { CliError, UsageError } from './usage.js';

/** At most this many candidates are named in the one line an ambiguous prefix gets. */
const MAX_CANDIDATES_SHOWN = 8;

/** A usage error (64) for a text that cannot name a finding, before any store is read. */
export function assertFindingIdShape(typed: string): void {
  const match = matchFindingId(typed, []);
  if (match.kind === 'invalid')
    throw new UsageError(`${typed} is not a finding id or prefix: ${match.reason}`);
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
): string {
  const match = matchFindingId(typed, ids);
  switch (match.kind) {
    case 'match':
      return match.id;
    case 'invalid':
      throw new UsageError(`${typed} is not a finding id or prefix: ${match.reason}`);
    case 'unknown':
      throw new CliError(
        `no ${noun} ${typed} in ${where}: list the open ones with driftwatch findings (the ID column)`,
      );
    case 'ambiguous': {
      const length = shortIdLength(match.candidates);
      const shown = match.candidates.slice(0, MAX_CANDIDATES_SHOWN).map((id) => id.slice(0, length));
      const more = match.candidates.length - shown.length;
      throw new CliError(
        `${typed} matches ${match.candidates.length} findings: ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''} (give more characters of the id)`,
      );
    }
  }
}
