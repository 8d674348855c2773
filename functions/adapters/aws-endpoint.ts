/**
 * Where the SDK sends requests: AWS_ENDPOINT_URL(_S3 or _DYNAMODB), else AWS in the configured region. Only the
 * scheme, host and port: the URL may carry a password (`http://user:pw@proxy`) or a token in its
 * query, which an error line must not print.
 */
export function configuredEndpoint(env: NodeJS.ProcessEnv, service: 's3' | 'dynamodb' = 's3'): string {
  const configured =
    (service === 's3' ? env.AWS_ENDPOINT_URL_S3 : env.AWS_ENDPOINT_URL_DYNAMODB) || env.AWS_ENDPOINT_URL;
  if (configured) {
    try {
      const url = new URL(configured);
      return `${url.protocol}//${url.host}`;
    } catch {
      return 'AWS_ENDPOINT_URL (not a URL)';
    }
  }
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  return region ? `AWS ${region}` : 'AWS';
}
