import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { backendReadActions } from '../../functions/core/backend/rules/index.js';
import { buildApp } from '../../infra/app.js';
import {
  DENIED_LOCK_TABLE_WRITES,
  DENIED_STATE_BUCKET_CHANGES,
  DENIED_STATE_WRITES,
} from '../../infra/constructs/target-read-access.js';
import { SCANNER_HANDLERS } from '../../infra/scanner-roles.js';
import { scratchDir } from '../helpers/scratch-dirs.js';
import {
  cdkJsonContext,
  type PolicyStatement,
  SYNTH_TIMEOUT_MS,
  type Synthesized,
  statementsOfRole as statementsOfTemplateRole,
  synthesize,
} from './synth.js';

let synthesized: Synthesized;
beforeAll(() => {
  synthesized = synthesize();
}, SYNTH_TIMEOUT_MS);

type Statement = PolicyStatement;
const statementsOfRole = (rolePrefix: string): Statement[] =>
  statementsOfTemplateRole(synthesized.template, rolePrefix);

const arn = (path: string) => ({ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, path]] });
const actions = (statement: Statement | undefined) => [statement?.Action ?? []].flat();
const SCANNER_ROLE_PREFIXES = [
  'ScanTerraformRole',
  'ScanClusterRole',
  'CheckBackendRole',
  'ObserveLocksRole',
  'ConfirmLocksRole',
];

describe('scanner roles', () => {
  it('explicitly deny writing any state object of the registry’s state buckets', () => {
    for (const prefix of SCANNER_ROLE_PREFIXES) {
      const deny = statementsOfRole(prefix).find((statement) => statement.Sid === 'DenyStateWrites');
      expect(deny, prefix).toEqual({
        Sid: 'DenyStateWrites',
        Effect: 'Deny',
        Action: DENIED_STATE_WRITES,
        Resource: [arn(':s3:::tfstate-prod/*'), arn(':s3:::tfstate-staging/*')],
      });
      expect(
        statementsOfRole(prefix).find((statement) => statement.Sid === 'DenyStateBucketChanges'),
      ).toEqual({
        Sid: 'DenyStateBucketChanges',
        Effect: 'Deny',
        Action: DENIED_STATE_BUCKET_CHANGES,
        Resource: [arn(':s3:::tfstate-prod'), arn(':s3:::tfstate-staging')],
      });
    }
  });

  // IAM action patterns: `*` any run of characters, `?` one, case-insensitive.
  const matches = (pattern: string, action: string) =>
    new RegExp(
      `^${pattern
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/\?/g, '.')}$`,
      'i',
    ).test(action);
  const deniedBy = (patterns: readonly string[], action: string) =>
    patterns.some((pattern) => matches(pattern, action));
  const WRITES: Array<[string, readonly string[], string[]]> = [
    [
      'state objects',
      DENIED_STATE_WRITES,
      [
        's3:PutObject',
        's3:PutObjectAcl',
        's3:PutObjectVersionAcl',
        's3:PutObjectTagging',
        's3:PutObjectRetention',
        's3:PutObjectLegalHold',
        's3:BypassGovernanceRetention',
        's3:DeleteObject',
        's3:DeleteObjectVersion',
        's3:DeleteObjectTagging',
        's3:ReplicateObject',
        's3:ReplicateDelete',
        's3:RestoreObject',
      ],
    ],
    [
      'state buckets',
      DENIED_STATE_BUCKET_CHANGES,
      [
        's3:PutBucketPolicy',
        's3:DeleteBucketPolicy',
        's3:PutBucketVersioning',
        's3:PutBucketPublicAccessBlock',
        's3:PutBucketAcl',
        's3:PutBucketOwnershipControls',
        's3:PutEncryptionConfiguration',
        's3:PutLifecycleConfiguration',
        's3:PutReplicationConfiguration',
        's3:DeleteBucket',
      ],
    ],
    [
      'lock tables',
      DENIED_LOCK_TABLE_WRITES,
      [
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
        'dynamodb:BatchWriteItem',
        'dynamodb:PartiQLInsert',
        'dynamodb:PartiQLUpdate',
        'dynamodb:PartiQLDelete',
        'dynamodb:DeleteTable',
      ],
    ],
  ];
  it.each(WRITES)(
    'deny every write to %s, by any API, and none of the reads the scans make',
    (_what, denied, writes) => {
      for (const action of writes) expect(deniedBy(denied, action), action).toBe(true);
      const reads = [
        ...backendReadActions(),
        's3:GetObject',
        's3:ListBucket',
        'dynamodb:GetItem',
        'dynamodb:Query',
      ];
      for (const action of reads) expect(deniedBy(denied, action), action).toBe(false);
    },
  );

  it('explicitly deny DynamoDB writes on the registry’s lock tables, in any account', () => {
    for (const prefix of SCANNER_ROLE_PREFIXES) {
      const deny = statementsOfRole(prefix).find((statement) => statement.Sid === 'DenyLockTableWrites');
      expect(deny, prefix).toEqual({
        Sid: 'DenyLockTableWrites',
        Effect: 'Deny',
        Action: DENIED_LOCK_TABLE_WRITES,
        Resource: arn(':dynamodb:eu-central-1:*:table/tf-locks'),
      });
    }
  });

  it('may assume exactly the registry’s workspace roles, nothing else in STS', () => {
    const assume = statementsOfRole('ScanTerraformRole').find(
      (statement) => statement.Sid === 'AssumeWorkspaceReadRoles',
    );
    expect(assume).toEqual({
      Sid: 'AssumeWorkspaceReadRoles',
      Effect: 'Allow',
      Action: 'sts:AssumeRole',
      Resource: [
        'arn:aws:iam::111111111111:role/driftwatch-read',
        'arn:aws:iam::333333333333:role/driftwatch-read',
      ],
    });
  });

  it("allow only reads on the estate: no write action outside driftwatch's own buckets", () => {
    for (const prefix of SCANNER_ROLE_PREFIXES) {
      const writes = statementsOfRole(prefix)
        .filter((statement) => statement.Effect === 'Allow')
        .filter((statement) =>
          actions(statement).some((action) =>
            /^(s3:(Put|Delete)|dynamodb:(Put|Update|Delete|BatchWrite))/.test(action),
          ),
        );
      for (const statement of writes) {
        const resource = JSON.stringify(statement.Resource);
        // ScanTerraform alone also fills the Terraform binary cache (verified on every read).
        if (prefix === 'ScanTerraformRole' && statement.Sid === 'TerraformBinaryCacheObjects')
          expect(resource).toMatch(
            /^\{"Fn::Join":\["",\[\{"Fn::GetAtt":\["TerraformBinaryCacheBucket\w+","Arn"\]\},"\/terraform-binaries\/\*"\]\]\}$/,
          );
        else expect(resource, prefix).toMatch(/FindingsBucket/);
      }
    }
  });

  it('grant the backend checks every read action the backend rules declare, on the state buckets only', () => {
    const statements = statementsOfRole('CheckBackendRole').filter((statement) =>
      statement.Sid?.startsWith('Read'),
    );
    const granted = new Set(statements.flatMap(actions));
    for (const action of backendReadActions()) expect(granted, action).toContain(action);
    const settings = statements.find((statement) => statement.Sid === 'ReadStateBucketSettings');
    expect(settings?.Resource).toEqual([arn(':s3:::tfstate-prod'), arn(':s3:::tfstate-staging')]);
    // Object reads (bodies and object ACLs) granted on the bucket's ARN would allow nothing.
    expect(actions(settings!).filter((action) => action.startsWith('s3:GetObject'))).toEqual([]);
    const objects = statements.find((statement) => statement.Sid === 'ReadStateObjectVersions');
    expect(actions(objects!)).toEqual(
      expect.arrayContaining(['s3:GetObjectVersion', 's3:GetObjectAcl', 's3:GetObjectVersionAcl']),
    );
    expect(objects?.Resource).toEqual([arn(':s3:::tfstate-prod/*'), arn(':s3:::tfstate-staging/*')]);
    const tables = statements.find((statement) => statement.Sid === 'ReadLockTables');
    expect(tables?.Resource).toEqual({
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':dynamodb:eu-central-1:',
          { Ref: 'AWS::AccountId' },
          ':table/tf-locks',
        ],
      ],
    });
  });

  it('read the S3 source bundles and the Argo CD token secret by name, exactly', () => {
    const sources = statementsOfRole('ScanTerraformRole').find(
      (statement) => statement.Sid === 'ReadSourceBundles',
    );
    expect(sources?.Resource).toEqual([
      arn(':s3:::estate-bundles/data.tgz'),
      arn(':s3:::estate-bundles/payments.tgz'),
    ]);
    const tokens = statementsOfRole('ScanClusterRole').find(
      (statement) => statement.Sid === 'ReadArgoCdTokens',
    );
    expect(tokens?.Action).toBe('secretsmanager:GetSecretValue');
    expect(JSON.stringify(tokens?.Resource)).toContain(':secret:driftwatch/argocd-prod-??????');
  });

  it('read the Secrets Manager secrets of sensitive variables, exactly those, and only in ScanTerraform', () => {
    const secrets = statementsOfRole('ScanTerraformRole').find(
      (statement) => statement.Sid === 'ReadTerraformVariableSecrets',
    );
    expect(secrets?.Action).toBe('secretsmanager:GetSecretValue');
    const resources = [secrets?.Resource ?? []].flat();
    // A name becomes the account's secret ARN with the suffix Secrets Manager appends; an ARN stays as it is.
    expect(resources).toHaveLength(2);
    expect(JSON.stringify(resources)).toContain(':secret:payments/db-password-??????');
    expect(resources).toContain(
      'arn:aws:secretsmanager:eu-west-1:444444444444:secret:payments/api-key-AbCdEf',
    );
    // An { env } reference is read from the environment: it grants nothing.
    expect(JSON.stringify(resources)).not.toContain('PAYMENTS_LOCAL_TOKEN');
    for (const prefix of SCANNER_ROLE_PREFIXES.filter((name) => name !== 'ScanTerraformRole'))
      expect(
        statementsOfRole(prefix).some((statement) => statement.Sid === 'ReadTerraformVariableSecrets'),
        prefix,
      ).toBe(false);
  });

  it('read only the registered state objects they read with their own credentials: exact keys, no old versions', () => {
    const dir = scratchDir('driftwatch-state-grants-');
    const registry = join(dir, 'driftwatch.yaml');
    const workspace = (id: string, backend: string, role = '') =>
      `  - { id: ${id}, owner: platform, environment: prod, source: { s3: "s3://bundles/${id}.tgz" }, backend: ${backend}${role} }`;
    writeFileSync(
      registry,
      [
        'version: 1',
        'owners:',
        '  fallback: platform',
        '  teams: [{ id: platform, destinations: [{ type: email, address: ops@example.com }] }]',
        'workspaces:',
        workspace('app', '{ bucket: shared-state, key: app/terraform.tfstate, region: eu-west-1 }'),
        workspace(
          'app-staging',
          '{ bucket: shared-state, key: app/terraform.tfstate, region: eu-west-1, workspace: staging, workspaceKeyPrefix: envs }',
        ),
        workspace('cli', '{ bucket: other-state, key: cli.tfstate, region: eu-west-1, workspace: blue }'),
        workspace(
          'remote',
          '{ bucket: remote-state, key: remote.tfstate, region: eu-west-1 }',
          ', roleArn: "arn:aws:iam::111111111111:role/driftwatch-read", externalId: x-1234',
        ),
      ].join('\n'),
    );
    const variant = synthesize({ registry });
    for (const role of ['ScanTerraformRole', 'ScanClusterRole']) {
      const statements = statementsOfTemplateRole(variant.template, role);
      const read = statements.find((statement) => statement.Sid === 'ReadStateObjects');
      expect(read, role).toEqual({
        Sid: 'ReadStateObjects',
        Effect: 'Allow',
        Action: 's3:GetObject',
        Resource: [
          arn(':s3:::other-state/env:/blue/cli.tfstate'),
          arn(':s3:::shared-state/app/terraform.tfstate'),
          arn(':s3:::shared-state/envs/staging/app/terraform.tfstate'),
        ],
      });
      const list = statements.find((statement) => statement.Sid === 'ListStateBuckets');
      expect(list?.Resource, role).toEqual([arn(':s3:::other-state'), arn(':s3:::shared-state')]);
      // remote-state is read with the workspace's role; the scanner's own role is only denied writing it.
      const allowed = statements.filter((statement) => statement.Effect === 'Allow');
      expect(JSON.stringify(allowed), role).not.toContain('remote-state');
      expect(allowed.flatMap(actions), role).not.toContain('s3:GetObjectVersion');
    }
  });

  it('have fixed names the target-account role can trust', () => {
    for (const handler of SCANNER_HANDLERS)
      synthesized.template.hasResourceProperties('AWS::IAM::Role', {
        RoleName: `Driftwatch-scanner-${handler}`,
      });
  });

  it('read the hash salt from Secrets Manager at cold start, never from a plain environment value', () => {
    synthesized.template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: { PasswordLength: 48, ExcludePunctuation: true },
    });
    for (const prefix of ['ScanTerraformFunction', 'ScanClusterFunction']) {
      const [fn] = Object.entries(synthesized.template.findResources('AWS::Lambda::Function'))
        .filter(([id]) => id.startsWith(prefix))
        .map(
          ([, resource]) =>
            resource as { Properties: { Environment: { Variables: Record<string, unknown> } } },
        );
      expect(fn?.Properties.Environment.Variables.DRIFTWATCH_HASH_SALT_SECRET_ARN, prefix).toEqual({
        Ref: expect.stringMatching(/^HashSalt/),
      });
      expect(fn?.Properties.Environment.Variables).not.toHaveProperty('DRIFTWATCH_HASH_SALT');
    }
  });
});

describe('the target-account stack', () => {
  let template: Template;
  beforeAll(() => {
    const app = new App({
      outdir: scratchDir('driftwatch-cdk-test-'),
      context: {
        ...cdkJsonContext(),
        stack: 'target-account',
        driftwatchAccount: '999999999999',
        externalId: 'driftwatch-7f3a',
      },
    });
    buildApp(app);
    const stack = app.node.findChild('DriftwatchTargetAccount');
    if (!Stack.isStack(stack)) throw new Error('no target-account stack');
    template = Template.fromStack(stack);
  }, SYNTH_TIMEOUT_MS);

  it('is a read-only role trusted only by driftwatch’s scanner roles with the external id', () => {
    template.hasResourceProperties('AWS::IAM::Role', {
      RoleName: 'driftwatch-read',
      MaxSessionDuration: 3600,
      ManagedPolicyArns: [arn(':iam::aws:policy/ReadOnlyAccess')],
      AssumeRolePolicyDocument: {
        Statement: [
          {
            Effect: 'Allow',
            Action: 'sts:AssumeRole',
            Principal: { AWS: arn(':iam::999999999999:root') },
            Condition: {
              StringEquals: { 'sts:ExternalId': 'driftwatch-7f3a' },
              ArnEquals: {
                'aws:PrincipalArn': SCANNER_HANDLERS.map((handler) =>
                  arn(`:iam::999999999999:role/Driftwatch-scanner-${handler}`),
                ),
              },
            },
          },
        ],
      },
    });
  });

  it('explicitly denies every S3 object write, bucket change and DynamoDB item write through the role', () => {
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: [
          { Sid: 'DenyStateWrites', Effect: 'Deny', Action: DENIED_STATE_WRITES, Resource: arn(':s3:::*/*') },
          {
            Sid: 'DenyStateBucketChanges',
            Effect: 'Deny',
            Action: DENIED_STATE_BUCKET_CHANGES,
            Resource: arn(':s3:::*'),
          },
          {
            Sid: 'DenyLockTableWrites',
            Effect: 'Deny',
            Action: DENIED_LOCK_TABLE_WRITES,
            Resource: arn(':dynamodb:*:*:table/*'),
          },
        ],
      },
      Roles: [{ Ref: Match.stringLikeRegexp('^ReadRole') }],
    });
  });

  it('requires the driftwatch account and the external id', () => {
    const app = new App({
      outdir: scratchDir('driftwatch-cdk-test-'),
      context: { ...cdkJsonContext(), stack: 'target-account', driftwatchAccount: '999999999999' },
    });
    expect(() => buildApp(app)).toThrow('-c externalId=… is required for the target-account stack');
  });
});
