import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SensitiveHasher } from '../core/redaction/secrets.js';
import type { ScanPorts } from '../core/scan/ports.js';
import { withHttpTimeouts } from './aws-http-timeouts.js';
import { createAwsWorkspaceAccess } from './aws-workspace.js';
import { createBundleDownloader } from './s3-bundle.js';
import { createSecretValueResolver } from './secret-reference.js';
import { createTerraformRunner, type TerraformRunnerOptions } from './terraform/runner.js';

/** The real ports of a workspace scan: STS and S3 for the workspace, Terraform for the plan. */
export function createScanPorts(options: {
  scanId: string;
  registryDir: string;
  hashSensitive: SensitiveHasher;
  runner?: Partial<TerraformRunnerOptions>;
  /** The caller's S3 client for source bundles (a handler's module client); else one is built. */
  s3?: S3Client;
}): ScanPorts {
  const access = createAwsWorkspaceAccess({ scanId: options.scanId });
  // Built on first use: most workspaces have no sensitive variables.
  let secretsManager: SecretsManagerClient | undefined;
  const runner = createTerraformRunner({
    hashSensitive: options.hashSensitive,
    registryDir: options.registryDir,
    downloadBundle: createBundleDownloader(options.s3 ?? new S3Client(withHttpTimeouts())),
    // Sensitive variables: Secrets Manager by name or ARN, or (locally) an environment variable.
    resolveSecret: createSecretValueResolver({
      secretsManager: () => (secretsManager ??= new SecretsManagerClient(withHttpTimeouts())),
    }),
    ...options.runner,
  });
  return {
    credentials: access.credentials,
    identity: access.identity,
    stateVersion: access.stateVersion,
    prepare: runner.prepare,
  };
}
