import { Aws } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { backendReadActions } from '../../functions/core/backend/rules/index.js';
import type { Registry } from '../../functions/core/registry/model.js';
import { stateObjectKey } from '../../functions/core/registry/state-key.js';
import { stateBuckets } from '../../functions/core/routing/scopes.js';
import { acknowledgeWildcardResource, nagFlatten } from '../nag.js';

/** What one scanner reads in the estate; each adds only the statements it needs. */
export type TargetRead =
  /**
   * The state object of each workspace read with the scanner's own credentials (no `roleArn`): exactly
   * its key, GetObject only (no older versions), and listing its bucket (Terraform lists CLI
   * workspaces; S3 answers a missing key 404 only to a lister). A workspace with a `roleArn` is read
   * with that role's credentials, so the scanner's role needs nothing of its bucket.
   */
  | 'state'
  /** Bucket settings, state versions and lock tables, as the backend rules declare them. */
  | 'backend'
  /** `source.s3` bundles and `sensitiveVars` secrets (Secrets Manager) of the registry's workspaces. */
  | 'sources'
  /** Argo CD tokens in Secrets Manager and rendered manifests in S3, of the registry's clusters. */
  | 'clusters';

export interface TargetReadAccessProps {
  registry: Registry;
  role: iam.Role;
  reads: TargetRead[];
}

/**
 * Writes to Terraform state a scanner must never make, whatever else its role is granted later: every
 * object write (content, versions, ACLs, tags, retention and legal holds, replication, restores).
 * Patterns rather than names, so an action S3 adds later (`s3:PutObject…`) is denied too; none
 * matches a read (test/infra/least-privilege.test.ts). Sorted, as CDK writes them
 * (@aws-cdk/aws-iam:minimizePolicies).
 */
export const DENIED_STATE_WRITES = [
  's3:BypassGovernanceRetention',
  's3:DeleteObject*',
  's3:PutObject*',
  's3:Replicate*',
  's3:RestoreObject',
];
/**
 * Changes of a state bucket's own configuration a scanner must never make either: its policy, versioning, public access
 * block, ACLs, encryption, a lifecycle rule (which could expire state) or the bucket itself.
 */
export const DENIED_STATE_BUCKET_CHANGES = [
  's3:DeleteBucket*',
  's3:PutBucket*',
  's3:PutEncryptionConfiguration',
  's3:PutLifecycleConfiguration',
  's3:PutReplicationConfiguration',
];
/** Every item write to a lock table (the API's and PartiQL's: a lock is an item) and dropping it. */
export const DENIED_LOCK_TABLE_WRITES = [
  'dynamodb:BatchWriteItem',
  'dynamodb:DeleteItem',
  'dynamodb:DeleteTable',
  'dynamodb:PartiQLDelete',
  'dynamodb:PartiQLInsert',
  'dynamodb:PartiQLUpdate',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
];

/**
 * A scanner role's access to the estate, derived from the registry at synth: read-only, on the
 * registry's own buckets, tables, roles and secrets, and an explicit Deny of every state and lock
 * write (an explicit Deny wins over any Allow, so a broader policy attached later cannot undo it).
 * Workspaces in other accounts are read through their `roleArn` (the target-account role), which
 * this role may assume and nothing more.
 */
export class TargetReadAccess extends Construct {
  readonly policy: iam.Policy;

  constructor(scope: Construct, id: string, props: TargetReadAccessProps) {
    super(scope, id);
    const { registry, reads } = props;
    const buckets = stateBuckets(registry);
    const statements: iam.PolicyStatement[] = [];

    const roleArns = [
      ...registry.workspaces.map((workspace) => workspace.roleArn),
      ...(reads.includes('clusters')
        ? registry.clusters.map((cluster) => cluster.kubernetes?.eks?.roleArn)
        : []),
    ].filter((arn): arn is string => arn !== undefined);
    if (roleArns.length > 0) {
      statements.push(
        new iam.PolicyStatement({
          sid: 'AssumeWorkspaceReadRoles',
          actions: ['sts:AssumeRole'],
          resources: [...new Set(roleArns)].sort(),
        }),
      );
    }

    const ownStates = registry.workspaces.filter((workspace) => !workspace.roleArn);
    if (reads.includes('state') && ownStates.length > 0) {
      const stateObjects = [
        ...new Set(
          ownStates.map((workspace) => objectArn(workspace.backend.bucket, stateObjectKey(workspace))),
        ),
      ].sort();
      statements.push(
        new iam.PolicyStatement({
          sid: 'ListStateBuckets',
          actions: ['s3:ListBucket'],
          resources: [...new Set(ownStates.map((workspace) => bucketArn(workspace.backend.bucket)))].sort(),
        }),
        new iam.PolicyStatement({
          sid: 'ReadStateObjects',
          actions: ['s3:GetObject'],
          resources: stateObjects,
        }),
      );
      // IAM reads * and ? in a resource as wildcards: a key holding one grants its look-alikes too.
      for (const arn of stateObjects.filter((each) => /[*?]/.test(each)))
        acknowledgeWildcardResource(
          this,
          nagFlatten(this, arn),
          'A registry state key holding * or ?, which IAM reads as a wildcard; the grant is that one key pattern, read-only.',
        );
    }
    if (reads.includes('backend') && buckets.length > 0) {
      const actions = backendReadActions();
      const objectActions = actions.filter(isObjectAction);
      const bucketActions = actions.filter((action) => action.startsWith('s3:') && !isObjectAction(action));
      const tableActions = actions.filter((action) => action.startsWith('dynamodb:'));
      statements.push(
        new iam.PolicyStatement({
          sid: 'ReadStateBucketSettings',
          actions: bucketActions,
          resources: buckets.map(({ bucket }) => bucketArn(bucket)),
        }),
        new iam.PolicyStatement({
          sid: 'ReadStateObjectVersions',
          actions: objectActions,
          resources: buckets.map(({ bucket }) => objectsArn(bucket)),
        }),
      );
      for (const { bucket } of buckets) acknowledgeObjects(this, bucket);
      const tables = lockTables(registry);
      if (tables.length > 0 && tableActions.length > 0) {
        statements.push(
          new iam.PolicyStatement({
            sid: 'ReadLockTables',
            actions: tableActions,
            resources: tables.map(({ table, region }) => tableArn(table, region, Aws.ACCOUNT_ID)),
          }),
        );
      }
    }

    if (reads.includes('sources')) {
      const bundles = registry.workspaces.flatMap((workspace) =>
        's3' in workspace.source ? [s3ObjectArn(workspace.source.s3)] : [],
      );
      if (bundles.length > 0)
        statements.push(
          new iam.PolicyStatement({
            sid: 'ReadSourceBundles',
            actions: ['s3:GetObject'],
            resources: [...new Set(bundles)],
          }),
        );
      // Only the secrets the registry names, as for Argo CD tokens: never secretsmanager:* on '*'.
      const variableSecrets = registry.workspaces.flatMap((workspace) =>
        [
          ...Object.values(workspace.sensitiveVars ?? {}),
          // Private module credentials (moduleSources, registries), read by the same scan for its init.
          ...(workspace.moduleSources ?? []).flatMap((source) => [
            source.https?.token,
            source.ssh?.privateKey,
          ]),
          ...(workspace.registries ?? []).map((entry) => entry.token),
        ].flatMap((reference) =>
          reference && 'secretsManager' in reference ? [secretArn(reference.secretsManager)] : [],
        ),
      );
      if (variableSecrets.length > 0)
        statements.push(
          new iam.PolicyStatement({
            sid: 'ReadTerraformVariableSecrets',
            actions: ['secretsmanager:GetSecretValue'],
            resources: [...new Set(variableSecrets)],
          }),
        );
    }

    if (reads.includes('clusters')) {
      const secrets = registry.clusters.flatMap((cluster) => {
        const token = cluster.argocd?.token;
        return token && 'secretsManager' in token ? [secretArn(token.secretsManager)] : [];
      });
      if (secrets.length > 0)
        statements.push(
          new iam.PolicyStatement({
            sid: 'ReadArgoCdTokens',
            actions: ['secretsmanager:GetSecretValue'],
            resources: [...new Set(secrets)],
          }),
        );
      const manifests = registry.clusters.flatMap((cluster) => {
        const source = cluster.kubernetes?.manifests;
        return source && 's3' in source ? [s3ObjectArn(source.s3)] : [];
      });
      if (manifests.length > 0)
        statements.push(
          new iam.PolicyStatement({
            sid: 'ReadRenderedManifests',
            actions: ['s3:GetObject'],
            resources: [...new Set(manifests)],
          }),
        );
    }

    statements.push(...denyStateWrites(registry));
    this.policy = new iam.Policy(this, 'Policy', { statements, roles: [props.role] });
  }
}

/** The explicit Deny statements of a registry: every state bucket, its objects, every lock table. */
export function denyStateWrites(registry: Registry): iam.PolicyStatement[] {
  const buckets = stateBuckets(registry);
  const tables = lockTables(registry);
  const statements: iam.PolicyStatement[] = [];
  if (buckets.length > 0)
    statements.push(
      new iam.PolicyStatement({
        sid: 'DenyStateWrites',
        effect: iam.Effect.DENY,
        actions: DENIED_STATE_WRITES,
        resources: buckets.map(({ bucket }) => objectsArn(bucket)),
      }),
      new iam.PolicyStatement({
        sid: 'DenyStateBucketChanges',
        effect: iam.Effect.DENY,
        actions: DENIED_STATE_BUCKET_CHANGES,
        resources: buckets.map(({ bucket }) => bucketArn(bucket)),
      }),
    );
  if (tables.length > 0)
    statements.push(
      new iam.PolicyStatement({
        sid: 'DenyLockTableWrites',
        effect: iam.Effect.DENY,
        actions: DENIED_LOCK_TABLE_WRITES,
        // Any account: a lock table of that name is never ours to write.
        resources: tables.map(({ table, region }) => tableArn(table, region, '*')),
      }),
    );
  return statements;
}

/**
 * Object-level S3 actions among the backend rules' declared ones (the rest apply to the bucket):
 * s3:GetObject, s3:GetObjectVersion, s3:GetObjectAcl, s3:GetObjectVersionAcl. Granted on the
 * bucket's ARN they would allow nothing, so a rule's new object read must land here.
 */
function isObjectAction(action: string): boolean {
  return action.startsWith('s3:GetObject');
}

function lockTables(registry: Registry): Array<{ table: string; region: string }> {
  const tables = new Map<string, { table: string; region: string }>();
  for (const { backend } of registry.workspaces)
    if (backend.lockTable)
      tables.set(`${backend.region}/${backend.lockTable}`, {
        table: backend.lockTable,
        region: backend.region,
      });
  return [...tables.values()];
}

function bucketArn(bucket: string): string {
  return `arn:${Aws.PARTITION}:s3:::${bucket}`;
}

function objectArn(bucket: string, key: string): string {
  return `arn:${Aws.PARTITION}:s3:::${bucket}/${key}`;
}

function objectsArn(bucket: string): string {
  return `arn:${Aws.PARTITION}:s3:::${bucket}/*`;
}

function tableArn(table: string, region: string, account: string): string {
  return `arn:${Aws.PARTITION}:dynamodb:${region}:${account}:table/${table}`;
}

function s3ObjectArn(uri: string): string {
  const path = uri.replace(/^s3:\/\//, '');
  return `arn:${Aws.PARTITION}:s3:::${path}`;
}

/** A secret by ARN, or by name: Secrets Manager appends six random characters to the name's ARN. */
function secretArn(reference: string): string {
  if (reference.startsWith('arn:')) return reference;
  return `arn:${Aws.PARTITION}:secretsmanager:${Aws.REGION}:${Aws.ACCOUNT_ID}:secret:${reference}-??????`;
}

function acknowledgeObjects(scope: Construct, bucket: string): void {
  acknowledgeWildcardResource(
    scope,
    `arn:<AWS::Partition>:s3:::${bucket}/*`,
    `Terraform state bucket ${bucket} of the registry: its state objects, their versions and lock files are found by listing at run time; read-only (writes are explicitly denied).`,
  );
}
