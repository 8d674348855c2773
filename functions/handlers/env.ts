import { parseStoreLocation, type StoreLocation } from '../adapters/object-store/location.js';

/** Handler configuration, read once at import: a missing variable fails the cold start by name. */
export class ConfigurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigurationError';
  }
}

export function requireEnv(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const value = env[name];
  if (!value) throw new ConfigurationError(`environment variable ${name} is required`);
  return value;
}

/** Exactly one of FINDINGS_BUCKET (deployed) and DRIFTWATCH_STORE (a local directory, for `driftwatch invoke`). */
export function findingsStoreLocation(env: NodeJS.ProcessEnv = process.env): StoreLocation {
  if (env.FINDINGS_BUCKET) return { bucket: env.FINDINGS_BUCKET };
  if (!env.DRIFTWATCH_STORE) throw new ConfigurationError('environment variable FINDINGS_BUCKET is required');
  const location = parseStoreLocation(env.DRIFTWATCH_STORE);
  if (!location) {
    throw new ConfigurationError(
      `DRIFTWATCH_STORE takes s3://bucket or a directory, not ${env.DRIFTWATCH_STORE}`,
    );
  }
  return location;
}
