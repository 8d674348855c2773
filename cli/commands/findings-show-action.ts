import { createFindingsStore } from '../../functions/core/findings/findings-store.js';
import type { Finding } from '../../functions/core/findings/model.js';
import { jsonForTerminal, stripForTerminal } from '../../functions/core/text/sanitize.js';
import { openObjectStore } from '../context.js';
import { historySpans, renderFindingDetail } from '../finding-detail.js';
import { matchFindingId } from '../finding-ids.js';
import { resolveFindingId } from '../finding-ref.js';
import type { OutputFormat } from '../output.js';
import { terminalFor } from '../terminal.js';
import { EXIT_RUNTIME_ERROR } from '../usage.js';

/** How far back `findings show` reads a finding's history (and looks for a resolved finding). */
export const SHOW_HISTORY_DAYS = 30;

/** The action of `cli/commands/findings-show.ts` (loaded on use, as every command's implementation). */
export async function findingsShowAction(
  run: (code: number) => void,
  typed: string,
  options: { store?: string; format: OutputFormat },
): Promise<void> {
  const { store: location, format } = options;
  const store = createFindingsStore(openObjectStore(location, process.env, { mustExist: true }), {
    readOnly: true,
  });
  const now = new Date();
  const open = await store.openFindings();
  let finding: Finding | undefined;
  if (
    matchFindingId(
      typed,
      open.map((candidate) => candidate.id),
    ).kind !== 'unknown'
  ) {
    const id = resolveFindingId(
      typed,
      open.map((candidate) => candidate.id),
      store.location,
    );
    finding = open.find((candidate) => candidate.id === id);
  } else {
    // Not open: a finding resolved within the window is still worth explaining.
    const recent = await store.recentHistory(now, SHOW_HISTORY_DAYS);
    const id = resolveFindingId(
      typed,
      recent.map((line) => line.id),
      store.location,
    );
    finding = latest(recent.filter((line) => line.id === id));
  }
  const shown = finding;
  if (!shown) throw new Error('a resolved finding id has no finding');
  const history = (await store.recentHistory(now, SHOW_HISTORY_DAYS, shown.workspace)).filter(
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
  run(corrupt.length > 0 ? EXIT_RUNTIME_ERROR : 0);
}

function latest(lines: readonly Finding[]): Finding | undefined {
  return [...lines].sort((a, b) => b.lastSeenAt.localeCompare(a.lastSeenAt))[0];
}
