import { existsSync, readFileSync } from 'node:fs';
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

/**
 * The version in the package.json of the installed package, read when asked (not compiled in), so
 * the build can never print another version than the package it ships in.
 */
export function packageVersion(root: string = PACKAGE_ROOT): string {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: unknown };
  return typeof version === 'string' ? version : 'unknown';
}
