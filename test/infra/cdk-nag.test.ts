import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../infra/app.js';
import { scratchDir } from '../helpers/scratch-dirs.js';
import { assemblyDir, cdkJsonContext, SAMPLE_REGISTRY, SYNTH_TIMEOUT_MS } from './synth.js';

// Some tests synthesize another variant of the app: seconds each, more on a loaded machine.
vi.setConfig({ testTimeout: SYNTH_TIMEOUT_MS });

function appWith(context: Record<string, unknown>): App {
  return new App({
    outdir: assemblyDir('driftwatch-nag-'),
    context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [], ...context },
  });
}

function violations(app: App): string[] {
  return new AwsSolutionsChecks()
    .validateScope(app)
    .violations.flatMap((violation) =>
      violation.violatingResources.map((resource) => `${violation.ruleName} at ${resource.constructPath}`),
    );
}

/** Every acknowledgement recorded in the construct tree: rule id → reasons. */
function acknowledgements(root: IConstruct): Array<{ id: string; reason: string; path: string }> {
  return root.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({
          id: id.replace(/^annotation::/i, ''),
          reason,
          path: construct.node.path,
        })),
      ),
  );
}

const CASES = {
  'driftwatch (sample registry, Slack channels on)': { registry: SAMPLE_REGISTRY, chatbot: 'true' },
  'driftwatch (example estate, defaults)': {},
  'target-account role': { stack: 'target-account', driftwatchAccount: '999999999999', externalId: 'x-1234' },
};

describe('cdk-nag AwsSolutions', () => {
  for (const [name, context] of Object.entries(CASES)) {
    it(`finds nothing unacknowledged in ${name}, and synth passes its validation`, () => {
      const app = buildApp(appWith(context));
      expect(violations(app)).toEqual([]);
      expect(() => app.synth()).not.toThrow();
    });
  }

  it('acknowledges findings one by one, each with its own reason', () => {
    const app = buildApp(appWith({ registry: SAMPLE_REGISTRY, chatbot: 'true' }));
    const acks = acknowledgements(app).filter((ack) => ack.id.startsWith('AwsSolutions-'));
    expect(acks.length).toBeGreaterThan(0);
    for (const ack of acks) {
      // A wildcard finding is acknowledged for its one action or resource, never the whole rule.
      if (ack.id.startsWith('AwsSolutions-IAM5'))
        expect(ack.id, ack.path).toMatch(/^AwsSolutions-IAM5\[(Action|Resource)::.+\]$/);
      expect(ack.reason.length, `${ack.id} at ${ack.path}`).toBeGreaterThan(40);
    }
    // No acknowledgement on the stack or the app itself: each sits on the construct it is about.
    expect(acks.filter((ack) => !ack.path.includes('/'))).toEqual([]);
  });

  it('acknowledges Resource::* only for actions IAM cannot scope, each named in its reason', () => {
    const app = buildApp(
      appWith({
        registry: SAMPLE_REGISTRY,
        chatbot: 'true',
        providerMirror: 'true',
        vpcId: 'vpc-0123456789abcdef0',
        vpcSubnetIds: 'subnet-0123456789abcdef0',
        vpcSecurityGroupIds: 'sg-0123456789abcdef0',
      }),
    );
    // Actions that support no resource-level permission: the only ones a role may hold on `*`.
    const UNSCOPABLE =
      /^(xray:(PutTraceSegments|PutTelemetryRecords|GetSampling(Rules|Targets))|ecr:GetAuthorizationToken|logs:(CreateLogDelivery|DeleteLogDelivery|DescribeLogGroups|DescribeResourcePolicies|GetLogDelivery|ListLogDeliveries|PutResourcePolicy|UpdateLogDelivery)|ec2:(CreateNetworkInterface|DescribeNetworkInterfaces|DeleteNetworkInterface|AssignPrivateIpAddresses|UnassignPrivateIpAddresses|DescribeDhcpOptions|DescribeSubnets|DescribeSecurityGroups|DescribeVpcs))$/;
    const policies = app.node
      .findAll()
      .filter((construct): construct is iam.CfnPolicy => construct instanceof iam.CfnPolicy);
    expect(policies.length).toBeGreaterThan(0);
    const ackIds = new Set(acknowledgements(app).map((ack) => ack.id));
    expect(ackIds).toContain('AwsSolutions-IAM5[Resource::*]');
    for (const policy of policies) {
      const document = Stack.of(policy).resolve(policy.policyDocument) as {
        Statement: Array<{ Effect: string; Action: string | string[]; Resource: unknown }>;
      };
      const onEverything = document.Statement.filter(
        (statement) => statement.Effect === 'Allow' && [statement.Resource].flat().includes('*'),
      ).flatMap((statement) => [statement.Action].flat());
      if (onEverything.length === 0) continue;
      // The reasons of the acknowledgements that reach this policy (on it or on a construct above it).
      const reasons = acknowledgements(app)
        .filter((ack) => ack.id === 'AwsSolutions-IAM5[Resource::*]')
        .filter((ack) => policy.node.path === ack.path || policy.node.path.startsWith(`${ack.path}/`))
        .map((ack) => ack.reason.toLowerCase().replace(/-/g, ''));
      for (const action of onEverything) {
        expect(action, policy.node.path).toMatch(UNSCOPABLE);
        const [service, name] = action.toLowerCase().split(':') as [string, string];
        expect(
          reasons.some(
            (reason) => reason.includes(`${service}:`) || reason.includes(name) || reason.includes(service),
          ),
          `${action} at ${policy.node.path}: ${reasons.join(' | ')}`,
        ).toBe(true);
      }
    }
  });

  it('fails synth on a finding nobody acknowledged (the gate works)', () => {
    const app = buildApp(appWith({ registry: SAMPLE_REGISTRY }));
    const stack = app.node.children.find((child): child is Stack => child instanceof Stack);
    if (!stack) throw new Error('no stack');
    new s3.Bucket(stack, 'Careless', { enforceSSL: false });
    expect(violations(app)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^AwsSolutions-S10 at .*Careless/)]),
    );
    expect(() => app.synth()).toThrow(/AwsSolutions-S10/);
  });
});

describe('the registry at synth', () => {
  it('fails synth with the registry’s own file:line:column problems', () => {
    const dir = scratchDir('driftwatch-bad-registry-');
    const file = join(dir, 'driftwatch.yaml');
    writeFileSync(
      file,
      'version: 1\nowners:\n  fallback: platform\n  teams: []\nworkspaces:\n  - id: a\n    bakend: {}\n',
    );
    expect(() => buildApp(appWith({ registry: file }))).toThrow(
      /driftwatch\.yaml:7:5 .*bakend.*did you mean 'backend'/s,
    );
  });

  it('rejects out-of-range context values by name', () => {
    expect(() => buildApp(appWith({ scanConcurrency: '0' }))).toThrow(
      'context scanConcurrency must be an integer from 1 to 10000, got 0',
    );
    expect(() => buildApp(appWith({ logRetentionDays: '10' }))).toThrow(/logRetentionDays must be one of/);
    expect(() => buildApp(appWith({ registry: '/nonexistent/driftwatch.yaml' }))).toThrow(
      /cannot read the registry \/nonexistent\/driftwatch.yaml/,
    );
  });
});
