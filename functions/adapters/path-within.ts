import { sep } from 'node:path';

/**
 * Whether `path` is `dir` or below it, by their text (resolve or realpath both first: `..` and
 * symlinks are not followed here). `/a/bc` is not below `/a/b`; `/` holds everything.
 */
export function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);
}
