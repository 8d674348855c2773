import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { renderReport } from '../../functions/core/report/render-report.js';
import { EmptyStoreError, loadReportData } from '../../functions/core/report/report-data.js';
import { stripForTerminal } from '../../functions/core/text/sanitize.js';
import { CliError, EXIT_RUNTIME_ERROR, openObjectStore, UsageError } from '../context.js';
import type { ReportOptions } from './report.js';

/** The action of `cli/commands/report.ts` (loaded on use). */
export async function reportAction(run: (code: number) => void, options: ReportOptions): Promise<void> {
  const out = resolve(options.out);
  const nights = parseNights(options.nights);
  assertWritableDirectory(out);
  const store = openObjectStore(options.store, process.env, { mustExist: true });
  let data: Awaited<ReturnType<typeof loadReportData>>;
  try {
    data = await loadReportData(store, { owner: options.owner, nights });
  } catch (error) {
    if (error instanceof EmptyStoreError) throw new CliError(error.message);
    throw error;
  }
  writeAtomically(out, renderReport(data));
  const shown = data.findings.length;
  process.stderr.write(
    `driftwatch: wrote ${stripForTerminal(out)} (${shown} finding${shown === 1 ? '' : 's'}, as of ${data.generatedAt})\n`,
  );
  if (options.owner !== undefined && !data.owners.includes(options.owner))
    process.stderr.write(
      `driftwatch: no finding in the last ${data.nights} nights belongs to owner '${stripForTerminal(options.owner)}' (owners in the store: ${data.owners.map((owner) => stripForTerminal(owner)).join(', ') || 'none'}): check the spelling\n`,
    );
  for (const object of data.unreadable)
    process.stderr.write(
      `driftwatch: ${stripForTerminal(`${object.key} in the findings store is not a valid ${object.what} (${object.reason}): the report says so and lacks its findings; restore a good version, or let the next scan write it again`)}\n`,
    );
  // A report that lacks part of the store was written (it says what is missing), but is not a success.
  run(data.unreadable.length > 0 ? EXIT_RUNTIME_ERROR : 0);
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
      `cannot write ${out}: the directory ${dir} does not exist (create it, or pass another --out)`,
    );
  try {
    if (statSync(out).isDirectory())
      throw new CliError(
        `cannot write ${out}: it is a directory (pass --out with a file name, e.g. report.html)`,
      );
  } catch (error) {
    if (error instanceof CliError) throw error;
  }
}

/** A temporary file beside the target, renamed over it: readers see the old report or the new one. */
function writeAtomically(out: string, content: string): void {
  const temporary = resolve(dirname(out), `.${basename(out)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeFileSync(temporary, content, { flag: 'wx' });
    renameSync(temporary, out);
  } catch (error) {
    rmSync(temporary, { force: true });
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(
      `cannot write ${out} (${code ?? (error as Error).message}): check the path and its permissions`,
      {
        cause: error,
      },
    );
  }
}
