import type { WorkspaceConfig } from '../../../../functions/core/registry/model.js';
import type {
  IdentityCheck,
  PlanRun,
  ScanPorts,
  StateVersion,
  TerraformRunError,
} from '../../../../functions/core/scan/ports.js';
import type { ConfigurationFacts } from '../../../../functions/core/terraform/configuration.js';
import type { CompactChange, CompactPlan } from '../../../../functions/core/terraform/index.js';
import type { FailedRead } from '../../../../functions/core/terraform/provider-log.js';

/** The workspace, plans and fake ports the scanWorkspace tests share. */

export const workspace: WorkspaceConfig = {
  id: 'payments-prod',
  owner: 'payments',
  environment: 'prod',
  source: { dir: 'infra/payments' },
  backend: { bucket: 'tfstate', key: 'payments/terraform.tfstate', region: 'eu-west-1' },
  routes: [],
  env: {},
  varFiles: [],
};

export const now = new Date('2026-11-29T02:00:00Z');

const managed = ['aws_s3_bucket.ledger', 'aws_security_group.db', 'aws_sqs_queue.events'].map((address) => ({
  address,
  type: address.split('.')[0]!,
  values: {},
}));

/** A plan of the three managed resources; those the drift deletes are gone from the state. */
export function plan(drift: CompactChange[] = [], overrides: Partial<CompactPlan> = {}): CompactPlan {
  return {
    formatVersion: '1.2',
    terraformVersion: '1.11.4',
    errored: false,
    complete: true,
    drift,
    changes: [],
    outputChanges: [],
    managedResources: managed.filter(
      (resource) =>
        !drift.some((change) => change.address === resource.address && change.actions.includes('delete')),
    ),
    ...overrides,
  };
}

export const tagDrift: CompactChange = {
  address: 'aws_s3_bucket.ledger',
  type: 'aws_s3_bucket',
  mode: 'managed',
  actions: ['update'],
  changes: [
    {
      path: 'tags.Owner',
      segments: ['tags', 'Owner'],
      before: 'payments',
      after: 'finance',
      sensitive: false,
    },
  ],
};

export interface FakeOptions {
  plans: CompactPlan[];
  /** Answered in turn, the last one repeating; an Error entry is thrown. */
  versions?: Array<StateVersion | undefined | Error>;
  identity?: IdentityCheck;
  credentials?: () => Promise<undefined>;
  prepare?: () => Promise<never>;
  planError?: TerraformRunError;
  /** What the targeted re-read of reported deletions finds in the provider's log (absent: no such port). */
  readFailures?: FailedRead[];
  /** Facts the prepared workspace read from its source; absent when unreadable. */
  configuration?: ConfigurationFacts;
}

/** Ports that answer from `options` and record each call, so tests can check ordering and cleanup. */
export function fakePorts(options: FakeOptions) {
  const calls: string[] = [];
  let planIndex = 0;
  let versionIndex = 0;
  const ports: ScanPorts = {
    credentials: options.credentials ?? (async () => undefined),
    identity: async () =>
      options.identity ?? {
        ok: true,
        account: '123456789012',
        arn: 'arn:aws:sts::123456789012:assumed-role/read/driftwatch',
      },
    stateVersion: async () => {
      calls.push('version');
      const versions = options.versions ?? [{ versionId: 'v1' }];
      const answer = versions[Math.min(versionIndex++, versions.length - 1)];
      if (answer instanceof Error) throw answer;
      return answer;
    },
    prepare:
      options.prepare ??
      (async () => {
        calls.push('prepare');
        return {
          initDurationMs: 5,
          ...(options.configuration ? { configuration: options.configuration } : {}),
          async plan(): Promise<PlanRun> {
            calls.push('plan');
            if (options.planError) throw options.planError;
            const next = options.plans[Math.min(planIndex++, options.plans.length - 1)]!;
            return {
              plan: next,
              exitCode: 2,
              durationMs: 10,
              errorSummary: next.errored ? 'Error: reading S3 Bucket: connection refused' : undefined,
            };
          },
          ...(options.readFailures
            ? {
                async readFailures(addresses: readonly string[]) {
                  calls.push(`readFailures ${addresses.join(',')}`);
                  return options.readFailures!;
                },
              }
            : {}),
          async close() {
            calls.push('close');
          },
        };
      }),
  };
  return { ports, calls };
}
