import { NoSuchBucket, S3ServiceException } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { describeAwsError, isAwsError } from '../../../functions/adapters/aws-error.js';

/** SDK errors as the SDK builds them (its own classes; network errors as Node raises them). */
const env = { AWS_ENDPOINT_URL: 'http://127.0.0.1:4566', AWS_REGION: 'eu-west-1' };
const metadata = (httpStatusCode: number) => ({
  httpStatusCode,
  requestId: 'r',
  attempts: 1,
  totalRetryDelay: 0,
});

function networkError(code: string, fields: Record<string, unknown>): Error {
  return Object.assign(new Error(`connect ${code}`), {
    code,
    errno: -1,
    syscall: 'connect',
    $metadata: {},
    ...fields,
  });
}

function serviceError(name: string, status: number, message: string, fields: Record<string, unknown> = {}) {
  return Object.assign(
    new S3ServiceException({ name, $fault: 'client', $metadata: metadata(status), message }),
    fields,
  );
}

describe('describeAwsError', () => {
  it('no credentials with AWS_PROFILE set points at that profile (a typo, an ended SSO session), not the whole chain', () => {
    const error = Object.assign(new Error('Could not load credentials from any providers'), {
      name: 'CredentialsProviderError',
    });
    expect(describeAwsError(error, { env: { ...env, AWS_PROFILE: 'platfrom-prod' } })).toBe(
      'no AWS credentials found (CredentialsProviderError): AWS_PROFILE is platfrom-prod and gave no credentials: check that the profile exists (`aws configure list-profiles`) and, for SSO, log in to it (`aws sso login --profile platfrom-prod`); or unset AWS_PROFILE to use AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or the instance role.',
    );
    // A name the shell would split or run is quoted in the command shown.
    expect(describeAwsError(error, { env: { AWS_PROFILE: 'a b$(id)' } })).toContain(
      "aws sso login --profile 'a b$(id)'",
    );
    expect(describeAwsError(error, { env })).not.toContain('AWS_PROFILE is');
  });

  it.each([
    [
      'a missing bucket',
      new NoSuchBucket({ message: 'The specified bucket does not exist', $metadata: metadata(404) }),
      /^the bucket does not exist \(NoSuchBucket\) \(HTTP 404 from http:\/\/127\.0\.0\.1:4566\): check the bucket name/,
    ],
    [
      'a refused connection',
      networkError('ECONNREFUSED', { address: '127.0.0.1', port: 1 }),
      /^connection refused to 127\.0\.0\.1:1 \(ECONNREFUSED\): Check where the SDK sends requests/,
    ],
    [
      'a host that does not resolve',
      networkError('ENOTFOUND', { hostname: 's3.nowhere.invalid' }),
      /^cannot resolve the host of s3\.nowhere\.invalid \(ENOTFOUND\)/,
    ],
    [
      'no credentials',
      Object.assign(new Error('Could not load credentials from any providers'), {
        name: 'CredentialsProviderError',
      }),
      /^no AWS credentials found \(CredentialsProviderError\): .*AWS_PROFILE/,
    ],
    [
      'no region',
      new Error('Region is missing'),
      /^no AWS region configured \(Region is missing\): .*AWS_REGION/,
    ],
    [
      'a wrong region',
      serviceError(
        'AuthorizationHeaderMalformed',
        400,
        "The authorization header is malformed; the region 'us-east-1' is wrong; expecting 'eu-west-1'",
      ),
      /^the bucket is in eu-west-1, not the region configured \(AuthorizationHeaderMalformed\)/,
    ],
    [
      'a permanent redirect',
      serviceError(
        'PermanentRedirect',
        301,
        'The bucket you are attempting to access must be addressed using the specified endpoint.',
        {
          Endpoint: 'tfstate.s3.eu-central-1.amazonaws.com',
        },
      ),
      /^the bucket is in eu-central-1, not the region configured \(PermanentRedirect\)/,
    ],
    [
      'expired credentials',
      serviceError('ExpiredToken', 400, 'The provided token has expired.'),
      /^credentials rejected \(ExpiredToken\) \(HTTP 400 from http:\/\/127\.0\.0\.1:4566\)/,
    ],
    [
      'access denied',
      serviceError('AccessDenied', 403, 'Access Denied'),
      /^AccessDenied on this request \(HTTP 403 from http:\/\/127\.0\.0\.1:4566\): the credentials .* lack a read permission/,
    ],
  ])('%s: one line with the SDK name, the endpoint and the fix', (_case, error, expected) => {
    const line = describeAwsError(error, { env });
    expect(line).toMatch(expected);
    expect(line).not.toContain('\n');
    expect(line).not.toMatch(/\bat .*\(.*:\d+:\d+\)/);
  });

  it('region advice names what a store command takes (AWS_REGION), not the registry or --region alone', () => {
    const missing = describeAwsError(new Error('Region is missing'), { env: {} });
    expect(missing).toContain("set AWS_REGION to the bucket's region");
    expect(missing).not.toContain('backend.region');
    const redirect = describeAwsError(
      serviceError('PermanentRedirect', 301, 'must be addressed using the specified endpoint', {
        Endpoint: 'findings.s3.eu-central-1.amazonaws.com',
      }),
      { env },
    );
    expect(redirect).toContain(
      "set AWS_REGION=eu-central-1, the bucket's region; check-backend, locks and init also take --region eu-central-1",
    );
    expect(redirect).not.toContain('backend.region');
  });

  it('a timeout (no address in the error) names the endpoint the SDK was configured with', () => {
    // What the SDK throws when withHttpTimeouts' requestTimeout or connectionTimeout fires.
    const timeout = Object.assign(new Error('Connection timed out after 5000 ms'), { name: 'TimeoutError' });
    expect(describeAwsError(timeout, { env })).toMatch(
      /^no answer from http:\/\/127\.0\.0\.1:4566 \(timeout\) \(TimeoutError\): Check where the SDK sends requests/,
    );
    expect(describeAwsError(timeout, { env: { AWS_REGION: 'eu-west-1' } })).toMatch(
      /^no answer from AWS eu-west-1 \(timeout\)/,
    );
  });

  it('names AWS in the region when no endpoint is configured', () => {
    const error = new NoSuchBucket({ message: 'x', $metadata: metadata(404) });
    expect(describeAwsError(error, { env: { AWS_REGION: 'eu-west-1' } })).toContain(
      '(HTTP 404 from AWS eu-west-1)',
    );
  });

  it('names the endpoint by scheme, host and port: never a password or token the URL carries', () => {
    const error = new NoSuchBucket({ message: 'x', $metadata: metadata(404) });
    for (const endpoint of [
      'http://admin:endpoint-pw-1@127.0.0.1:4566',
      'http://127.0.0.1:4566/?token=endpoint-pw-1',
      'http://127.0.0.1:4566/endpoint-pw-1/',
    ]) {
      const line = describeAwsError(error, { env: { AWS_ENDPOINT_URL: endpoint } });
      expect(line).toContain('(HTTP 404 from http://127.0.0.1:4566)');
      expect(line).not.toContain('endpoint-pw-1');
    }
  });

  it('leaves other errors alone', () => {
    expect(isAwsError(new Error('boom'))).toBe(false);
    expect(isAwsError(Object.assign(new Error('x'), { code: 'ENOENT' }))).toBe(false);
    expect(describeAwsError(new TypeError('x is not a function'))).toBeUndefined();
    expect(describeAwsError('text')).toBeUndefined();
  });
});
