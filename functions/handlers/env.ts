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
export function findingsStoreLocation(
  env: NodeJS.ProcessEnv = process.env,
): { bucket: string } | { dir: string } {
  if (env.FINDINGS_BUCKET) return { bucket: env.FINDINGS_BUCKET };
  if (env.DRIFTWATCH_STORE && !env.DRIFTWATCH_STORE.startsWith('s3://')) return { dir: env.DRIFTWATCH_STORE };
  if (env.DRIFTWATCH_STORE)
    return { bucket: env.DRIFTWATCH_STORE.replace(/^s3:\/\//, '').replace(/\/$/, '') };
  throw new ConfigurationError('environment variable FINDINGS_BUCKET is required');
}
