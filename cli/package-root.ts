import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository (package) directory. The CLI runs from source (tsx, tests) or compiled into
 * dist/ (bundled, so a module's own URL says little about where it came from): walk up to the
 * package.json instead of counting `..` from a file.
 */
function findPackageRoot(start: string): string {
  let dir = start;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${start}`);
    dir = parent;
  }
  return dir;
}

export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

/** Whether this code runs compiled (dist/*.js) rather than from the TypeScript sources. */
export const RUNS_COMPILED = !import.meta.url.endsWith('.ts');
