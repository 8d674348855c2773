import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';

/**
 * Why `path` cannot be read as a Terraform root's directory, in words for people; undefined when it
 * is a directory. A relative path says where it was looked for: a path typed for another directory
 * (`../infra/network` from the wrong place) is the usual cause, and "is not a directory" hid it.
 */
export async function rootDirectoryProblem(path: string, cwd = process.cwd()): Promise<string | undefined> {
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(path)).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR')
      return `${path} does not exist${isAbsolute(path) ? '' : ` (looked for from ${cwd})`}`;
    return `${path} cannot be read (${code ?? (error as Error).message})`;
  }
  return isDirectory ? undefined : `${path} is a file, not a directory: give the directory that holds it`;
}
