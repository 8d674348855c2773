import { SignatureV4 } from '@smithy/signature-v4';
import { NodeSha256 } from '../../functions/adapters/node-sha256.js';

/**
 * Calls to AWS APIs whose SDK clients driftwatch does not depend on (KMS, Lambda, CloudWatch Logs,
 * CloudWatch, ECR), as the SDK sends them: signed with SigV4 and posted to AWS_ENDPOINT_URL (moto in
 * integration tests). Out-of-band changes are made by hand through the APIs a console uses; a test
 * needs a few of them, not a dependency per service.
 */

interface AwsRequest {
  /** Signing name: kms, lambda, logs, monitoring, ecr, apigateway. */
  service: string;
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  /** None for a GET (API Gateway's `GET /v2/apis`). */
  body?: string;
}

/** Sends one signed request and returns its body; throws with the status and body when it failed. */
export async function awsRequest(request: AwsRequest): Promise<string> {
  const endpoint = new URL(requiredEnv('AWS_ENDPOINT_URL'));
  const region = requiredEnv('AWS_REGION');
  const signer = new SignatureV4({
    credentials: {
      accessKeyId: requiredEnv('AWS_ACCESS_KEY_ID'),
      secretAccessKey: requiredEnv('AWS_SECRET_ACCESS_KEY'),
    },
    region,
    service: request.service,
    sha256: NodeSha256,
  });
  const method = request.method ?? 'POST';
  const path = request.path ?? '/';
  const signed = await signer.sign({
    method,
    protocol: endpoint.protocol,
    hostname: endpoint.hostname,
    port: Number(endpoint.port),
    path,
    headers: { host: endpoint.host, ...request.headers },
    body: request.body,
  });
  const response = await fetch(new URL(path, endpoint), {
    method,
    headers: signed.headers,
    body: request.body,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${request.service} ${method} ${path}: HTTP ${response.status} ${text}`);
  return text;
}

/** An awsJson1_1 action (KMS `TrentService.PutKeyPolicy`, Logs `Logs_20140328.PutRetentionPolicy`). */
export async function awsJsonCall(service: string, target: string, input: unknown): Promise<unknown> {
  const text = await awsRequest({
    service,
    headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': target },
    body: JSON.stringify(input),
  });
  return text === '' ? {} : JSON.parse(text);
}

/** An AWS query action (CloudWatch `PutMetricAlarm`): form parameters, flattened as the SDK does. */
export async function awsQueryCall(service: string, parameters: Record<string, string>): Promise<string> {
  return awsRequest({
    service,
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
    body: new URLSearchParams(parameters).toString(),
  });
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: call useMoto() first`);
  return value;
}
