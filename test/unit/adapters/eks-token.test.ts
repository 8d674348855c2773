import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createEksTokenProvider,
  EKS_TOKEN_PREFIX,
  presignEksToken,
} from '../../../functions/adapters/eks-token.js';

const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};
const signingDate = new Date('2026-11-29T02:00:00Z');

function decode(token: string): URL {
  expect(token.startsWith(EKS_TOKEN_PREFIX)).toBe(true);
  const encoded = token.slice(EKS_TOKEN_PREFIX.length);
  // base64url without padding, as aws-iam-authenticator expects.
  expect(encoded).toMatch(/^[A-Za-z0-9_-]+$/);
  return new URL(Buffer.from(encoded, 'base64url').toString('utf8'));
}

/** SigV4 recomputed independently, with the x-k8s-aws-id header the API server will send to STS. */
function expectedSignature(url: URL, cluster: string): string {
  const query = [...url.searchParams.entries()]
    .filter(([name]) => name !== 'X-Amz-Signature')
    .map(([name, value]) => [encodeURIComponent(name), encodeURIComponent(value)] as const)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const canonical = [
    'GET',
    '/',
    query,
    `host:${url.hostname}`,
    `x-k8s-aws-id:${cluster}`,
    '',
    'host;x-k8s-aws-id',
    createHash('sha256').update('').digest('hex'),
  ].join('\n');
  const amzDate = url.searchParams.get('X-Amz-Date')!;
  const scope = `${amzDate.slice(0, 8)}/eu-west-1/sts/aws4_request`;
  const toSign = [
    'AWS4-HMAC-SHA256',
    amzDate,
    scope,
    createHash('sha256').update(canonical).digest('hex'),
  ].join('\n');
  let key: Buffer = createHmac('sha256', `AWS4${credentials.secretAccessKey}`)
    .update(amzDate.slice(0, 8))
    .digest();
  for (const part of ['eu-west-1', 'sts', 'aws4_request'])
    key = createHmac('sha256', key).update(part).digest();
  return createHmac('sha256', key).update(toSign).digest('hex');
}

describe('EKS token', () => {
  it('is a presigned GetCallerIdentity URL whose signature covers the cluster header', async () => {
    const token = await presignEksToken({ cluster: 'shop', region: 'eu-west-1' }, credentials, signingDate);
    const url = decode(token);
    expect(url.origin).toBe('https://sts.eu-west-1.amazonaws.com');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      Action: 'GetCallerIdentity',
      Version: '2011-06-15',
      'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
      'X-Amz-Credential': 'AKIDEXAMPLE/20261129/eu-west-1/sts/aws4_request',
      'X-Amz-Date': '20261129T020000Z',
      'X-Amz-Expires': '60',
      'X-Amz-SignedHeaders': 'host;x-k8s-aws-id',
    });
    // The cluster name is signed as a header, never moved into the query.
    expect(url.searchParams.has('x-k8s-aws-id')).toBe(false);
    expect(url.searchParams.get('X-Amz-Signature')).toBe(expectedSignature(url, 'shop'));
    // A token for another cluster is a different signature.
    expect(url.searchParams.get('X-Amz-Signature')).not.toBe(expectedSignature(url, 'other'));
  });

  it('carries the session token of temporary credentials', async () => {
    const token = await presignEksToken(
      { cluster: 'shop', region: 'eu-west-1' },
      { ...credentials, sessionToken: 'FQoGZXIvYXdzEXAMPLE' },
      signingDate,
    );
    expect(decode(token).searchParams.get('X-Amz-Security-Token')).toBe('FQoGZXIvYXdzEXAMPLE');
  });

  it('is reused for less than 14 minutes, then signed again', async () => {
    let now = signingDate.getTime();
    let signed = 0;
    const provider = createEksTokenProvider({
      now: () => new Date(now),
      credentials: async () => {
        signed++;
        return credentials;
      },
    });
    const access = { cluster: 'shop', region: 'eu-west-1' };
    const first = await provider(access);
    now += 12 * 60_000;
    expect(await provider(access)).toBe(first);
    now += 2 * 60_000;
    const renewed = await provider(access);
    expect(renewed).not.toBe(first);
    expect(signed).toBe(2);
    expect(decode(renewed).searchParams.get('X-Amz-Date')).toBe('20261129T021400Z');
  });
});
