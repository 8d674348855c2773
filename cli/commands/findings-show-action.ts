import { createFindingsStore } from '../../functions/core/findings/findings-store.js';
import { jsonForTerminal, stripForTerminal } from '../../functions/core/text/sanitize.js';
import { openObjectStore, UsageError } from '../context.js';
import { historySpans, renderFindingDetail } from '../finding-detail.js';
import { findOpenOrRecent } from '../finding-ref.js';
import { presentFinding } from '../finding-view.js';
import type { ListingFormat } from '../output.js';
import { assertRecordedStore, wrongKindLine } from '../recorded-store.js';
import { terminalFor } from '../terminal.js';
import { EXIT_RUNTIME_ERROR } from '../usage.js';

/** How far back `findings show` reads a finding's history (and looks for a resolved finding). */
export const SHOW_HISTORY_DAYS = 30;

/** The action of `cli/commands/findings-show.ts` (loaded on use, as every command's implementation). */
export async function findingsShowAction(
  run: (code: number) => void,
  typed: string,
  options: { store?: string; format: ListingFormat },
): Promise<void> {
  const { store: location, format } = options;
  // The --format of `driftwatch findings` also takes markdown and sarif: one finding is a table or json.
  if (format !== 'table' && format !== 'json')
    throw new UsageError(
      `findings show takes --format table or json, not ${format} (markdown and sarif are formats of the listing: driftwatch findings --format ${format})`,
    );
  const objects = openObjectStore(location, process.env, { mustExist: true });
  const store = createFindingsStore(objects, { readOnly: true });
  const now = new Date();
  // A directory that is not a findings store says so, not "no finding <id>".
  const wrongKind = await assertRecordedStore(objects);
  for (const entry of wrongKind)
    process.stderr.write(`driftwatch: ${stripForTerminal(wrongKindLine(entry, objects.location))}\n`);
  const { finding, recent } = await findOpenOrRecent(store, typed, now, SHOW_HISTORY_DAYS);
  // As of now (an expired suppression no longer hides it), its suppression's text redacted.
  const shown = presentFinding(finding, now);
  // The history the id was judged among, when it was read: the same days, not read again.
  const history = (recent ?? (await store.recentHistory(now, SHOW_HISTORY_DAYS, shown.workspace))).filter(
    (line) => line.id === shown.id,
  );
  const corrupt = store.takeCorruptions();
  for (const object of corrupt)
    process.stderr.write(
      `driftwatch: ${stripForTerminal(`${object.key} in the findings store is not a valid ${object.what} (${object.reason}): what it holds is not shown`)}\n`,
    );
  process.stdout.write(
    format === 'json'
      ? `${jsonForTerminal({ ...shown, history: historySpans(history) })}\n`
      : renderFindingDetail(shown, history, now, terminalFor()),
  );
  run(corrupt.length > 0 || wrongKind.length > 0 ? EXIT_RUNTIME_ERROR : 0);
}
