import { createBackendAccess } from '../functions/adapters/backend/backend-access.js';
import { freshScanId } from '../functions/adapters/scan-id.js';
import { shellWord } from '../functions/core/backend/rule.js';
import type { BackendStageDeps } from '../functions/core/backend/stages.js';
import { createFindingsStore, type ScanRef } from '../functions/core/findings/findings-store.js';
import type { Finding } from '../functions/core/findings/model.js';
import type { ObjectStore } from '../functions/core/findings/object-store.js';
import { BUCKET_SHAPE } from '../functions/core/registry/formats.js';
import type { Registry } from '../functions/core/registry/model.js';
import type { ScopeCheckOutcome } from '../functions/core/scan/summary.js';
import { stripForTerminal } from '../functions/core/text/sanitize.js';
import { openObjectStore, storedAt, UsageError } from './context.js';
import type { BucketCommandOptions } from './options.js';
import { exitCodeFor, type ListingOptions, renderFindings, shownFindings } from './output.js';
import { loadRegistryFile } from './registry-file.js';

// The option parsers moved to options.ts (light enough for the registrations); kept importable here.
export { type BucketCommandOptions, collect, durationOption, withBucketOptions } from './options.js';

/** What `check-backend` and `locks` share: a scan id of their own, and the store the scan uses. */
export function startBackendSession(store: ObjectStore): { scan: ScanRef; deps: BackendStageDeps } {
  const now = () => new Date();
  const startedAt = now();
  const scanId = freshScanId(startedAt);
  return {
    scan: { scanId, startedAt },
    deps: {
      readerFor: createBackendAccess({ scanId }).readerFor,
      findings: createFindingsStore(store),
      objects: store,
      now,
    },
  };
}

export function assertBucketName(bucket: string): string {
  if (BUCKET_SHAPE.test(bucket)) return bucket;
  // `s3://b/`, `s3://b/prefix`, `b/`: the name is there, with more around it.
  const name = /^(?:s3:\/\/)?([^/]+)\/?(.*)$/i.exec(bucket);
  const fix =
    name && BUCKET_SHAPE.test(name[1]!)
      ? `: pass --bucket ${name[1]}${name[2] ? ` (and --prefix ${shellWord(name[2])} for part of it)` : ''}`
      : '';
  throw new UsageError(`--bucket takes an S3 bucket name (3-63 of a-z 0-9 . -), not '${bucket}'${fix}`);
}

/**
 * Prints what the runs recorded and sets the exit code (0 nothing above info, 2 findings above
 * info, 1 a failed check or a scope that could not be recorded). `nothingRead`: a listing for people
 * would say "No findings." about what was never read (the caller says why on stderr), so none is printed.
 */
export function reportRuns(
  outcomes: readonly ScopeCheckOutcome[],
  listing: ListingOptions,
  run: (code: number) => void,
  nothingRead = false,
): Finding[] {
  const findings = outcomes.flatMap((outcome) => outcome.findings);
  const forPeople = listing.format === 'table' || listing.format === 'markdown';
  if (!(nothingRead && forPeople && shownFindings(findings, listing.severity).length === 0))
    process.stdout.write(renderFindings(findings, listing.format, undefined, undefined, listing));
  for (const outcome of outcomes.filter((candidate) => candidate.error))
    process.stderr.write(
      `driftwatch: ${stripForTerminal(`${outcome.scope}: ${outcome.error}`, { multiline: true })}\n`,
    );
  run(outcomes.some((outcome) => outcome.error) ? 1 : exitCodeFor(findings, listing));
  return findings;
}

export function storedIn(store: ObjectStore, scan: ScanRef): string {
  return `findings stored in ${storedAt(store)} (scan ${scan.scanId})`;
}

/** Checks the shared options before anything is read or written. */
export function openBucketCommand(options: BucketCommandOptions): {
  bucket: string;
  registry: Registry | undefined;
  store: ObjectStore;
} {
  return {
    bucket: assertBucketName(options.bucket),
    registry: options.registry ? loadRegistryFile(options.registry).registry : undefined,
    // Checked here, before the bucket is read: a store that is a file would fail only at recording.
    store: openObjectStore(options.store, process.env, { writable: true }),
  };
}
