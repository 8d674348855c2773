import { type Dirent, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CURRENT_PREFIX, STORE_TOP_LEVEL_PREFIXES } from '../functions/core/findings/layout.js';
import type { ObjectStore } from '../functions/core/findings/object-store.js';
import { visibleValue } from '../functions/core/text/sanitize.js';
import { CliError } from './usage.js';

/**
 * What the commands that read findings check before they say "No findings.": that the store holds
 * at least one current document (every scope a scan recorded has one, findings or not), and that no
 * entry where a current document belongs is something else (a directory named `current/x.json`, a
 * file named `current`). A directory that is not a findings store (an empty one, docs/) would
 * otherwise list as "No findings." and pass a CI gate.
 */
export interface RecordedStore {
  /** Keys where a current document belongs that hold something else: each is an error naming it. */
  wrongKind: Array<{ key: string; what: string }>;
  /** Whether a current document exists (a bucket: assumed unless it holds others' objects, see inspectBucket). */
  recorded: boolean;
  /** A bucket's object that no findings store writes (its first one listed). */
  foreignKey?: string;
}

export async function inspectRecordedStore(objects: ObjectStore): Promise<RecordedStore> {
  if (/^s3:\/\//.test(objects.location)) return inspectBucket(objects);
  return inspectDirectory(objects.location);
}

/** Objects of a bucket looked at for one that is not driftwatch's, at most (one listing page). */
const FOREIGN_LOOKUP_LIMIT = 1000;

/**
 * A bucket has no entries of the wrong kind, and an existing empty bucket (a stack deployed, its
 * first nightly scan not run yet) lists as a store without findings: docs/cli.md, and
 * test/integration/cli-store-errors.test.ts hold that. A bucket with no current document that
 * holds objects no findings store writes (the state bucket given as --store) has recorded nothing:
 * "No findings." from it would pass a CI gate. A missing bucket fails on its own.
 */
async function inspectBucket(objects: ObjectStore): Promise<RecordedStore> {
  for await (const _ of objects.list(CURRENT_PREFIX)) return { wrongKind: [], recorded: true };
  let seen = 0;
  for await (const object of objects.list('')) {
    if (!STORE_TOP_LEVEL_PREFIXES.some((prefix) => object.key.startsWith(prefix)))
      return { wrongKind: [], recorded: false, foreignKey: object.key };
    if (++seen >= FOREIGN_LOOKUP_LIMIT) break;
  }
  return { wrongKind: [], recorded: true };
}

/** A local store: the folder `current/` is read directly, so a directory where a document belongs is seen. */
function inspectDirectory(root: string): RecordedStore {
  const folder = join(root, CURRENT_PREFIX.replace(/\/$/, ''));
  try {
    const stats = lstatSync(folder);
    if (!stats.isDirectory())
      return {
        wrongKind: [
          {
            key: CURRENT_PREFIX.replace(/\/$/, ''),
            what: 'a file where the folder of current documents belongs',
          },
        ],
        recorded: false,
      };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { wrongKind: [], recorded: false };
    throw error;
  }
  let entries: Dirent[];
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch (error) {
    throw new CliError(
      `cannot read ${folder} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): check its permissions`,
    );
  }
  const wrongKind: RecordedStore['wrongKind'] = [];
  let recorded = false;
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (!entry.name.endsWith('.json')) continue;
    if (entry.isFile()) recorded = true;
    else
      wrongKind.push({
        key: `${CURRENT_PREFIX}${entry.name}`,
        what: `a ${entry.isDirectory() ? 'directory' : entry.isSymbolicLink() ? 'symbolic link' : 'special file'} where a current document belongs`,
      });
  }
  return { wrongKind, recorded };
}

/** The line for an entry of the wrong kind: the key, what it is, the fix. */
export function wrongKindLine(entry: { key: string; what: string }, location: string): string {
  return `${entry.key} in the findings store ${location} is ${entry.what}: its findings cannot be read; move it away, or let the next scan write it again`;
}

/**
 * Throws the one-line error when nothing can be listed: no scan recorded, or only entries of the
 * wrong kind. Returns the entries of the wrong kind beside readable documents, for the caller to
 * report (one stderr line each, exit 1) while it lists the rest.
 */
export async function assertRecordedStore(
  objects: ObjectStore,
  options: { emptyIsReported?: boolean } = {},
): Promise<RecordedStore['wrongKind']> {
  const inspected = await inspectRecordedStore(objects);
  const [first] = inspected.wrongKind;
  if (!inspected.recorded && first)
    throw new CliError(
      `${wrongKindLine(first, objects.location)}${inspected.wrongKind.length > 1 ? ` (and ${inspected.wrongKind.length - 1} more)` : ''}`,
    );
  if (inspected.foreignKey !== undefined)
    throw new CliError(
      `no scan has been recorded in the findings store at ${objects.location}: it holds objects a findings store does not (${visibleValue(inspected.foreignKey)}; a state bucket?): pass --store with the directory or s3://bucket a scan wrote to`,
    );
  // `emptyIsReported`: the caller says "no scan has been recorded" itself (report, with its own details).
  if (!inspected.recorded && !options.emptyIsReported)
    throw new CliError(
      `no scan has been recorded in the findings store at ${objects.location}: run driftwatch scan (or deploy and let the nightly scan run) first, or pass --store with the store a scan wrote to`,
    );
  return inspected.wrongKind;
}
