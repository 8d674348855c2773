import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

export interface FindingsApiProps {
  queryFindings: lambda.IFunction;
  logRetentionDays: number;
}

/**
 * The findings API: an HTTP API (API Gateway v2) whose every route requires SigV4-signed requests
 * (IAM authorization), so who may read findings is an IAM decision (`execute-api:Invoke`), logged
 * per request with the caller's ARN.
 */
export class FindingsApi extends Construct {
  readonly api: apigw.HttpApi;
  readonly accessLogs: logs.LogGroup;

  constructor(scope: Construct, id: string, props: FindingsApiProps) {
    super(scope, id);
    this.accessLogs = new logs.LogGroup(this, 'AccessLogs', { retention: props.logRetentionDays });
    this.api = new apigw.HttpApi(this, 'Api', {
      description: 'driftwatch findings (IAM auth)',
      defaultAuthorizer: new HttpIamAuthorizer(),
      createDefaultStage: false,
    });
    new apigw.HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: 20, burstLimit: 40 },
      accessLogSettings: {
        destination: new apigw.LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            caller: '$context.identity.userArn',
            route: '$context.routeKey',
            status: '$context.status',
            latencyMs: '$context.responseLatency',
            integrationError: '$context.integrationErrorMessage',
          }),
        ),
      },
    });
    const integration = new HttpLambdaIntegration('QueryFindings', props.queryFindings);
    this.api.addRoutes({ path: '/findings', methods: [apigw.HttpMethod.GET], integration });
    this.api.addRoutes({ path: '/findings/{id}', methods: [apigw.HttpMethod.GET], integration });
  }

  /** The URL to sign requests for (awscurl, SigV4). */
  get url(): string {
    return this.api.apiEndpoint;
  }
}
