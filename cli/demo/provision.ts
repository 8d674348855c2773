import { cp } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import {
  CreateBucketCommand,
  PutBucketEncryptionCommand,
  PutBucketLifecycleConfigurationCommand,
  PutBucketOwnershipControlsCommand,
  PutBucketVersioningCommand,
  PutPublicAccessBlockCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { Logger } from '../../functions/adapters/logger.js';
import {
  defaultPluginCacheDir,
  terraformEnvironment,
} from '../../functions/adapters/terraform/cli-config.js';
import { temporaryDirectory } from '../../functions/adapters/terraform/interrupt-cleanup.js';
import { withPluginCacheLock } from '../../functions/adapters/terraform/plugin-cache-lock.js';
import { detachProvidersFromCache } from '../../functions/adapters/terraform/provider-links.js';
import { runProcess } from '../../functions/adapters/terraform/run-process.js';
import { redactText } from '../../functions/core/redaction/secrets.js';
import { summarizeTerraformErrors } from '../../functions/core/redaction/terraform-diagnostics.js';
import { stripForTerminal } from '../../functions/core/text/sanitize.js';

/**
 * Demo and test staging only: driftwatch itself never applies. This stands in for a team's
 * pipeline, creating the infrastructure that the scanner then watches.
 */
export interface StagedWorkspace {
  dir: string;
  env: NodeJS.ProcessEnv;
  /** Runs a terraform command in the staged copy; throws with Terraform's (redacted) errors. */
  terraform(args: string[], options?: { timeoutMs?: number }): Promise<void>;
  dispose(): Promise<void>;
}

export interface StageOptions {
  /** Terraform root to copy (the copy keeps .terraform and lock files out of the repository). */
  source: string;
  backend: { bucket: string; key: string; region: string };
  env?: Record<string, string>;
  baseEnv?: NodeJS.ProcessEnv;
  /** Hears the plugin cache lock's waits and take-overs (default: JSON lines on stderr). */
  logger?: Logger;
}

export async function stageWorkspace(options: StageOptions): Promise<StagedWorkspace> {
  const baseEnv = options.baseEnv ?? process.env;
  // Removed on Ctrl-C too (main.ts cleans up interrupted runs): it holds a copy of the root and its
  // Terraform data directory.
  const root = temporaryDirectory(`driftwatch-stage-${basename(options.source)}-`);
  const dir = join(root.path, 'workspace');
  const pluginCache = defaultPluginCacheDir(baseEnv);
  let env: NodeJS.ProcessEnv = {};
  const terraform = async (args: string[], runOptions: { timeoutMs?: number } = {}) => {
    const result = await runProcess('terraform', [...args, '-no-color'], {
      cwd: dir,
      env,
      timeoutMs: runOptions.timeoutMs ?? 10 * 60_000,
    });
    if (result.exitCode !== 0) {
      throw new Error(
        `terraform ${args[0]} in ${basename(options.source)} failed: ${summarizeTerraformErrors(result.stderr) ?? result.exitCode}`,
      );
    }
  };
  const { bucket, key, region } = options.backend;
  try {
    await cp(options.source, dir, {
      recursive: true,
      filter: (path) => !/\.terraform|tfstate/.test(basename(path)),
    });
    env = await terraformEnvironment({
      baseEnv,
      workDir: root.path,
      pluginCacheDir: pluginCache,
      extra: options.env,
    });
    await withPluginCacheLock(
      pluginCache,
      async () => {
        await terraform([
          'init',
          '-input=false',
          `-backend-config=bucket=${bucket}`,
          `-backend-config=key=${key}`,
          `-backend-config=region=${region}`,
        ]);
        // Applies run beside the other workspaces' inits, which may replace the cache entries.
        if (env.TF_DATA_DIR) await detachProvidersFromCache(env.TF_DATA_DIR, pluginCache);
      },
      { logger: options.logger },
    );
  } catch (error) {
    // A staging that failed (the copy, init) leaves nothing behind either.
    await root.remove();
    throw error;
  }
  return { dir, env, terraform, dispose: root.remove };
}

/**
 * The demo's status lines for what provisioning waits on, one readable line each through `print`:
 * `waiting for the plugin cache lock (…), held by another workspace of this demo (pid 4242)`
 * instead of a JSON log line. The holder comes from the lock file, so the line is redacted and made
 * inert for the terminal like every log line. Debug lines are dropped.
 */
export function provisioningStatus(print: (line: string) => void): Logger {
  const say = (message: string, data: Record<string, unknown> = {}) => {
    const pid = typeof data.holderPid === 'number' ? data.holderPid : undefined;
    const host = typeof data.holderHost === 'string' ? data.holderHost : undefined;
    const holder =
      pid === undefined
        ? ''
        : pid === process.pid && (host === undefined || host === hostname())
          ? `, held by another workspace of this demo (pid ${pid})`
          : `, held by pid ${pid}${host && host !== hostname() ? ` on ${host}` : ''}`;
    const reason = typeof data.reason === 'string' ? ` (${data.reason})` : '';
    print(stripForTerminal(redactText(`${message}${holder}${reason}`)));
  };
  const logger: Logger = {
    debug: () => {},
    info: say,
    warn: say,
    error: say,
    child: () => logger,
  };
  return logger;
}

/** The state bucket the estate's S3 backends use: versioned, as every state bucket should be. */
export async function createStateBucket(s3: S3Client, bucket: string, region: string): Promise<void> {
  await s3.send(
    new CreateBucketCommand({
      Bucket: bucket,
      CreateBucketConfiguration: { LocationConstraint: region as never },
    }),
  );
  await s3.send(
    new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }),
  );
}

/**
 * What a careful platform team sets on a state bucket besides versioning: default encryption, all
 * four public-access-block settings, ACLs disabled, and expiry of the versions every lock and plan
 * leaves behind. (Not the TLS-only policy: moto denies object reads under any policy Condition.)
 */
export async function hardenStateBucketExceptTls(s3: S3Client, bucket: string): Promise<void> {
  await s3.send(
    new PutBucketEncryptionCommand({
      Bucket: bucket,
      ServerSideEncryptionConfiguration: {
        Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
    }),
  );
  await s3.send(
    new PutPublicAccessBlockCommand({
      Bucket: bucket,
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        IgnorePublicAcls: true,
        BlockPublicPolicy: true,
        RestrictPublicBuckets: true,
      },
    }),
  );
  await s3.send(
    new PutBucketOwnershipControlsCommand({
      Bucket: bucket,
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
    }),
  );
  await s3.send(
    new PutBucketLifecycleConfigurationCommand({
      Bucket: bucket,
      LifecycleConfiguration: {
        Rules: [
          {
            ID: 'noncurrent-state-versions',
            Status: 'Enabled',
            Filter: { Prefix: '' },
            NoncurrentVersionExpiration: { NoncurrentDays: 90 },
          },
        ],
      },
    }),
  );
}
