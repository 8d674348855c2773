import { beforeAll, describe, expect, it } from 'vitest';
import type { HandlerName } from '../../infra/constructs/driftwatch-function.js';
import { DENIED_HISTORY_DELETES } from '../../infra/constructs/findings-storage.js';
import { FINDINGS_ACCESS, findingsGrant } from '../../infra/findings-access.js';
import { SYNTH_TIMEOUT_MS, type Synthesized, synthesize } from './synth.js';

let synthesized: Synthesized;
beforeAll(() => {
  synthesized = synthesize();
}, SYNTH_TIMEOUT_MS);

type Statement = {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Principal?: unknown;
  Condition?: unknown;
};
type PolicyResource = {
  Properties: { PolicyDocument: { Statement: Statement[] }; Roles: Array<{ Ref: string }> };
};

const HANDLERS = Object.keys(FINDINGS_ACCESS) as HandlerName[];
const pascal = (handler: string) =>
  handler.replace(/(^|-)([a-z])/g, (_match, _dash: string, letter: string) => letter.toUpperCase());

function statementsOf(handler: HandlerName): Statement[] {
  const role = `${pascal(handler)}Role`;
  const policies = Object.values(synthesized.template.findResources('AWS::IAM::Policy')) as PolicyResource[];
  return policies
    .filter((policy) => policy.Properties.Roles.some((ref) => ref.Ref.startsWith(role)))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
}

/** `Fn::Join ['', [{GetAtt FindingsBucket.Arn}, '/current/*']]` → `current/*`; other resources are not ours. */
function findingsObjectPattern(resource: unknown): string | undefined {
  const join = (resource as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (!join) return undefined;
  const [first, suffix] = join[1];
  const getAtt = (first as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt'];
  if (!getAtt?.[0].startsWith('FindingsBucket') || typeof suffix !== 'string') return undefined;
  return suffix.slice(1);
}

/** Object keys patterns of the findings bucket the role may use with this action. */
function grantedPatterns(handler: HandlerName, action: string): string[] {
  return statementsOf(handler)
    .filter((statement) => statement.Effect === 'Allow')
    .filter((statement) =>
      [statement.Action].flat().some((granted) => granted === action || granted === 's3:*'),
    )
    .flatMap((statement) => [statement.Resource].flat().map(findingsObjectPattern))
    .filter((pattern): pattern is string => pattern !== undefined)
    .sort();
}

const patterns = (prefixes: readonly string[]) => prefixes.map((prefix) => `${prefix}*`).sort();

describe('findings bucket grants, per function and prefix', () => {
  it('each function may get, put and delete exactly the prefixes its code path uses, never the whole bucket', () => {
    for (const handler of HANDLERS) {
      const grant = findingsGrant(FINDINGS_ACCESS[handler]);
      expect(grantedPatterns(handler, 's3:GetObject'), `${handler} get`).toEqual(patterns(grant.read));
      expect(grantedPatterns(handler, 's3:PutObject'), `${handler} put`).toEqual(patterns(grant.write));
      expect(grantedPatterns(handler, 's3:DeleteObject'), `${handler} delete`).toEqual(
        patterns(grant.delete),
      );
      for (const action of ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'])
        expect(grantedPatterns(handler, action), `${handler} ${action}`).not.toContain('*');
    }
  });

  it('only RecordFindings writes current/ and history (scans/)', () => {
    for (const handler of HANDLERS) {
      const puts = grantedPatterns(handler, 's3:PutObject');
      const writesRecords = puts.includes('current/*') || puts.includes('scans/*');
      expect(writesRecords, handler).toBe(handler === 'record-findings');
    }
    expect(grantedPatterns('record-findings', 's3:PutObject')).toEqual(
      expect.arrayContaining(['current/*', 'scans/*']),
    );
  });

  it('NotifyOwners writes only notifications/ (and its corrupt ones to quarantine/notifications/)', () => {
    expect(grantedPatterns('notify-owners', 's3:PutObject')).toEqual([
      'notifications/*',
      'quarantine/notifications/*',
    ]);
    expect(grantedPatterns('notify-owners', 's3:DeleteObject')).toEqual(['notifications/*']);
  });

  it('deletes only on notifications/, only by the two functions that empty the outbox', () => {
    const deleting = HANDLERS.filter((handler) => grantedPatterns(handler, 's3:DeleteObject').length > 0);
    expect(deleting.sort()).toEqual(['check-health', 'notify-owners']);
    for (const handler of deleting)
      expect(grantedPatterns(handler, 's3:DeleteObject')).toEqual(['notifications/*']);
  });

  it('the scanners, which run Terraform providers and modules, write only the scan scratch space (and locks/)', () => {
    for (const handler of ['scan-terraform', 'scan-cluster', 'check-backend', 'confirm-locks'] as const)
      expect(grantedPatterns(handler, 's3:PutObject'), handler).toEqual(['scratch/*']);
    expect(grantedPatterns('observe-locks', 's3:PutObject')).toEqual(['locks/*']);
  });

  it('the query API only reads current/', () => {
    expect(grantedPatterns('query-findings', 's3:GetObject')).toEqual(['current/*']);
    expect(grantedPatterns('query-findings', 's3:PutObject')).toEqual([]);
  });

  it('functions that may not write current/ record through pending records (DRIFTWATCH_RECORDING=deferred)', () => {
    const functions = synthesized.template.findResources('AWS::Lambda::Function');
    for (const handler of HANDLERS) {
      const [fn] = Object.entries(functions)
        .filter(([id]) => id.startsWith(`${pascal(handler)}Function`))
        .map(
          ([, resource]) =>
            resource as { Properties: { Environment: { Variables: Record<string, unknown> } } },
        );
      const recording = fn?.Properties.Environment.Variables.DRIFTWATCH_RECORDING;
      const recordsFindings = [
        'check-backend',
        'observe-locks',
        'confirm-locks',
        'scan-terraform',
        'scan-cluster',
        'record-scan-failure',
      ];
      expect(recording, handler).toBe(recordsFindings.includes(handler) ? 'deferred' : undefined);
    }
  });
});

describe('findings bucket grants, of every role of the stack', () => {
  /** A resource as text, the findings bucket's name written `<findings>` however the template refers to it. */
  function flatten(value: unknown): string {
    if (typeof value === 'string') return value;
    const record = (value ?? {}) as Record<string, unknown>;
    if (Array.isArray(record['Fn::Join'])) {
      const [delimiter, parts] = record['Fn::Join'] as [string, unknown[]];
      return parts.map(flatten).join(delimiter);
    }
    const getAtt = record['Fn::GetAtt'] as [string, string] | undefined;
    if (getAtt) return getAtt[0].startsWith('FindingsBucket') ? 'arn:aws:s3:::<findings>' : `<${getAtt[0]}>`;
    if (typeof record.Ref === 'string')
      return record.Ref.startsWith('FindingsBucket') ? '<findings>' : `<${record.Ref}>`;
    return JSON.stringify(value);
  }

  it('name a prefix for every object grant: no role (the state machine included) reads or writes the whole bucket', () => {
    const policies = Object.entries(synthesized.template.findResources('AWS::IAM::Policy')) as Array<
      [string, PolicyResource]
    >;
    const objectGrants = policies.flatMap(([id, policy]) =>
      policy.Properties.PolicyDocument.Statement.filter((statement) => statement.Effect === 'Allow').flatMap(
        (statement) =>
          [statement.Resource]
            .flat()
            .map(flatten)
            .filter((resource) => resource.startsWith('arn:aws:s3:::<findings>/'))
            .map((resource) => `${id}: ${resource.slice('arn:aws:s3:::<findings>/'.length)}`),
      ),
    );
    expect(objectGrants.some((grant) => grant.startsWith('ScanStateMachineRole'))).toBe(true);
    for (const grant of objectGrants) expect(grant).toMatch(/: [a-z-]+\/([a-z-]+\/)?\*$/);
    // The Maps read LoadRegistry's item lists and write their results in scratch/, nothing else.
    expect(objectGrants.filter((grant) => grant.startsWith('ScanStateMachineRole')).sort()).toEqual([
      expect.stringMatching(/: scratch\/\*$/),
      expect.stringMatching(/: scratch\/map-results\/\*$/),
    ]);
  });
});

describe('long plans in CodeBuild', () => {
  it('record through pending records too, with the ScanTerraform role (which may not write current/)', () => {
    const projects = Object.values(synthesized.template.findResources('AWS::CodeBuild::Project')) as Array<{
      Properties: {
        ServiceRole: unknown;
        Environment: { EnvironmentVariables: Array<{ Name: string; Value: unknown }> };
      };
    }>;
    expect(projects).toHaveLength(1);
    const [project] = projects;
    expect(JSON.stringify(project!.Properties.ServiceRole)).toMatch(/ScanTerraformRole/);
    expect(project!.Properties.Environment.EnvironmentVariables).toContainEqual(
      expect.objectContaining({ Name: 'DRIFTWATCH_RECORDING', Value: 'deferred' }),
    );
  });
});

describe('history immutability (bucket policy)', () => {
  const bucketStatements = () =>
    Object.values(synthesized.template.findResources('AWS::S3::BucketPolicy'))
      .filter((policy) =>
        JSON.stringify((policy as { Properties: { Bucket: unknown } }).Properties.Bucket).includes(
          'FindingsBucket',
        ),
      )
      .flatMap(
        (policy) =>
          (policy as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties.PolicyDocument
            .Statement,
      );
  const historyResource = {
    'Fn::Join': ['', [{ 'Fn::GetAtt': [expect.stringMatching(/^FindingsBucket/), 'Arn'] }, '/scans/*']],
  };

  it('denies every principal deleting any history object or version', () => {
    const deny = bucketStatements().find((statement) => statement.Sid === 'DenyHistoryDeletes');
    expect(deny).toEqual({
      Sid: 'DenyHistoryDeletes',
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Action: DENIED_HISTORY_DELETES,
      Resource: historyResource,
    });
    expect(DENIED_HISTORY_DELETES).toEqual(['s3:DeleteObject', 's3:DeleteObjectVersion']);
  });

  it('denies every principal but the RecordFindings role writing history', () => {
    const deny = bucketStatements().find(
      (statement) => statement.Sid === 'DenyHistoryWritesButRecordFindings',
    );
    expect(deny).toEqual({
      Sid: 'DenyHistoryWritesButRecordFindings',
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Action: 's3:PutObject',
      Resource: historyResource,
      Condition: {
        ArnNotEquals: {
          'aws:PrincipalArn': { 'Fn::GetAtt': [expect.stringMatching(/^RecordFindingsRole/), 'Arn'] },
        },
      },
    });
  });

  it('keeps every version of history: no lifecycle rule expires noncurrent versions under scans/', () => {
    const [bucket] = Object.entries(synthesized.template.findResources('AWS::S3::Bucket'))
      .filter(([id]) => id.startsWith('FindingsBucket'))
      .map(
        ([, resource]) =>
          resource as { Properties: { LifecycleConfiguration: { Rules: Array<Record<string, unknown>> } } },
      );
    const rules = bucket?.Properties.LifecycleConfiguration.Rules ?? [];
    const expiring = rules.filter((rule) => rule.NoncurrentVersionExpiration !== undefined);
    expect(expiring.length).toBeGreaterThan(0);
    for (const rule of expiring) {
      // A rule without a prefix would cover scans/ too.
      expect(typeof rule.Prefix, JSON.stringify(rule)).toBe('string');
      expect(String(rule.Prefix).startsWith('scans/'), JSON.stringify(rule)).toBe(false);
    }
    expect(expiring.map((rule) => rule.Prefix)).toContain('current/');
  });
});

describe('query API scoping (-c queryAccess)', () => {
  const queryEnvironment = (template: Synthesized['template']) => {
    const [fn] = Object.entries(template.findResources('AWS::Lambda::Function'))
      .filter(([id]) => id.startsWith('QueryFindingsFunction'))
      .map(
        ([, resource]) => resource as { Properties: { Environment: { Variables: Record<string, unknown> } } },
      );
    return JSON.parse(String(fn?.Properties.Environment.Variables.DRIFTWATCH_QUERY_ACCESS));
  };

  it(
    'passes the mapping and the registry’s fallback owner to QueryFindings',
    () => {
      const { template } = synthesize({
        queryAccess: {
          admins: ['arn:aws:iam::111111111111:role/platform-admin'],
          owners: { payments: ['arn:aws:iam::111111111111:role/payments-*'] },
        },
      });
      expect(queryEnvironment(template)).toEqual({
        admins: ['arn:aws:iam::111111111111:role/platform-admin'],
        owners: { payments: ['arn:aws:iam::111111111111:role/payments-*'] },
        fallbackOwner: 'platform',
      });
    },
    SYNTH_TIMEOUT_MS,
  );

  it('without the setting, the API is closed (nobody mapped) and synth warns', () => {
    expect(queryEnvironment(synthesized.template)).toEqual({
      admins: [],
      owners: {},
      fallbackOwner: 'platform',
    });
    const warnings = synthesized.stack.node.metadata
      .filter((entry) => entry.type === 'aws:cdk:warning')
      .map((entry) => String(entry.data));
    expect(warnings.some((warning) => warning.includes('no -c queryAccess'))).toBe(true);
  });

  it('refuses owners that are not teams of the registry, and patterns that are not ARNs', () => {
    expect(() =>
      synthesize({ queryAccess: '{"admins":[],"owners":{"payroll":["arn:aws:iam::1:role/x"]}}' }),
    ).toThrow(
      '-c queryAccess: owners payroll are not teams of the registry (teams: platform, payments, data)',
    );
    expect(() => synthesize({ queryAccess: { admins: ['platform-admin'], owners: {} } })).toThrow(
      "-c queryAccess: query access admins.0: an ARN pattern starts with 'arn:'",
    );
  });
});
