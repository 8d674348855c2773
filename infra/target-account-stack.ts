import { Aws, CfnOutput, Duration, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import {
  DENIED_LOCK_TABLE_WRITES,
  DENIED_STATE_BUCKET_CHANGES,
  DENIED_STATE_WRITES,
} from './constructs/target-read-access.js';
import { SCANNER_HANDLERS, scannerRoleName } from './scanner-roles.js';

export interface TargetAccountStackProps extends StackProps {
  /** The account driftwatch runs in. */
  driftwatchAccount: string;
  /** The name of the driftwatch stack there (its scanner roles are named after it). */
  driftwatchStackName: string;
  /** The registry's `externalId` for this account's workspaces. */
  externalId: string;
  /** The registry's `roleArn` for this account is `arn:aws:iam::<this account>:role/<roleName>`. */
  roleName: string;
}

/**
 * The role driftwatch assumes in each account it scans (the registry's `roleArn`). Read-only
 * (AWS ReadOnlyAccess, what a refresh of arbitrary Terraform needs), trusted only by driftwatch's
 * scanner roles and only with the external id, and with an explicit Deny of every S3 object write,
 * every S3 bucket configuration change and every DynamoDB item write through it: a scan can never
 * write Terraform state, loosen a state bucket or take a lock, whatever else is attached later.
 */
export class TargetAccountStack extends Stack {
  readonly role: iam.Role;

  constructor(scope: Construct, id: string, props: TargetAccountStackProps) {
    super(scope, id, props);
    const scannerRoles = SCANNER_HANDLERS.map(
      (handler) =>
        `arn:${Aws.PARTITION}:iam::${props.driftwatchAccount}:role/${scannerRoleName(props.driftwatchStackName, handler)}`,
    );
    // Trusting the account with a condition on the principal's ARN (rather than the role ARNs as
    // principals) keeps working when a scanner role is replaced, and lets this stack deploy first.
    this.role = new iam.Role(this, 'ReadRole', {
      roleName: props.roleName,
      description: 'driftwatch: read-only scans (refresh-only plans, backend checks); never writes state',
      assumedBy: new iam.AccountPrincipal(props.driftwatchAccount).withConditions({
        StringEquals: { 'sts:ExternalId': props.externalId },
        ArnEquals: { 'aws:PrincipalArn': scannerRoles },
      }),
      maxSessionDuration: Duration.hours(1),
      managedPolicies: [iam.ManagedPolicy.fromAwsManagedPolicyName('ReadOnlyAccess')],
    });
    this.role.attachInlinePolicy(
      new iam.Policy(this, 'NeverWriteState', {
        statements: [
          new iam.PolicyStatement({
            sid: 'DenyStateWrites',
            effect: iam.Effect.DENY,
            actions: DENIED_STATE_WRITES,
            resources: [`arn:${Aws.PARTITION}:s3:::*/*`],
          }),
          new iam.PolicyStatement({
            sid: 'DenyStateBucketChanges',
            effect: iam.Effect.DENY,
            actions: DENIED_STATE_BUCKET_CHANGES,
            resources: [`arn:${Aws.PARTITION}:s3:::*`],
          }),
          // Any account: a table another account shares through a resource policy is not ours to write either.
          new iam.PolicyStatement({
            sid: 'DenyLockTableWrites',
            effect: iam.Effect.DENY,
            actions: DENIED_LOCK_TABLE_WRITES,
            resources: [`arn:${Aws.PARTITION}:dynamodb:*:*:table/*`],
          }),
        ],
      }),
    );
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/ReadOnlyAccess]',
      reason:
        'A refresh-only plan reads every resource type its workspace manages, which no fixed list can foresee; AWS maintains ReadOnlyAccess as new services appear. Writes to state and lock tables are explicitly denied.',
    });
    new CfnOutput(this, 'RoleArn', {
      value: this.role.roleArn,
      description: 'roleArn for this account in driftwatch.yaml (with the same externalId)',
    });
  }
}
