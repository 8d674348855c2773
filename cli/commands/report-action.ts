import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { redactText } from '../../functions/core/redaction/secrets.js';
import { renderReport } from '../../functions/core/report/render-report.js';
import { EmptyStoreError, loadReportData } from '../../functions/core/report/report-data.js';
import { stripForTerminal, visibleValue } from '../../functions/core/text/sanitize.js';
import { CliError, EXIT_RUNTIME_ERROR, openObjectStore, UsageError } from '../context.js';
import { assertReplaceableFile } from '../output-file.js';
import { assertRecordedStore, wrongKindLine } from '../recorded-store.js';
import type { ReportOptions } from './report.js';

/** The action of `cli/commands/report.ts` (loaded on use). */
export async function reportAction(run: (code: number) => void, options: ReportOptions): Promise<void> {
  const out = resolve(options.out);
  const nights = parseNights(options.nights);
  assertWritableDirectory(out);
  const store = openObjectStore(options.store, process.env, { mustExist: true });
  // A directory where a current document belongs is named, not read as "no scan has been recorded".
  // Nothing recorded at all: loadReportData says so in its own words (and names corrupt documents).
  const wrongKind = await assertRecordedStore(store, { emptyIsReported: true });
  let data: Awaited<ReturnType<typeof loadReportData>>;
  try {
    // As of now, as `findings` lists them: an expired suppression no longer hides its finding (the
    // store's next scan records it so); every text is redacted once more (presentFinding).
    data = await loadReportData(store, { owner: options.owner, nights, asOf: new Date() });
  } catch (error) {
    if (error instanceof EmptyStoreError) throw new CliError(error.message);
    throw error;
  }
  writeAtomically(out, renderReport(data));
  const shown = data.findings.length;
  process.stderr.write(
    `driftwatch: wrote ${visibleValue(out)} (${shown} finding${shown === 1 ? '' : 's'}, as of ${data.generatedAt})\n`,
  );
  if (options.owner !== undefined && !data.owners.includes(options.owner))
    process.stderr.write(
      `driftwatch: no finding in the last ${data.nights} nights belongs to owner '${stripForTerminal(redactText(options.owner))}' (owners in the store: ${data.owners.map((owner) => stripForTerminal(owner)).join(', ') || 'none'}): check the spelling\n`,
    );
  for (const entry of wrongKind)
    process.stderr.write(`driftwatch: ${stripForTerminal(wrongKindLine(entry, store.location))}\n`);
  for (const object of data.unreadable)
    process.stderr.write(
      `driftwatch: ${stripForTerminal(`${object.key} in the findings store is not a valid ${object.what} (${object.reason}): the report says so and lacks its findings; restore a good version, or let the next scan write it again`)}\n`,
    );
  // A report that lacks part of the store was written (it says what is missing), but is not a success.
  run(data.unreadable.length > 0 || wrongKind.length > 0 ? EXIT_RUNTIME_ERROR : 0);
}

function parseNights(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const nights = Number(value);
  if (!/^\d+$/.test(value) || nights < 1 || nights > 400)
    throw new UsageError(`--nights takes a whole number of nights from 1 to 400, not '${value}'`);
  return nights;
}

/** Fails before reading the store when the report could not be written anyway. */
function assertWritableDirectory(out: string): void {
  const dir = dirname(out);
  let isDirectory = false;
  try {
    isDirectory = statSync(dir).isDirectory();
  } catch {
    // reported below
  }
  if (!isDirectory)
    throw new CliError(
      `cannot write ${visibleValue(out)}: the directory ${visibleValue(dir)} does not exist (create it, or pass another --out)`,
    );
  assertReplaceableFile(out, visibleValue(out), REPORT_EXAMPLE);
}

const REPORT_EXAMPLE = 'report.html';

/** A temporary file beside the target, renamed over it: readers see the old report or the new one. */
function writeAtomically(out: string, content: string): void {
  const temporary = resolve(dirname(out), `.${basename(out)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeFileSync(temporary, content, { flag: 'wx' });
    // Again just before the rename: what is at the path may have changed kind while the store was read.
    assertReplaceableFile(out, visibleValue(out), REPORT_EXAMPLE);
    renameSync(temporary, out);
  } catch (error) {
    rmSync(temporary, { force: true });
    if (error instanceof CliError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(
      `cannot write ${visibleValue(out)} (${code ?? (error as Error).message}): check the path and its permissions`,
      {
        cause: error,
      },
    );
  }
}
