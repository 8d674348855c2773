import { Readable } from 'node:stream';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { createTerraformStateReader, MAX_STATE_BYTES } from '../../../functions/adapters/terraform-state.js';
import { backendRegistry, s3ServiceError } from '../../helpers/backend.js';

const s3Mock = mockClient(S3Client);
beforeEach(() => s3Mock.reset());

const [workspace] = backendRegistry(
  '  - { id: apps-prod, owner: platform, environment: prod, source: { dir: a }, backend: { bucket: tfstate, key: apps/terraform.tfstate, region: eu-west-1 } }',
).workspaces;
const readState = createTerraformStateReader({
  credentials: async () => undefined,
  s3: () => new S3Client({ region: 'eu-west-1' }),
});
const failureOf = (promise: Promise<unknown>) =>
  promise.then(() => undefined).catch((error: Error) => error.message);

describe('the Terraform state reader of cluster scans', () => {
  it('refuses a state larger than it parses by its length, its body left unread', async () => {
    const body = Readable.from(['{"version":4']);
    s3Mock.on(GetObjectCommand).resolves({ Body: body as never, ContentLength: MAX_STATE_BYTES + 1 });
    expect(await failureOf(readState(workspace!))).toMatch(
      /^s3:\/\/tfstate\/apps\/terraform\.tfstate is 256 MiB, more than the 256 MiB driftwatch parses/,
    );
    expect(body.destroyed).toBe(true);
  });

  it('a state whose SSE-KMS key the role may not use names the key, never a bare error name', async () => {
    const arn = 'arn:aws:kms:eu-west-1:111111111111:key/0b5e1f0e-1111-4222-8333-444455556666';
    s3Mock
      .on(GetObjectCommand)
      .rejects(
        Object.assign(s3ServiceError('KMS.DisabledException', 400), { message: `${arn} is disabled.` }),
      );
    expect(await failureOf(readState(workspace!))).toMatch(
      new RegExp(
        `^cannot read s3://tfstate/apps/terraform\\.tfstate: the KMS key of the state is disabled .*enable-key --key-id ${arn}`,
      ),
    );
  });

  it('empty, gzip and not-JSON states say what is wrong, never their content', async () => {
    for (const [text, reason] of [
      ['', 'is empty'],
      ['\u001f\u008b\b\u0000secret', 'is gzip-compressed'],
      ['password=hunter2', 'is not JSON'],
    ] as const) {
      // The SDK's body mixin decodes the bytes as UTF-8.
      const bytes = Buffer.from(text, 'latin1');
      s3Mock.on(GetObjectCommand).resolves({
        Body: { transformToString: async () => bytes.toString('utf8') } as never,
        ContentLength: bytes.length,
      });
      const message = await failureOf(readState(workspace!));
      expect(message).toContain(`s3://tfstate/apps/terraform.tfstate ${reason}`);
      expect(message).not.toMatch(/hunter2|secret/);
    }
  });
});
