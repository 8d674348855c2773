import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ConfigError, readConfig } from './config.js';
import { DriftwatchStack } from './driftwatch-stack.js';
import { DEFAULT_STACK_NAME } from './scanner-roles.js';
import { TargetAccountStack } from './target-account-stack.js';

/**
 * The CDK app. `-c stack=driftwatch` (default) is driftwatch itself; `-c stack=target-account` is
 * the read-only role for each scanned account. Both are checked by cdk-nag's AwsSolutions pack:
 * an unacknowledged finding fails synth.
 */
export function buildApp(app: App = new App()): App {
  const which = String(app.node.tryGetContext('stack') ?? 'driftwatch');
  const stackName = String(app.node.tryGetContext('stackName') ?? DEFAULT_STACK_NAME);
  const env = { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION };
  if (which === 'target-account') {
    const required = (name: string) => {
      const value: unknown = app.node.tryGetContext(name);
      if (typeof value !== 'string' || value === '')
        throw new ConfigError(`-c ${name}=… is required for the target-account stack`);
      return value;
    };
    new TargetAccountStack(app, 'DriftwatchTargetAccount', {
      env,
      driftwatchAccount: required('driftwatchAccount'),
      driftwatchStackName: stackName,
      externalId: required('externalId'),
      roleName: String(app.node.tryGetContext('roleName') ?? 'driftwatch-read'),
      description: 'driftwatch: read-only role for scans from the driftwatch account',
    });
  } else if (which === 'driftwatch') {
    new DriftwatchStack(app, stackName, {
      env,
      config: readConfig(app.node),
      description: 'driftwatch: nightly read-only Terraform drift and policy scans',
    });
  } else {
    throw new ConfigError(`-c stack=${which}: expected driftwatch or target-account`);
  }
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return app;
}

if (process.argv[1]?.endsWith('app.ts')) buildApp().synth();
