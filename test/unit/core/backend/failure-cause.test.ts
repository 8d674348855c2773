import { describe, expect, it } from 'vitest';
import { classifyReadFailure, notChecked } from '../../../../functions/core/backend/failure-cause.js';
import type { ReadFailure } from '../../../../functions/core/backend/ports.js';

const listing = (fields: Partial<ReadFailure>): ReadFailure => ({
  resource: 's3://tfstate/',
  action: 's3:ListBucket',
  code: 'Error',
  message: 'no message',
  ...fields,
});

describe('classifyReadFailure', () => {
  it('an endpoint that does not answer: the network cause and where the request went', () => {
    expect(
      classifyReadFailure(
        listing({
          code: 'ECONNREFUSED',
          errorName: 'Error',
          endpoint: 'http://127.0.0.1:1',
          message: 'connect ECONNREFUSED 127.0.0.1:1',
        }),
      ),
    ).toEqual({
      kind: 'unreachable',
      summary: 'connection refused to http://127.0.0.1:1',
      advice: expect.stringMatching(
        /^Check where the SDK sends requests \(http:\/\/127\.0\.0\.1:1\): .*AWS_ENDPOINT_URL/,
      ),
    });
    expect(
      classifyReadFailure(listing({ code: 'ENOTFOUND', endpoint: 'tfstate.s3.example.invalid' })).summary,
    ).toBe('cannot resolve the host of tfstate.s3.example.invalid (ENOTFOUND)');
    expect(classifyReadFailure(listing({ code: 'Error', errorName: 'TimeoutError' })).summary).toBe(
      'no answer from the AWS endpoint (timeout)',
    );
    expect(classifyReadFailure(listing({ code: 'EHOSTUNREACH', endpoint: '10.0.0.1:443' })).summary).toBe(
      'cannot connect to 10.0.0.1:443 (EHOSTUNREACH)',
    );
  });

  it('credentials: none found, or found and rejected, each with its own fix', () => {
    const none = classifyReadFailure(
      listing({ code: 'CredentialsProviderError', errorName: 'CredentialsProviderError' }),
    );
    expect(none.kind).toBe('no-credentials');
    expect(none.advice).toMatch(/AWS_PROFILE/);
    const rejected = classifyReadFailure(
      listing({ code: 'InvalidAccessKeyId', errorName: 'InvalidAccessKeyId' }),
    );
    expect(rejected).toMatchObject({
      kind: 'rejected-credentials',
      summary: 'credentials rejected (InvalidAccessKeyId)',
    });
    expect(rejected.advice).toMatch(/sts get-caller-identity/);
  });

  it('region: missing, or wrong with the region S3 named (or without one)', () => {
    expect(classifyReadFailure(listing({ code: 'Error', message: 'Region is missing' }))).toMatchObject({
      kind: 'no-region',
      advice: expect.stringMatching(/--region, or AWS_REGION/),
    });
    const named = classifyReadFailure(listing({ code: 'PermanentRedirect', bucketRegion: 'eu-central-1' }));
    expect(named).toEqual({
      kind: 'wrong-region',
      summary: 'the bucket is in eu-central-1, not the region configured (PermanentRedirect)',
      advice:
        "Set the bucket's region: backend.region: eu-central-1 in the registry, or --region eu-central-1.",
    });
    expect(classifyReadFailure(listing({ code: 'AuthorizationHeaderMalformed' })).summary).toBe(
      'the bucket is in another region than the one configured (AuthorizationHeaderMalformed)',
    );
    // A bare 400 is a region error only when S3 named the bucket's region with it.
    expect(classifyReadFailure(listing({ code: 'BadRequest', bucketRegion: 'us-west-2' })).kind).toBe(
      'wrong-region',
    );
    expect(classifyReadFailure(listing({ code: 'BadRequest' })).kind).toBe('other');
  });

  it('access denied names the action and the ARN to grant it on (bucket-level or object-level)', () => {
    expect(
      classifyReadFailure(
        listing({ code: 'AccessDenied', resource: 's3://tfstate', action: 's3:GetBucketPolicy' }),
      ),
    ).toEqual({
      kind: 'access-denied',
      summary: 'AccessDenied on s3:GetBucketPolicy',
      advice: expect.stringMatching(
        /^Allow s3:GetBucketPolicy on arn:aws:s3:::tfstate to the role driftwatch reads with/,
      ),
    });
    const object = classifyReadFailure(
      listing({
        code: 'AccessDenied',
        resource: 's3://tfstate/pay/terraform.tfstate',
        action: 's3:GetObjectVersion',
      }),
    );
    expect(object.advice).toMatch(
      /^Allow s3:GetObjectVersion on arn:aws:s3:::tfstate\/pay\/terraform\.tfstate /,
    );
    const listed = classifyReadFailure(listing({ code: 'AccessDenied', resource: 's3://tfstate/pay/' }));
    expect(listed.advice).toMatch(/^Allow s3:ListBucket on arn:aws:s3:::tfstate to/);
    const table = classifyReadFailure(
      listing({ code: 'AccessDeniedException', resource: 'dynamodb:tf-locks', action: 'dynamodb:Scan' }),
    );
    expect(table.advice).toMatch(/^Allow dynamodb:Scan on the DynamoDB table tf-locks/);
  });

  it('a bucket policy read from another account than the bucket owner: S3 refuses it to any such role (405), so the fix is the owner account, not a permission or a retry', () => {
    // S3 answers GetBucketPolicy only to identities of the bucket owner's account: a central state
    // bucket read with a workload account's role gets 405 MethodNotAllowed, whatever IAM allows.
    const cause = classifyReadFailure(
      listing({
        code: 'MethodNotAllowed',
        errorName: 'MethodNotAllowed',
        httpStatus: 405,
        message: 'The specified method is not allowed against this resource.',
        resource: 's3://tfstate',
        action: 's3:GetBucketPolicy',
      }),
    );
    expect(cause).toEqual({
      kind: 'not-bucket-owner',
      summary: "MethodNotAllowed on s3:GetBucketPolicy: not the bucket owner's account",
      advice: expect.stringContaining('only to identities of the account that owns the bucket'),
    });
    expect(cause.advice).toContain('driftwatch check-backend --bucket tfstate');
    expect(cause.advice).not.toMatch(/next scan tries again|^Allow /);
  });

  it('a missing bucket or table says which, and how to fix the registry', () => {
    expect(classifyReadFailure(listing({ code: 'NoSuchBucket' }))).toMatchObject({
      kind: 'no-such-bucket',
      summary: 'the bucket does not exist (NoSuchBucket)',
      advice: expect.stringMatching(/fix backend.bucket in the registry/),
    });
    expect(
      classifyReadFailure(
        listing({
          code: 'ResourceNotFoundException',
          resource: 'dynamodb:tf-locks',
          action: 'dynamodb:Scan',
        }),
      ),
    ).toMatchObject({
      kind: 'not-found',
      summary: 'dynamodb:tf-locks does not exist (ResourceNotFoundException)',
    });
  });

  it('never "Error": an unknown failure says its message and the action, without secrets', () => {
    const cause = classifyReadFailure(
      listing({ code: 'Error', message: 'socket hang up while sending AKIAABCDEFGHIJKLMNOP\nat stack line' }),
    );
    expect(cause.kind).toBe('other');
    expect(cause.summary).toMatch(/^socket hang up while sending .* on s3:ListBucket$/);
    expect(cause.summary).not.toContain('AKIAABCDEFGHIJKLMNOP');
    expect(cause.summary).not.toContain('stack line');
    expect(classifyReadFailure(listing({ code: 'InternalError' })).summary).toBe(
      'InternalError on s3:ListBucket',
    );
    expect(classifyReadFailure(listing({ code: 'SlowDown' })).kind).toBe('throttled');
  });

  it('log fields of the handlers: the cause of a failed preflight, nothing when it passed', () => {
    expect(notChecked(listing({ code: 'NoSuchBucket' }))).toEqual({
      notChecked: 'the bucket does not exist (NoSuchBucket)',
    });
    expect(notChecked(undefined)).toEqual({});
  });
});

describe('classifyReadFailure: SSE-KMS keys', () => {
  const stateRead = (fields: Partial<ReadFailure>): ReadFailure => ({
    resource: 's3://tfstate/pay/terraform.tfstate',
    action: 's3:GetObject',
    code: 'AccessDenied',
    message: 'Access Denied',
    httpStatus: 403,
    ...fields,
  });
  const ARN = 'arn:aws:kms:eu-west-1:111111111111:key/0b5e1f0e-1111-4222-8333-444455556666';

  it('KMS errors S3 passes through name the key and the fix on it, never a missing object', () => {
    const disabled = classifyReadFailure(
      stateRead({ code: 'KMS.DisabledException', httpStatus: 400, message: `${ARN} is disabled.` }),
    );
    expect(disabled).toEqual({
      kind: 'kms-key',
      summary: 'the KMS key of the state is disabled (KMS.DisabledException) on s3:GetObject',
      advice: expect.stringContaining(`aws kms enable-key --key-id ${ARN}`),
    });
    const pending = classifyReadFailure(
      stateRead({
        code: 'KMS.KMSInvalidStateException',
        httpStatus: 400,
        message: `${ARN} is pending deletion.`,
      }),
    );
    expect(pending.kind).toBe('kms-key');
    expect(pending.advice).toContain(`aws kms cancel-key-deletion --key-id ${ARN}`);
    // Not "s3://… does not exist": the object is there, its key is not.
    const gone = classifyReadFailure(
      stateRead({ code: 'KMS.NotFoundException', httpStatus: 400, message: `Invalid keyId ${ARN}` }),
    );
    expect(gone.kind).toBe('kms-key');
    expect(gone.summary).toMatch(/KMS key of the state does not exist/);
  });

  it('an AccessDenied that names kms:Decrypt, or comes from a bucket encrypting with SSE-KMS, asks for kms:Decrypt on the key', () => {
    const named = classifyReadFailure(
      stateRead({
        message: `User: arn:aws:sts::222222222222:assumed-role/driftwatch-read/scan is not authorized to perform: kms:Decrypt on resource: ${ARN} because no identity-based policy allows the kms:Decrypt action`,
      }),
    );
    expect(named.kind).toBe('kms-key');
    expect(named.advice).toContain(`Allow kms:Decrypt on ${ARN}`);
    const byBucket = classifyReadFailure(stateRead({ kmsKeyId: ARN }));
    expect(byBucket.summary).toBe(
      'AccessDenied on s3:GetObject of an SSE-KMS object: s3:GetObject or kms:Decrypt on its key',
    );
    expect(byBucket.advice).toContain(`Allow kms:Decrypt on ${ARN}`);
    expect(classifyReadFailure(stateRead({ kmsKeyId: 'alias/tfstate' })).advice).toContain(
      'the key behind alias/tfstate (aws kms describe-key --key-id alias/tfstate shows its ARN)',
    );
    expect(classifyReadFailure(stateRead({ kmsKeyId: '' })).advice).toContain('aws/s3');
    // A listing denied in a KMS bucket is about s3:ListBucket, not the key.
    expect(
      classifyReadFailure(stateRead({ action: 's3:ListBucket', resource: 's3://tfstate/', kmsKeyId: ARN }))
        .kind,
    ).toBe('access-denied');
    // Without knowing the bucket's encryption, an object read's denial still mentions the key.
    expect(classifyReadFailure(stateRead({})).advice).toMatch(/SSE-KMS.*kms:Decrypt/);
  });
});

describe('classifyReadFailure: objects S3 keeps but will not serve to a plain GET', () => {
  const objectRead = (fields: Partial<ReadFailure>): ReadFailure => ({
    resource: 's3://tfstate/pay/terraform.tfstate',
    action: 's3:GetObjectVersion',
    code: 'InvalidRequest',
    message: 'no message',
    httpStatus: 400,
    ...fields,
  });

  it('a state written with sse_customer_key (SSE-C) names the customer key, never "the next scan tries again"', () => {
    const cause = classifyReadFailure(
      objectRead({
        message:
          'The object was stored using a form of Server Side Encryption. The correct parameters must be provided to retrieve the object.',
      }),
    );
    expect(cause).toMatchObject({
      kind: 'customer-key',
      summary:
        'InvalidRequest on s3:GetObjectVersion: the object is encrypted with a customer-provided key (SSE-C)',
    });
    expect(cause.advice).toContain('arn:aws:s3:::tfstate/pay/terraform.tfstate');
    expect(cause.advice).toContain('sse_customer_key');
    expect(cause.advice).not.toMatch(/tries again/);
    // Another InvalidRequest is not SSE-C.
    expect(classifyReadFailure(objectRead({ message: 'Invalid version id specified' })).kind).toBe('other');
  });

  it('an archived object (InvalidObjectState) names its storage class and the restore, never "the next scan tries again"', () => {
    const glacier = classifyReadFailure(
      objectRead({
        code: 'InvalidObjectState',
        httpStatus: 403,
        message: "The operation is not valid for the object's storage class",
        storageClass: 'GLACIER',
      }),
    );
    expect(glacier).toMatchObject({
      kind: 'archived',
      summary:
        'InvalidObjectState on s3:GetObjectVersion: the object is archived (GLACIER) and must be restored before anyone can read it',
    });
    expect(glacier.advice).toMatch(/aws s3api restore-object/);
    expect(glacier.advice).not.toMatch(/tries again|Allow /);
    const tiering = classifyReadFailure(
      objectRead({
        code: 'InvalidObjectState',
        httpStatus: 403,
        storageClass: 'INTELLIGENT_TIERING (ARCHIVE_ACCESS)',
      }),
    );
    expect(tiering.summary).toContain('(INTELLIGENT_TIERING (ARCHIVE_ACCESS))');
    // Not an object read: whatever it is, it is not an archived object.
    expect(
      classifyReadFailure(
        objectRead({ code: 'InvalidObjectState', action: 's3:ListBucket', resource: 's3://tfstate/' }),
      ).kind,
    ).toBe('other');
  });
});
