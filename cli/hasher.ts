import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { createSensitiveHasher, type SensitiveHasher } from '../functions/core/redaction/secrets.js';
import { CliError } from './usage.js';

/**
 * The salt for hashes of sensitive values. DRIFTWATCH_HASH_SALT in production (the same salt as
 * the deployed scanner, so local and nightly hashes agree); otherwise a random per-user salt kept
 * in ~/.config/driftwatch/salt with mode 0600.
 */
export function resolveSalt(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.DRIFTWATCH_HASH_SALT;
  if (configured) return configured;
  const path = join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'driftwatch', 'salt');
  try {
    if (!existsSync(path)) {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      writeFileSync(path, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
    }
    return readFileSync(path, 'utf8').trim();
  } catch (error) {
    // A CI runner or container user whose home is missing or read-only (HOME=/nonexistent).
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new CliError(
      `cannot keep the salt for hashes of sensitive values in ${path} (${code}): set DRIFTWATCH_HASH_SALT (openssl rand -hex 32; the deployed scanner's, for hashes that agree with it) or XDG_CONFIG_HOME to a writable directory`,
    );
  }
}

export function resolveHasher(env: NodeJS.ProcessEnv = process.env): SensitiveHasher {
  const salt = resolveSalt(env);
  try {
    return createSensitiveHasher(salt);
  } catch (error) {
    // Only the configured salt can be rejected (ours is 64 hex characters); its value is never shown.
    throw new CliError(
      `DRIFTWATCH_HASH_SALT is not usable: ${(error as Error).message}; set it to a long random value (openssl rand -hex 32) or unset it`,
    );
  }
}
