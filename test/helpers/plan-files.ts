import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/**
 * Call at a test file's top level: a temp directory for the file's plan files, removed after its
 * tests, and a writer that puts each content in a fresh plan-<n>.json there and returns its path.
 */
export function usePlanFiles(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let counter = 0;
  const writePlan = (content: string | Uint8Array): string => {
    const path = join(dir, `plan-${counter++}.json`);
    writeFileSync(path, content);
    return path;
  };
  return { dir, writePlan };
}
