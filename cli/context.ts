import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { openStoreAt, parseStoreLocation } from '../functions/adapters/object-store/location.js';
import type { ObjectStore } from '../functions/core/findings/object-store.js';
import { createSensitiveHasher, type SensitiveHasher } from '../functions/core/redaction/secrets.js';
import type { Registry } from '../functions/core/registry/model.js';
import { parseRegistry } from '../functions/core/registry/parse.js';

/** An error the CLI reports as one clear line and exit code 1. */
export class CliError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CliError';
  }
}

export const DEFAULT_STORE = '.driftwatch/store';
export const STORE_OPTION_HELP =
  'findings store: a directory or s3://bucket (default $DRIFTWATCH_STORE or .driftwatch/store)';

/** Where an object of the store is, for messages: `<location>/<key>`. */
export function storedAt(store: { location: string }, key = ''): string {
  return `${store.location.replace(/\/?$/, '/')}${key}`;
}

/**
 * Where findings go: `s3://bucket` (the deployed layout) or a local directory with the same layout.
 * `--store` wins, then DRIFTWATCH_STORE, then `.driftwatch/store` under the current directory.
 */
export function openObjectStore(
  location: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): ObjectStore {
  const chosen = location ?? env.DRIFTWATCH_STORE ?? DEFAULT_STORE;
  const parsed = parseStoreLocation(chosen);
  if (!parsed) throw new CliError(`--store takes s3://bucket, not ${chosen}`);
  return openStoreAt('dir' in parsed ? { dir: resolve(parsed.dir) } : parsed, () => new S3Client({}));
}

/**
 * The salt for hashes of sensitive values. DRIFTWATCH_HASH_SALT in production (the same salt as
 * the deployed scanner, so local and nightly hashes agree); otherwise a random per-user salt kept
 * in ~/.config/driftwatch/salt with mode 0600.
 */
export function resolveSalt(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.DRIFTWATCH_HASH_SALT;
  if (configured) return configured;
  const path = join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'driftwatch', 'salt');
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(path, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
  }
  return readFileSync(path, 'utf8').trim();
}

export function resolveHasher(env: NodeJS.ProcessEnv = process.env): SensitiveHasher {
  return createSensitiveHasher(resolveSalt(env));
}

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
    text = readFileSync(absolute, 'utf8');
  } catch (error) {
    throw new CliError(
      `cannot read registry ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  return { registry: parseRegistry(text, { fileName: path }), dir: dirname(absolute), path: absolute };
}
