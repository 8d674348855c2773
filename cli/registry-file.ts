import { dirname, resolve } from 'node:path';
import { RegistryTextError, readRegistryBytes, registryText } from '../functions/adapters/registry-text.js';
import type { Registry } from '../functions/core/registry/model.js';
import { parseRegistry } from '../functions/core/registry/parse.js';
import { CliError } from './usage.js';

export interface LoadedRegistry {
  registry: Registry;
  /** Relative source directories are resolved against this. */
  dir: string;
  path: string;
}

/** Reads and validates a registry file; RegistryError (with paths and lines) passes through. */
export function loadRegistryFile(path: string): LoadedRegistry {
  const absolute = resolve(path);
  let text: string;
  try {
    text = registryText(readRegistryBytes(absolute, path), path);
  } catch (error) {
    if (error instanceof RegistryTextError) throw new CliError(error.message);
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : (code ?? (error as Error).message);
    // No registry at all is where a newcomer starts: the command that writes one is the fix.
    const fix =
      code === 'ENOENT'
        ? 'pass --registry with the path of your registry, or write one from your state bucket: driftwatch init --bucket <your-state-bucket>'
        : 'pass --registry with the path of driftwatch.yaml';
    throw new CliError(`cannot read registry ${path}: ${why} (${fix})`);
  }
  return { registry: parseRegistry(text, { fileName: path }), dir: dirname(absolute), path: absolute };
}
