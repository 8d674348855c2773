import type { S3Client } from '@aws-sdk/client-s3';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { withHttpTimeouts } from '../adapters/aws-http-timeouts.js';
import { createLogger, type Logger, logLevelFrom } from '../adapters/logger.js';
import { openStoreAt } from '../adapters/object-store/location.js';
import { createS3ObjectStore } from '../adapters/object-store/s3-object-store.js';
import { createFindingsStore, type FindingsStore } from '../core/findings/findings-store.js';
import type { ObjectStore } from '../core/findings/object-store.js';
import { createDeferredFindingsStore } from '../core/findings/pending-records.js';
import { ConfigurationError, findingsStoreLocation } from './env.js';

/** The findings bucket (FINDINGS_BUCKET), or a local directory for `driftwatch invoke`. */
export function findingsObjectStore(s3: S3Client): ObjectStore {
  return openStoreAt(findingsStoreLocation(), (bucket) => createS3ObjectStore(s3, bucket));
}

/**
 * The findings store of a scanning stage. Deployed (DRIFTWATCH_RECORDING=deferred, set by the stack)
 * a stage only leaves pending records for RecordFindings: its role may not write current/ or history,
 * because the code it runs (Terraform providers, modules) can reach its credentials. Locally
 * (`driftwatch invoke`, one trust domain) it records directly.
 */
export function scannerFindingsStore(
  objects: ObjectStore,
  env: NodeJS.ProcessEnv = process.env,
): FindingsStore {
  const mode = env.DRIFTWATCH_RECORDING;
  if (mode === 'deferred') return createDeferredFindingsStore(objects);
  if (mode === undefined || mode === '' || mode === 'direct') return createFindingsStore(objects);
  throw new ConfigurationError(`DRIFTWATCH_RECORDING takes deferred or direct, not ${mode}`);
}

export function handlerLogger(handler: string): Logger {
  return createLogger({ level: logLevelFrom(process.env.LOG_LEVEL), fields: { handler } });
}

/**
 * The salt of the hashes that stand in for sensitive values: `DRIFTWATCH_HASH_SALT` (local runs),
 * else the Secrets Manager secret `DRIFTWATCH_HASH_SALT_SECRET_ARN` names (deployed: read once at
 * cold start, so the salt never shows in the function's configuration). A missing salt fails the
 * cold start with the variables' names.
 */
export async function hashSaltFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  readSecret: (secretId: string) => Promise<string | undefined> = readSecretString,
): Promise<string> {
  if (env.DRIFTWATCH_HASH_SALT) return env.DRIFTWATCH_HASH_SALT;
  const secretId = env.DRIFTWATCH_HASH_SALT_SECRET_ARN;
  if (!secretId)
    throw new ConfigurationError(
      'environment variable DRIFTWATCH_HASH_SALT (or DRIFTWATCH_HASH_SALT_SECRET_ARN) is required',
    );
  const salt = await readSecret(secretId).catch((error: unknown) => {
    throw new ConfigurationError(
      `cannot read the hash salt secret ${secretId} (DRIFTWATCH_HASH_SALT_SECRET_ARN): ${(error as Error).name}`,
    );
  });
  if (!salt) throw new ConfigurationError(`the hash salt secret ${secretId} is empty`);
  return salt;
}

async function readSecretString(secretId: string): Promise<string | undefined> {
  const response = await new SecretsManagerClient(withHttpTimeouts()).send(
    new GetSecretValueCommand({ SecretId: secretId }),
  );
  return response.SecretString;
}
