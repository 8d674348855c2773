import { describe, expect, it } from 'vitest';
import { describeFailedReads, failedReadsIn } from '../../../../functions/core/terraform/provider-log.js';

/** Lines of the AWS provider 5.100's debug log (TF_LOG_PROVIDER=DEBUG), shortened after the fields read. */
const prefix = '2026-12-03T08:58:48.792Z [DEBUG] provider.terraform-provider-aws_v5.100.0_x5:';
const line = (status: number, error: string, fields = 'rpc.method=HeadBucket rpc.service=S3') =>
  `${prefix} request failed with unretryable error https response error StatusCode: ${status}, RequestID: R1, HostID: H1, ${error}: @module=aws aws.region=eu-west-1 ${fields} tf_rpc=ReadResource`;

describe('failedReadsIn', () => {
  it.each([
    [
      'a 403 (the role may not read it)',
      line(403, 'api error Forbidden: Forbidden'),
      [{ operation: 'S3/HeadBucket', status: 403, error: 'Forbidden' }],
    ],
    [
      'a 401',
      line(401, 'api error UnrecognizedClientException: x', 'rpc.service=DynamoDB rpc.method=DescribeTable'),
      [{ operation: 'DynamoDB/DescribeTable', status: 401, error: 'UnrecognizedClientException' }],
    ],
    [
      'a 503 without an error code or operation',
      line(503, 'ServiceUnavailable', ''),
      [{ operation: 'an AWS API call', status: 503, error: '' }],
    ],
    [
      'a request that never reached the API',
      `2026-12-03T08:45:59.921Z [WARN]  provider.terraform-provider-aws_v5.100.0_x5: [WARN] Disabling retries after next request due to networking error: https response error StatusCode: 0, RequestID: , HostID: , request send failed, Head "http://127.0.0.1:1/good-bucket": dial tcp 127.0.0.1:1: connect: connection refused`,
      [
        {
          operation: 'HEAD http://127.0.0.1:1',
          status: 0,
          error: 'dial tcp 127.0.0.1:1: connect: connection refused',
        },
      ],
    ],
    // Absence proven: 404 (S3, IAM), and 400 (how DynamoDB, SQS and EC2 say "no such thing").
    ['a 404 (really gone)', line(404, 'NotFound: '), []],
    [
      'a 400 ResourceNotFoundException',
      line(400, 'api error ResourceNotFoundException: gone', 'rpc.service=DynamoDB rpc.method=DescribeTable'),
      [],
    ],
    [
      'a successful response',
      `${prefix} HTTP Response Received: http.status_code=200 rpc.method=HeadBucket`,
      [],
    ],
  ])('%s', (_case, text, expected) => {
    expect(failedReadsIn([text])).toEqual(expected);
  });

  it('keeps each failure once, and nothing of the bodies a debug log also holds', () => {
    const canary = 'CANARY-provider-log-body-7y6t';
    const reads = failedReadsIn([
      line(403, 'api error AccessDenied: Access Denied'),
      line(403, 'api error AccessDenied: Access Denied'),
      `${prefix} HTTP Response Received: http.response.body="{\\"Parameter\\":{\\"Value\\":\\"${canary}\\"}}" StatusCode: 200`,
      line(403, `api error AccessDenied: User is not authorized to read ${canary}`),
    ]);
    expect(reads).toEqual([{ operation: 'S3/HeadBucket', status: 403, error: 'AccessDenied' }]);
    expect(JSON.stringify(reads)).not.toContain(canary);
  });
});

describe('describeFailedReads', () => {
  it('names the first five and counts the rest', () => {
    const reads = Array.from({ length: 7 }, (_, index) => ({
      operation: `S3/Op${index}`,
      status: 403,
      error: 'Forbidden',
    }));
    expect(describeFailedReads(reads)).toBe(
      'S3/Op0: HTTP 403 Forbidden; S3/Op1: HTTP 403 Forbidden; S3/Op2: HTTP 403 Forbidden; S3/Op3: HTTP 403 Forbidden; S3/Op4: HTTP 403 Forbidden; and 2 more',
    );
    expect(describeFailedReads([{ operation: 'S3/HeadBucket', status: 503, error: '' }])).toBe(
      'S3/HeadBucket: HTTP 503',
    );
  });
});
