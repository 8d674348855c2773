import { lstatSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { CliError } from './usage.js';

/**
 * The one guard of every command that writes a file by path (`report --out`, `init --out`): what is
 * at the path may be replaced only when it is a regular file, or nothing. A rename over a device
 * node, a FIFO or a symlink replaces the node or the link itself (run as root, `--out /dev/full`
 * replaced the system's /dev/full), and a directory cannot be replaced at all. Called before
 * anything is read, and again just before the rename, so a path that changed kind meanwhile is
 * still refused. `example` is a file name to suggest (`report.html`).
 */
export function assertReplaceableFile(path: string, shown: string, example: string): void {
  let stats: Stats;
  try {
    stats = lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Nothing there: the file is created. ENOTDIR and the like are reported by the write itself.
    if (code === 'ENOENT' || code === 'ENOTDIR') return;
    throw new CliError(
      `cannot write ${shown} (${code ?? (error as Error).message}): check the path and its permissions`,
    );
  }
  if (stats.isFile()) return;
  // In a directory, the file name it lacks; anything else: the suggestion as given.
  const suggested = stats.isDirectory() ? join(shown, example) : example;
  throw new CliError(
    `cannot write ${shown}: it is a ${kindOf(stats)}, not a regular file, and is left as it is: pass --out with the path of a new or regular file, e.g. ${suggested}`,
  );
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'directory';
  if (stats.isSymbolicLink()) return 'symbolic link (it would be replaced, not what it points to)';
  if (stats.isFIFO()) return 'FIFO (named pipe)';
  if (stats.isCharacterDevice()) return 'character device';
  if (stats.isBlockDevice()) return 'block device';
  if (stats.isSocket()) return 'socket';
  return 'special file';
}
