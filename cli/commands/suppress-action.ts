import { createFindingsStore } from '../../functions/core/findings/findings-store.js';
import { DEFAULT_SUPPRESSION_SETTINGS } from '../../functions/core/registry/model.js';
import { stripForTerminal } from '../../functions/core/text/sanitize.js';
import { firstUnsafeCharacter } from '../../functions/core/text/typed-text.js';
import { CliError, loadOptionalRegistry, openObjectStore, UsageError } from '../context.js';
import { shortIdLength } from '../finding-ids.js';
import { assertFindingIdShape, resolveFindingId } from '../finding-ref.js';
import { presentFinding, redactSuppression } from '../finding-view.js';
import { parseUntil } from '../since.js';
import { reportUnreadObjects } from '../store-corruptions.js';
import type { SuppressOptions } from './suppress.js';

/** The action of `cli/commands/suppress.ts` (loaded on use: main.ts registers commands without their implementations). */
export async function suppressAction(
  run: (code: number) => void,
  findingId: string,
  options: SuppressOptions,
): Promise<void> {
  const now = new Date();
  const maxDurationMs =
    (await loadOptionalRegistry(options.registry))?.registry.suppressions.maxDurationMs ??
    DEFAULT_SUPPRESSION_SETTINGS.maxDurationMs;
  // A malformed id is a usage error before anything else is read.
  assertFindingIdShape(findingId);
  if (!options.reason.trim()) throw new UsageError('--reason must say why');
  if (!options.by.trim()) throw new UsageError('--by must say who decided');
  for (const [option, value] of [
    ['--reason', options.reason],
    ['--by', options.by],
  ] as const)
    assertPlainText(option, value);
  const until = parseUntil(options.until);
  if (until.getTime() <= now.getTime()) throw new UsageError(`--until ${options.until} is not in the future`);
  const latest = new Date(now.getTime() + maxDurationMs);
  if (until.getTime() > latest.getTime()) {
    throw new UsageError(
      `--until ${options.until} is too far: suppressions last at most ${Math.round(maxDurationMs / 86_400_000)} days (until ${latest.toISOString().slice(0, 10)})`,
    );
  }
  // Read-only for every scope but the one it writes: a corrupt document of another scope is said and
  // left for the next scan, which quarantines it and records a store.corrupt-object finding. Moved
  // away here, nobody heard of it: listings lost that scope's findings without a word, and the next
  // scan recorded it afresh as if it had never had any.
  const store = createFindingsStore(openObjectStore(options.store, process.env, { mustExist: true }), {
    readOnly: true,
  });
  // What a person typed is free text: a credential pasted into it is redacted (DESIGN.md principle 7)
  // before it is stored (suppressions/<id>.json, the current document) or printed.
  const suppression = redactSuppression({
    reason: options.reason.trim(),
    by: options.by.trim(),
    until: until.toISOString(),
    at: now.toISOString(),
  });
  // A unique prefix is enough, as for git: the table's ID column is what people copy.
  const openIds = (await store.openFindings()).map((open) => open.id);
  reportUnreadObjects(store.takeCorruptions());
  const id = resolveFindingId(findingId, openIds, store.location, 'open finding');
  const finding = await store.suppress(id, suppression);
  if (!finding) throw new CliError(`no open finding ${id} in ${store.location}`);
  // The title is data from a plan or a cluster, shown as every reader of the store shows it.
  const { title } = presentFinding(finding, now);
  // The id as the ID column shows it: long enough to name this finding alone when ids share 12
  // characters, so the confirmation can be pasted back into any command.
  process.stdout.write(
    `${stripForTerminal(`suppressed ${id.slice(0, shortIdLength(openIds))} (${title}) until ${suppression.until.slice(0, 10)} by ${suppression.by}: ${suppression.reason}`)}\n`,
  );
  run(0);
}

/**
 * A reason or an author is stored as typed and shown in every table, digest and report: a line
 * break, control or bidi character would be shown altered there (outputs replace them), or, in a
 * store read by other tools, not at all. It is refused here, where it can be fixed (docs/cli.md).
 */
function assertPlainText(option: string, value: string): void {
  const unsafe = firstUnsafeCharacter(value);
  if (unsafe)
    throw new UsageError(
      `${option} has ${unsafe.what} (${unsafe.codePoint}) at character ${unsafe.position}: give it as one line of plain text`,
    );
}
