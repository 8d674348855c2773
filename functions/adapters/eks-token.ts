import { STSClient } from '@aws-sdk/client-sts';
import { SignatureV4 } from '@smithy/signature-v4';
import type { EksAccess } from '../core/registry/model.js';
import { withHttpTimeouts } from './aws-http-timeouts.js';
import { assumeRole } from './aws-workspace.js';
import { NodeSha256 } from './node-sha256.js';

/**
 * EKS bearer tokens, as `aws eks get-token` makes them: a presigned STS GetCallerIdentity URL whose
 * signature covers the `x-k8s-aws-id` header (the cluster name, so a token for one cluster is
 * useless for another), base64url-encoded without padding behind `k8s-aws-v1.`. EKS accepts a token
 * for 15 minutes after it was signed; driftwatch reuses one for less than 14.
 */

export const EKS_TOKEN_PREFIX = 'k8s-aws-v1.';
/** How long a token is reused: under the 14 minutes `aws eks get-token` promises, with a margin. */
export const EKS_TOKEN_REUSE_MS = 13 * 60_000;
/** How long the presigned URL itself is valid (as aws-iam-authenticator signs it). */
const PRESIGN_EXPIRES_SECONDS = 60;

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface EksTokenProviderOptions {
  /** Credentials for a cluster access (default: the SDK chain, or the access's role when it names one). */
  credentials?: (access: Pick<EksAccess, 'region' | 'roleArn' | 'externalId'>) => Promise<AwsCredentials>;
  now?: () => Date;
  /** For the role session name in CloudTrail (`driftwatch-<scanId>`). */
  scanId?: string;
}

export function createEksTokenProvider(options: EksTokenProviderOptions = {}) {
  const now = options.now ?? (() => new Date());
  const credentials = options.credentials ?? defaultCredentials(options.scanId ?? 'scan-cluster');
  const cache = new Map<string, { token: string; reuseUntil: number }>();

  return async (
    access: Pick<EksAccess, 'cluster' | 'region' | 'roleArn' | 'externalId'>,
  ): Promise<string> => {
    const key = `${access.cluster}|${access.region}|${access.roleArn ?? ''}`;
    const at = now();
    const cached = cache.get(key);
    if (cached && at.getTime() < cached.reuseUntil) return cached.token;
    const token = await presignEksToken(access, await credentials(access), at);
    cache.set(key, { token, reuseUntil: at.getTime() + EKS_TOKEN_REUSE_MS });
    return token;
  };
}

export async function presignEksToken(
  access: Pick<EksAccess, 'cluster' | 'region'>,
  credentials: AwsCredentials,
  signingDate: Date,
): Promise<string> {
  const hostname = stsHostname(access.region);
  const signer = new SignatureV4({
    credentials,
    region: access.region,
    service: 'sts',
    sha256: NodeSha256,
  });
  const signed = await signer.presign(
    {
      method: 'GET',
      protocol: 'https:',
      hostname,
      path: '/',
      query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
      headers: { host: hostname, 'x-k8s-aws-id': access.cluster },
    },
    {
      expiresIn: PRESIGN_EXPIRES_SECONDS,
      signingDate,
      // The cluster name must stay a signed header, not move into the query string.
      unhoistableHeaders: new Set(['x-k8s-aws-id']),
    },
  );
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(signed.query ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) if (item !== null) query.append(name, item);
  }
  const url = `https://${hostname}/?${query.toString()}`;
  return `${EKS_TOKEN_PREFIX}${Buffer.from(url, 'utf8').toString('base64url')}`;
}

/** The regional STS endpoint EKS expects in the token (China regions have their own domain). */
export function stsHostname(region: string): string {
  return `sts.${region}.amazonaws.com${region.startsWith('cn-') ? '.cn' : ''}`;
}

/** The SDK chain's credentials, or the access's role assumed with them; one STS client per region. */
function defaultCredentials(scanId: string) {
  const clients = new Map<string, STSClient>();
  return async (access: Pick<EksAccess, 'region' | 'roleArn' | 'externalId'>): Promise<AwsCredentials> => {
    let sts = clients.get(access.region);
    if (!sts) {
      sts = new STSClient(withHttpTimeouts({ region: access.region }));
      clients.set(access.region, sts);
    }
    if (!access.roleArn) return sts.config.credentials();
    const { accessKeyId, secretAccessKey, sessionToken } = await assumeRole(sts, {
      roleArn: access.roleArn,
      externalId: access.externalId,
      scanId,
      durationSeconds: 900,
    });
    return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
  };
}
