import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createSecretResolver,
  createSecretValueResolver,
  SecretReadError,
} from '../../../functions/adapters/secret-reference.js';
import { ClusterSourceError } from '../../../functions/core/gitops/ports.js';
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

describe('API tokens (Argo CD), read through the same resolver', () => {
  const tokens = (env: NodeJS.ProcessEnv = {}) =>
    createSecretResolver({ secretsManager: () => new SecretsManagerClient({}), env });

  it('take the trimmed variable, the secret string, or the token of a JSON secret', async () => {
    secrets.on(GetSecretValueCommand, { SecretId: 'argocd/plain' }).resolves({ SecretString: ' tok-1 \n' });
    secrets
      .on(GetSecretValueCommand, { SecretId: 'argocd/json' })
      .resolves({ SecretString: '{"token":"tok-2"}' });
    expect(await tokens({ ARGOCD_TOKEN: ' tok-0\n' })({ env: 'ARGOCD_TOKEN' })).toBe('tok-0');
    expect(await tokens()({ secretsManager: 'argocd/plain' })).toBe('tok-1');
    expect(await tokens()({ secretsManager: 'argocd/json' })).toBe('tok-2');
  });

  it('trim the token of a JSON secret as they trim a plain one (pasted with its newline)', async () => {
    secrets
      .on(GetSecretValueCommand, { SecretId: 'argocd/json-newline' })
      .resolves({ SecretString: '{"token":"tok-3\\n"}' });
    expect(await tokens()({ secretsManager: 'argocd/json-newline' })).toBe('tok-3');
  });

  it('fail as a configuration problem of the cluster, naming the reference', async () => {
    secrets
      .on(GetSecretValueCommand, { SecretId: 'argocd/other' })
      .resolves({ SecretString: '{"user":"x"}' });
    const missing = await tokens()({ env: 'ARGOCD_TOKEN' }).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(ClusterSourceError);
    expect((missing as Error).message).toBe(
      'the environment variable ARGOCD_TOKEN is not set (the API token)',
    );
    await expect(tokens()({ secretsManager: 'argocd/other' })).rejects.toThrow(
      'secret argocd/other holds no token (a string, or JSON with "token")',
    );
  });
});
