import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ClusterSourceError } from '../core/gitops/ports.js';
import type { SecretReference } from '../core/registry/model.js';

/**
 * Resolves a registry secret reference (an Argo CD token) to its value: Secrets Manager in AWS, an
 * environment variable locally. The value is returned to the one client that needs it and is never
 * logged; errors name the reference, not the value.
 */
export function createSecretResolver(options: {
  secretsManager: () => SecretsManagerClient;
  env?: NodeJS.ProcessEnv;
}) {
  const readValue = createSecretValueResolver(options);
  return async (reference: SecretReference): Promise<string> => {
    let value: string;
    try {
      value = await readValue(reference);
    } catch (error) {
      if (!(error instanceof SecretReadError)) throw error;
      throw new ClusterSourceError('configuration', `${error.message} (the API token)`, { cause: error });
    }
    const token = 'env' in reference ? value.trim() : tokenFromSecret(value);
    if (!token)
      throw new ClusterSourceError(
        'configuration',
        'env' in reference
          ? `the environment variable ${reference.env} (the API token) is blank`
          : `secret ${reference.secretsManager} holds no token (a string, or JSON with "token")`,
      );
    return token;
  };
}

/** A secret is the token itself, or JSON with a `token` key (how teams often store several values). */
function tokenFromSecret(secret: string): string | undefined {
  const trimmed = secret.trim();
  if (trimmed.startsWith('{')) {
    try {
      const parsed = JSON.parse(trimmed) as { token?: unknown };
      // Trimmed as a plain secret is: `"token": "…\n"` is a token pasted with its newline.
      return typeof parsed.token === 'string' ? parsed.token.trim() || undefined : undefined;
    } catch {
      return undefined;
    }
  }
  return trimmed || undefined;
}

/** A secret that could not be read; the message names the reference, never a value. */
export class SecretReadError extends Error {
  override name = 'SecretReadError';
}

/**
 * Resolves a secret reference to the secret's whole value (a sensitive Terraform variable): the
 * SecretString of a Secrets Manager secret in AWS, an environment variable locally. Never logged.
 */
export function createSecretValueResolver(options: {
  secretsManager: () => SecretsManagerClient;
  env?: NodeJS.ProcessEnv;
}) {
  const env = options.env ?? process.env;
  return async (reference: SecretReference): Promise<string> => {
    if ('env' in reference) {
      const value = env[reference.env];
      if (value === undefined || value === '')
        throw new SecretReadError(`the environment variable ${reference.env} is not set`);
      return value;
    }
    let value: string | undefined;
    try {
      const response = await options
        .secretsManager()
        .send(new GetSecretValueCommand({ SecretId: reference.secretsManager }));
      value = response.SecretString;
    } catch (error) {
      throw new SecretReadError(
        `cannot read secret ${reference.secretsManager} from Secrets Manager: ${(error as Error).name}`,
        { cause: error },
      );
    }
    if (value === undefined || value === '')
      throw new SecretReadError(`secret ${reference.secretsManager} has no SecretString`);
    return value;
  };
}
