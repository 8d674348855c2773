import { closeSync, openSync, readSync, statSync } from 'node:fs';

// A registry file's bytes and text, and their limits: no SDK client here, so the CLI reads registry
// files without loading the AWS SDK (registry-source.ts adds the S3 registries of the deployed stack).

/** Registries are hundreds of lines; a file this large is something else (a state, a log, a bundle). */
export const MAX_REGISTRY_BYTES = 16 * 1024 * 1024;
const LIMIT = `the ${MAX_REGISTRY_BYTES / 1048576} MiB limit of a registry`;

/** A registry that is too large or not UTF-8: why, in a sentence about `name`, before YAML sees it. */
export class RegistryTextError extends Error {
  override readonly name = 'RegistryTextError';
}

/**
 * The bytes of a registry file, at most one more than the limit: a device or a pipe that never ends
 * (`--registry /dev/zero`) is cut there instead of filling the memory. Errors of the file system
 * (ENOENT, EISDIR, EACCES) pass through for the caller to word.
 */
export function readRegistryBytes(path: string, name: string): Buffer {
  const size = statSync(path).size;
  if (size > MAX_REGISTRY_BYTES) throw tooLarge(name, size);
  // Read in pieces as large as the file claims (64 KiB for a device or pipe, which claim 0): a
  // registry of a few KiB is not given a 16 MiB buffer.
  const piece = Math.max(size + 1, 64 * 1024);
  const pieces: Buffer[] = [];
  let length = 0;
  const fd = openSync(path, 'r');
  try {
    for (;;) {
      const buffer = Buffer.allocUnsafe(piece);
      const read = readSync(fd, buffer, 0, piece, null);
      if (read === 0) break;
      pieces.push(buffer.subarray(0, read));
      length += read;
      if (length > MAX_REGISTRY_BYTES) throw tooLarge(name);
    }
  } finally {
    closeSync(fd);
  }
  return Buffer.concat(pieces, length);
}

/** UTF-8 text of a registry (a byte order mark dropped); a registry in another encoding is refused, not read with its characters replaced. */
export function registryText(bytes: Uint8Array, name: string): string {
  if (bytes.length > MAX_REGISTRY_BYTES) throw tooLarge(name, bytes.length);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new RegistryTextError(`registry ${name} is not UTF-8 text: save it as UTF-8 (YAML files are)`);
  }
}

export function tooLarge(name: string, size?: number): RegistryTextError {
  const measured =
    size === undefined ? `more than ${MAX_REGISTRY_BYTES / 1048576} MiB` : `${Math.ceil(size / 1048576)} MiB`;
  return new RegistryTextError(`registry ${name} is ${measured}, over ${LIMIT}: is it the right file?`);
}
