import { Duration, Stack, Validations } from 'aws-cdk-lib';
import * as codebuild from 'aws-cdk-lib/aws-codebuild';
import { DockerImageAsset, Platform } from 'aws-cdk-lib/aws-ecr-assets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { acknowledgeWildcardResource, nagFlatten } from '../nag.js';
import { type HandlerName, stageImageContext } from './driftwatch-function.js';

export interface CodeBuildRunnerProps {
  /** The handler whose image and role the builds use (scan-terraform). */
  handler: HandlerName;
  dockerfile: string;
  /** The Lambda this runner stands in for: its architecture decides the build's platform. */
  scanner: lambda.Function;
  /** The Lambda's role: the same read-only role (the target accounts trust it by name). */
  role: iam.Role;
  /** What the handler reads at import (findings bucket, hash salt secret, recording mode). */
  environment: Record<string, string>;
  logRetentionDays: number;
  /** The project's name, fixed so the role's trust can name the project (confused deputy). */
  projectName: string;
}

/** The command CodeBuild runs in the scanner image; the Lambda base image's node is in /var/lang/bin. */
export const RUNNER_COMMAND = '/var/lang/bin/node /var/task/runner-entrypoint.mjs';

/**
 * ScanTerraform in CodeBuild, for plans longer than Lambda's 15 minutes: the same container image as
 * the Lambda (the same staged build context, so the same asset), its entrypoint script instead of
 * the Lambda runtime, the same role and environment, so it reads the same registry and records into
 * the same findings bucket. Step Functions starts one build per workspace with `.sync` and passes
 * the Map item as DRIFTWATCH_EVENT and the workspace's build timeout (up to 8 h).
 *
 * Why CodeBuild rather than ECS Fargate: `.sync` needs no cluster, task definition, VPC or subnets
 * (Fargate needs all four even for one task), the build timeout and environment are overridable per
 * start, and a build's log and status are in one place; Fargate's advantages (longer than 8 h, more
 * memory) do not matter for refresh-only plans.
 */
export class CodeBuildRunner extends Construct {
  readonly project: codebuild.Project;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: CodeBuildRunnerProps) {
    super(scope, id);
    const arm = props.scanner.architecture.name === lambda.Architecture.ARM_64.name;
    const image = new DockerImageAsset(this, 'Image', {
      directory: stageImageContext(this, props.handler, props.dockerfile),
      platform: arm ? Platform.LINUX_ARM64 : Platform.LINUX_AMD64,
    });
    this.logGroup = new logs.LogGroup(this, 'Logs', { retention: props.logRetentionDays });
    const stack = Stack.of(this);
    const projectArn = stack.formatArn({
      service: 'codebuild',
      resource: 'project',
      resourceName: props.projectName,
    });
    props.role.assumeRolePolicy?.addStatements(
      new iam.PolicyStatement({
        actions: ['sts:AssumeRole'],
        principals: [new iam.ServicePrincipal('codebuild.amazonaws.com')],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: { 'aws:SourceArn': projectArn },
        },
      }),
    );
    this.project = new codebuild.Project(this, 'Project', {
      projectName: props.projectName,
      description: `driftwatch ${props.handler} for plans longer than Lambda allows`,
      role: props.role,
      environment: {
        buildImage: arm
          ? codebuild.LinuxArmBuildImage.fromEcrRepository(image.repository, image.imageTag)
          : codebuild.LinuxBuildImage.fromEcrRepository(image.repository, image.imageTag),
        // ARM builds come in SMALL and LARGE; a plan needs the Lambda's ~3 GB and more.
        computeType: arm ? codebuild.ComputeType.LARGE : codebuild.ComputeType.MEDIUM,
        environmentVariables: Object.fromEntries(
          Object.entries({ ...props.environment, LOG_LEVEL: 'info' }).map(([name, value]) => [
            name,
            { value },
          ]),
        ),
      },
      buildSpec: codebuild.BuildSpec.fromObject({
        version: '0.2',
        phases: { build: { commands: [RUNNER_COMMAND] } },
      }),
      // The per-build override (the workspace's timeout) is what applies; this is CodeBuild's maximum.
      timeout: Duration.hours(8),
      queuedTimeout: Duration.hours(8),
      logging: { cloudWatch: { logGroup: this.logGroup } },
    });
    image.repository.grantPull(props.role);
    acknowledgeWildcardResource(
      props.role,
      '*',
      'ecr:GetAuthorizationToken (CodeBuild pulling the scanner image with this role) supports no resource-level permissions; the image pull itself is granted on the assets repository only.',
    );
    // What CodeBuild's L2 grants its role on the project's own names, flattened as cdk-nag prints them.
    const named = (service: string, rest: string) =>
      nagFlatten(this, `arn:${stack.partition}:${service}:${stack.region}:${stack.account}:${rest}`);
    acknowledgeWildcardResource(
      props.role,
      named('logs', `log-group:/aws/codebuild/${this.project.projectName}:*`),
      "CodeBuild's default log group of this project (CDK grants it although the builds log to the project's own group); its streams are named per build.",
    );
    acknowledgeWildcardResource(
      props.role,
      named('codebuild', `report-group/${this.project.projectName}-*`),
      "Test report groups of this project (CDK's default grant); the build publishes none.",
    );
    Validations.of(this.project).acknowledge(
      {
        id: 'AwsSolutions-CB4',
        reason:
          'The build has no artifacts or cache to encrypt: it records findings in the KMS-encrypted findings bucket through the handler, and CodeBuild encrypts its logs and temporary storage itself.',
      },
      {
        id: 'AwsSolutions-CB5',
        reason:
          "The custom image is driftwatch's scanner image (Terraform and the ScanTerraform handler), the same one the Lambda runs.",
      },
    );
  }
}
