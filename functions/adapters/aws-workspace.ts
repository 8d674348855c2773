import { HeadObjectCommand, NotFound, S3Client } from '@aws-sdk/client-s3';
import { AssumeRoleCommand, GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import type { WorkspaceConfig } from '../core/registry/model.js';
import { stateObjectKey } from '../core/registry/state-key.js';
import type { IdentityCheck, StateVersion, WorkspaceCredentials } from '../core/scan/ports.js';
import { withHttpTimeouts } from './aws-http-timeouts.js';

let sharedSts: STSClient | undefined;

/** The scanner's own STS client: one per process (a warm Lambda keeps its connections). */
function scannerSts(): STSClient {
  sharedSts ??= new STSClient(withHttpTimeouts());
  return sharedSts;
}

/** Role sessions last an hour; one is reused only while a workspace's init and plans still fit in it. */
const SESSION_SECONDS = 3600;
const REUSE_WHILE_VALID_MS = 45 * 60_000;

/**
 * AWS access for one workspace: assume its read-only role, check who we are, and read the state
 * object's version. Clients are cached per region and credentials, never built per call; role
 * sessions are shared by the workspaces of one role while they have enough time left.
 */
export function createAwsWorkspaceAccess(options: { scanId: string; defaultSts?: STSClient }) {
  const defaultSts = options.defaultSts ?? scannerSts();
  const clients = new Map<string, S3Client | STSClient>();
  const sessions = new Map<string, Promise<WorkspaceCredentials>>();

  function client<T extends S3Client | STSClient>(
    kind: 's3' | 'sts',
    region: string,
    credentials: WorkspaceCredentials | undefined,
  ): T {
    const cacheKey = `${kind}|${region}|${credentials?.accessKeyId ?? 'default'}`;
    let cached = clients.get(cacheKey);
    if (!cached) {
      const config = withHttpTimeouts({ region, ...(credentials ? { credentials } : {}) });
      cached = kind === 's3' ? new S3Client(config) : new STSClient(config);
      clients.set(cacheKey, cached);
    }
    return cached as T;
  }

  return {
    async credentials(workspace: WorkspaceConfig): Promise<WorkspaceCredentials | undefined> {
      const { roleArn, externalId } = workspace;
      if (!roleArn) return undefined;
      const sessionKey = `${roleArn}|${externalId ?? ''}`;
      const held = await sessions.get(sessionKey)?.catch(() => undefined);
      const left = held?.expiration ? held.expiration.getTime() - Date.now() : 0;
      if (held && left > REUSE_WHILE_VALID_MS) return held;
      const session = assumeRole(defaultSts, {
        roleArn,
        externalId,
        scanId: options.scanId,
        durationSeconds: SESSION_SECONDS,
      });
      sessions.set(sessionKey, session);
      return session;
    },

    /** An S3 client in a region with these credentials (or the default chain), built once. */
    s3(region: string, credentials: WorkspaceCredentials | undefined): S3Client {
      return client<S3Client>('s3', region, credentials);
    },

    async identity(
      workspace: WorkspaceConfig,
      credentials: WorkspaceCredentials | undefined,
    ): Promise<IdentityCheck> {
      try {
        const sts = client<STSClient>('sts', workspace.backend.region, credentials);
        const response = await sts.send(new GetCallerIdentityCommand({}));
        return { ok: true, account: response.Account ?? '', arn: response.Arn ?? '' };
      } catch (error) {
        return { ok: false, reason: (error as Error).message };
      }
    },

    async stateVersion(
      workspace: WorkspaceConfig,
      credentials: WorkspaceCredentials | undefined,
    ): Promise<StateVersion | undefined> {
      const s3 = client<S3Client>('s3', workspace.backend.region, credentials);
      try {
        const head = await s3.send(
          new HeadObjectCommand({ Bucket: workspace.backend.bucket, Key: stateObjectKey(workspace) }),
        );
        return { versionId: head.VersionId, etag: head.ETag, lastModified: head.LastModified?.toISOString() };
      } catch (error) {
        if (error instanceof NotFound || (error as { name?: string }).name === 'NotFound') return undefined;
        throw error;
      }
    },
  };
}

/**
 * Temporary credentials of a read-only role, with a session name that shows driftwatch and the scan
 * in the target account's CloudTrail.
 */
export async function assumeRole(
  sts: STSClient,
  role: { roleArn: string; externalId?: string; scanId: string; durationSeconds: number },
): Promise<WorkspaceCredentials> {
  const response = await sts.send(
    new AssumeRoleCommand({
      RoleArn: role.roleArn,
      RoleSessionName: roleSessionName(role.scanId),
      ExternalId: role.externalId,
      DurationSeconds: role.durationSeconds,
    }),
  );
  const issued = response.Credentials;
  if (!issued?.AccessKeyId || !issued.SecretAccessKey) throw new Error('STS returned no credentials');
  return {
    accessKeyId: issued.AccessKeyId,
    secretAccessKey: issued.SecretAccessKey,
    sessionToken: issued.SessionToken,
    expiration: issued.Expiration,
  };
}

/** STS allows 2–64 characters of [\w+=,.@-]; the session name shows up in the target account's CloudTrail. */
export function roleSessionName(scanId: string): string {
  return `driftwatch-${scanId}`.replace(/[^\w+=,.@-]/g, '-').slice(0, 64);
}
