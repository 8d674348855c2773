import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Directories made by scratchDir and not yet removed. */
const made: string[] = [];

/**
 * A fresh directory in the system's temporary directory, removed after the test file (the unit
 * setup file removes them): for helpers that run outside any one test's hooks (a synthesis in a
 * beforeAll, say), where useTempDirs cannot register the removal.
 */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every scratch directory made so far. */
export function removeScratchDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
