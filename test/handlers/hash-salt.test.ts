import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { hashSaltFromEnv } from '../../functions/handlers/common.js';
import { ConfigurationError } from '../../functions/handlers/env.js';

const secrets = mockClient(SecretsManagerClient);
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:111111111111:secret:driftwatch-salt-AbCdEf';

afterEach(() => {
  secrets.reset();
  vi.unstubAllEnvs();
  vi.resetModules();
});

describe('hashSaltFromEnv', () => {
  it('takes DRIFTWATCH_HASH_SALT as it is (local runs) without calling Secrets Manager', async () => {
    const salt = await hashSaltFromEnv({
      DRIFTWATCH_HASH_SALT: 'local-salt',
      DRIFTWATCH_HASH_SALT_SECRET_ARN: SECRET_ARN,
    });
    expect(salt).toBe('local-salt');
    expect(secrets).not.toHaveReceivedAnyCommand();
  });

  it('reads the secret DRIFTWATCH_HASH_SALT_SECRET_ARN names (deployed)', async () => {
    secrets
      .on(GetSecretValueCommand, { SecretId: SECRET_ARN })
      .resolves({ SecretString: 'deployed-salt-0000000001' });
    expect(await hashSaltFromEnv({ DRIFTWATCH_HASH_SALT_SECRET_ARN: SECRET_ARN })).toBe(
      'deployed-salt-0000000001',
    );
    expect(secrets).toHaveReceivedCommandTimes(GetSecretValueCommand, 1);
  });

  it('fails naming both variables when neither is set', async () => {
    await expect(hashSaltFromEnv({})).rejects.toThrow(
      new ConfigurationError(
        'environment variable DRIFTWATCH_HASH_SALT (or DRIFTWATCH_HASH_SALT_SECRET_ARN) is required',
      ),
    );
  });

  it('fails naming the secret (never a value) when it cannot be read or is empty', async () => {
    secrets
      .on(GetSecretValueCommand)
      .rejects(Object.assign(new Error('denied'), { name: 'AccessDeniedException' }));
    await expect(hashSaltFromEnv({ DRIFTWATCH_HASH_SALT_SECRET_ARN: SECRET_ARN })).rejects.toThrow(
      `cannot read the hash salt secret ${SECRET_ARN} (DRIFTWATCH_HASH_SALT_SECRET_ARN): AccessDeniedException`,
    );
    secrets.reset();
    secrets.on(GetSecretValueCommand).resolves({ SecretString: '' });
    await expect(hashSaltFromEnv({ DRIFTWATCH_HASH_SALT_SECRET_ARN: SECRET_ARN })).rejects.toThrow(
      /is empty/,
    );
  });

  it('lets the scan-terraform handler start with the salt from Secrets Manager only', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: 'deployed-salt-0000000001' });
    vi.stubEnv('FINDINGS_BUCKET', 'findings');
    vi.stubEnv('DRIFTWATCH_HASH_SALT', '');
    vi.stubEnv('DRIFTWATCH_HASH_SALT_SECRET_ARN', SECRET_ARN);
    const { handler } = await import('../../functions/handlers/scan-terraform.js');
    expect(typeof handler).toBe('function');
    expect(secrets).toHaveReceivedCommandWith(GetSecretValueCommand, { SecretId: SECRET_ARN });
  });
});
