import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { afterEach, describe, expect, it } from 'vitest';
import { createSecretValueResolver, SecretReadError } from '../../../functions/adapters/secret-reference.js';
import { newCore } from '../../helpers/canary-generator.js';

const secrets = mockClient(SecretsManagerClient);
const ARN = 'arn:aws:secretsmanager:eu-west-1:111111111111:secret:payments/db-AbCdEf';

afterEach(() => {
  secrets.reset();
});

function resolver(env: NodeJS.ProcessEnv = {}) {
  return createSecretValueResolver({ secretsManager: () => new SecretsManagerClient({}), env });
}

describe('sensitive variable values', () => {
  it('in AWS: the whole SecretString of the secret named by name or ARN (JSON is not unpacked)', async () => {
    secrets.on(GetSecretValueCommand, { SecretId: 'payments/db' }).resolves({ SecretString: 'by-name-0001' });
    secrets.on(GetSecretValueCommand, { SecretId: ARN }).resolves({ SecretString: '{"password":"x"}' });
    expect(await resolver()({ secretsManager: 'payments/db' })).toBe('by-name-0001');
    expect(await resolver()({ secretsManager: ARN })).toBe('{"password":"x"}');
  });

  it('locally: the named environment variable, as it is, without calling Secrets Manager', async () => {
    expect(await resolver({ DB_PASSWORD: ' spaced value ' })({ env: 'DB_PASSWORD' })).toBe(' spaced value ');
    expect(secrets).not.toHaveReceivedAnyCommand();
  });

  it('a secret that cannot be read names the reference and the error class, never a value', async () => {
    const core = newCore();
    secrets
      .on(GetSecretValueCommand)
      .rejects(Object.assign(new Error(`denied ${core}`), { name: 'AccessDeniedException' }));
    const denied = await resolver()({ secretsManager: 'payments/db' }).catch((error: unknown) => error);
    expect(denied).toBeInstanceOf(SecretReadError);
    expect((denied as Error).message).toBe(
      'cannot read secret payments/db from Secrets Manager: AccessDeniedException',
    );
    expect((denied as Error).message).not.toContain(core);

    secrets.on(GetSecretValueCommand).resolves({ SecretBinary: new Uint8Array([1]) });
    await expect(resolver()({ secretsManager: 'payments/db' })).rejects.toThrow(
      'secret payments/db has no SecretString',
    );
    await expect(resolver()({ env: 'DB_PASSWORD' })).rejects.toThrow(
      'the environment variable DB_PASSWORD is not set',
    );
  });
});
