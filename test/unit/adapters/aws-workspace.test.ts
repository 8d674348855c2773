import { HeadObjectCommand, NotFound, S3Client } from '@aws-sdk/client-s3';
import { AssumeRoleCommand, GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { beforeEach, describe, expect, it } from 'vitest';
import { createAwsWorkspaceAccess, roleSessionName } from '../../../functions/adapters/aws-workspace.js';
import type { WorkspaceConfig } from '../../../functions/core/registry/model.js';

const sts = mockClient(STSClient);
const s3 = mockClient(S3Client);
beforeEach(() => {
  sts.reset();
  s3.reset();
});

const workspace: WorkspaceConfig = {
  id: 'payments-prod',
  owner: 'payments',
  environment: 'prod',
  source: { dir: 'infra' },
  backend: { bucket: 'tfstate', key: 'payments/terraform.tfstate', region: 'eu-west-1', workspace: 'blue' },
  roleArn: 'arn:aws:iam::111111111111:role/driftwatch-read',
  externalId: 'ext-123',
  routes: [],
  env: {},
  varFiles: [],
};

describe('AWS access for a workspace', () => {
  it('assumes the workspace role with a session name that names driftwatch and the scan, and the external id', async () => {
    sts.on(AssumeRoleCommand).resolves({
      Credentials: {
        AccessKeyId: 'ASIAEXAMPLE',
        SecretAccessKey: 'secret',
        SessionToken: 'token',
        Expiration: new Date(),
      },
    });
    const access = createAwsWorkspaceAccess({
      scanId: '20261129T020000Z-abc123',
      defaultSts: new STSClient({}),
    });
    const credentials = await access.credentials(workspace);
    expect(credentials).toMatchObject({
      accessKeyId: 'ASIAEXAMPLE',
      secretAccessKey: 'secret',
      sessionToken: 'token',
    });
    expect(sts).toHaveReceivedCommandWith(AssumeRoleCommand, {
      RoleArn: workspace.roleArn,
      RoleSessionName: 'driftwatch-20261129T020000Z-abc123',
      ExternalId: 'ext-123',
      DurationSeconds: 3600,
    });
  });

  it('shares a role session between workspaces of one role while a scan still fits in it', async () => {
    const issued = (id: string, minutesLeft: number) => ({
      Credentials: {
        AccessKeyId: id,
        SecretAccessKey: 'secret',
        SessionToken: 'token',
        Expiration: new Date(Date.now() + minutesLeft * 60_000),
      },
    });
    sts
      .on(AssumeRoleCommand)
      .resolvesOnce(issued('ASIAFIRST', 60))
      .resolvesOnce(issued('ASIAOTHERROLE', 60))
      .resolvesOnce(issued('ASIASHORT', 30))
      .resolvesOnce(issued('ASIAFRESH', 60));
    const access = createAwsWorkspaceAccess({ scanId: 's1', defaultSts: new STSClient({}) });
    const ids = async (entry: WorkspaceConfig) => (await access.credentials(entry))?.accessKeyId;
    expect(await ids(workspace)).toBe('ASIAFIRST');
    expect(await ids({ ...workspace, id: 'payments-staging' })).toBe('ASIAFIRST');
    const otherRole = { ...workspace, roleArn: 'arn:aws:iam::222222222222:role/driftwatch-read' };
    expect(await ids(otherRole)).toBe('ASIAOTHERROLE');
    expect(await ids({ ...workspace, externalId: 'ext-456' })).toBe('ASIASHORT');
    // 30 minutes left is too little for another workspace's init and plans: a new session.
    expect(await ids({ ...workspace, externalId: 'ext-456' })).toBe('ASIAFRESH');
    expect(sts).toHaveReceivedCommandTimes(AssumeRoleCommand, 4);
  });

  it("uses the scanner's own credentials when the workspace names no role", async () => {
    const access = createAwsWorkspaceAccess({ scanId: 's1', defaultSts: new STSClient({}) });
    expect(await access.credentials({ ...workspace, roleArn: undefined })).toBeUndefined();
    expect(sts).not.toHaveReceivedCommand(AssumeRoleCommand);
  });

  it('reports a failed identity preflight instead of throwing', async () => {
    sts.on(GetCallerIdentityCommand).rejects(new Error('ExpiredToken'));
    const access = createAwsWorkspaceAccess({ scanId: 's1' });
    expect(await access.identity(workspace, undefined)).toEqual({ ok: false, reason: 'ExpiredToken' });
  });

  it('reads the version of the state object of a non-default CLI workspace, and no object as undefined', async () => {
    s3.on(HeadObjectCommand, { Key: 'env:/blue/payments/terraform.tfstate' })
      .resolvesOnce({ VersionId: 'v1', ETag: '"e"', LastModified: new Date('2026-11-29T00:00:00Z') })
      .rejectsOnce(new NotFound({ message: 'missing', $metadata: {} }));
    const access = createAwsWorkspaceAccess({ scanId: 's1' });
    expect(await access.stateVersion(workspace, undefined)).toEqual({
      versionId: 'v1',
      etag: '"e"',
      lastModified: '2026-11-29T00:00:00.000Z',
    });
    expect(await access.stateVersion(workspace, undefined)).toBeUndefined();
  });

  it('keeps session names within what STS accepts', () => {
    expect(roleSessionName('scan id/with:odd*chars')).toBe('driftwatch-scan-id-with-odd-chars');
    expect(roleSessionName('x'.repeat(100))).toHaveLength(64);
  });
});
