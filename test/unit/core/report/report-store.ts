/**
 * A findings store with weeks of nightly history, written through the real findings store and
 * lifecycle (recordWorkspace, suppress, summarizeScan) exactly as scans write it: several owners and
 * environments, findings that appear, age, change severity, get suppressed, resolve, a workspace whose
 * scan fails on the last night, backend and lock findings, a night without a scan. Used by the report
 * tests and bench/report.ts. Deterministic: the same options give the same store.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFsObjectStore } from '../../../../functions/adapters/object-store/fs-object-store.js';
import { createFindingsStore } from '../../../../functions/core/findings/findings-store.js';
import type { ScanOutcome } from '../../../../functions/core/findings/lifecycle.js';
import type { Check, FindingDraft, Severity } from '../../../../functions/core/findings/model.js';
import {
  type ScopeCheckOutcome,
  summarizeScan,
  type WorkspaceOutcome,
} from '../../../../functions/core/scan/summary.js';
import { driftDraft, scanFailedDraft } from '../../../helpers/findings.js';

const DAY = 86_400_000;
/** Night 0's scan starts here; night n starts n days later. */
export const FIRST_NIGHT = Date.parse('2026-10-20T02:00:00Z');

export const HOSTILE = {
  script: '</script><img src=x onerror="document.title=\'pwned\'">',
  mustache: '{{constructor.constructor("document.title=1")()}}',
  bidi: 'admin\u202Egnp.exe\u2066x\u2069',
  lineSeparator: 'line\u2028break\u2029end',
  comment: '<!-- <script>document.title="pwned"</script>',
  /** An environment name: it lands in markup (filter options, the per-environment table). */
  environment: 'prod"><svg onload="document.title=\'pwned\'">',
} as const;

interface Planned {
  scope: string;
  check: Check;
  owner: string;
  environment: string;
  /** First night the finding is seen, and the night after its last (undefined: still open). */
  from: number;
  until?: number;
  draft: (night: number) => FindingDraft;
}

export interface ReportStoreOptions {
  nights?: number;
  /** Add a finding whose address, tags, values and title are hostile strings. */
  hostile?: boolean;
  /** Secrets planted in the store outside findings (a plan dump next to it): must never reach a report. */
  canaries?: readonly string[];
  /** Extra open findings spread over `extraWorkspaces` workspaces (for size measurements). */
  extraFindings?: number;
  extraWorkspaces?: number;
  /** Nights without a scan (a gap in the trend). */
  gaps?: readonly number[];
}

export interface BuiltReportStore {
  dir: string;
  nights: number;
  latestScanId: string;
  latestStartedAt: string;
  owners: string[];
}

const drift = (
  address: string,
  severity: Severity,
  changes: Array<[string, unknown, unknown]>,
  extra: Partial<FindingDraft> = {},
): FindingDraft => {
  const type = address.split('.')[0]!;
  return driftDraft({
    severity,
    resource: { address, type, provider: 'registry.terraform.io/hashicorp/aws' },
    drift: {
      action: 'update',
      changes: changes.map(([path, before, after]) => ({
        path,
        before: before as never,
        after: after as never,
        sensitive: false,
      })),
    },
    title: `${address} changed outside Terraform: ${changes.map(([path]) => path).join(', ')}`,
    detail: `${changes.length} attribute(s) of ${address} differ from the state.`,
    remediation: {
      summary: `Revert ${address} through the pipeline, or adopt the live value in configuration.`,
      steps: [
        'Review the change with the workspace owner.',
        `Revert: run the team's pipeline plan for the workspace and apply it.`,
        `Adopt: change ${address} in configuration to the live value, review and merge.`,
      ],
    },
    ...extra,
  });
};

function plan(options: ReportStoreOptions, nights: number): Planned[] {
  const last = nights - 1;
  const planned: Planned[] = [
    {
      scope: 'payments-prod',
      check: 'terraform',
      owner: 'payments',
      environment: 'prod',
      from: 2,
      draft: () =>
        drift('aws_security_group.api', 'high', [['ingress[0].cidr_blocks[0]', '10.0.0.0/8', '0.0.0.0/0']]),
    },
    {
      scope: 'payments-prod',
      check: 'terraform',
      owner: 'payments',
      environment: 'prod',
      from: nights - 8,
      draft: () => drift('aws_s3_bucket.ledger', 'medium', [['tags.Owner', 'payments', 'finance']]),
    },
    {
      scope: 'payments-prod',
      check: 'terraform',
      owner: 'payments',
      environment: 'prod',
      from: last,
      draft: () =>
        drift('aws_db_instance.main', 'critical', [['deletion_protection', true, false]], {
          drift: {
            action: 'update',
            changes: [
              {
                path: 'password',
                before: '(sensitive:0a1b2c3d)',
                after: '(sensitive:9f8e7d6c)',
                sensitive: true,
              },
              { path: 'deletion_protection', before: true, after: false, sensitive: false },
            ],
          },
        }),
    },
    {
      scope: 'payments-prod',
      check: 'terraform',
      owner: 'payments',
      environment: 'prod',
      from: 5,
      until: last,
      draft: () => drift('aws_sqs_queue.jobs', 'low', [['visibility_timeout_seconds', 30, 60]]),
    },
    {
      scope: 'payments-staging',
      check: 'terraform',
      owner: 'payments',
      environment: 'staging',
      from: 0,
      draft: () =>
        driftDraft({
          kind: 'pending-change',
          ruleId: 'pending.update',
          severity: 'low',
          workspace: 'payments-staging',
          environment: 'staging',
          resource: { address: 'aws_sns_topic.alerts', type: 'aws_sns_topic' },
          title: 'aws_sns_topic.alerts: configuration not applied',
          detail: 'The configuration changes display_name; nobody applied it.',
        }),
    },
    {
      scope: 'platform-prod',
      check: 'terraform',
      owner: 'platform',
      environment: 'prod',
      from: 10,
      draft: () => drift('aws_iam_role.ci', 'medium', [['max_session_duration', 3600, 43200]]),
    },
    {
      scope: 'data-dev',
      check: 'terraform',
      owner: 'data',
      environment: 'dev',
      from: nights - 6,
      // The same drift grows: low first, medium from three nights ago (status changed).
      draft: (night) =>
        drift('aws_s3_bucket.lake', night >= last - 2 ? 'medium' : 'low', [
          ['tags.Team', 'data', 'analytics'],
        ]),
    },
    {
      scope: 's3.tfstate-prod',
      check: 'backend',
      owner: 'platform',
      environment: 'prod',
      from: 1,
      draft: () => ({
        kind: 'backend-policy',
        ruleId: 'backend.versioning',
        severity: 'high',
        workspace: 's3.tfstate-prod',
        resource: { bucket: 'tfstate-prod' },
        title: 'State bucket tfstate-prod has versioning disabled',
        detail: 'Without versioning a bad write of a state file cannot be undone.',
        evidence: { versioning: 'Suspended' },
        remediation: {
          summary: 'Enable versioning on the bucket.',
          steps: ['aws s3api put-bucket-versioning …'],
        },
      }),
    },
    {
      scope: 's3.tfstate-prod',
      check: 'locks',
      owner: 'platform',
      environment: 'prod',
      from: last - 1,
      draft: () => ({
        kind: 'stale-lock',
        ruleId: 'lock.stale',
        severity: 'high',
        workspace: 's3.tfstate-prod',
        resource: { bucket: 'tfstate-prod', key: 'platform/terraform.tfstate', lockId: 'f2b0c9a4-lock' },
        title: 'Stale lock on platform/terraform.tfstate',
        detail: 'Held by ci@runner-7 for 9h; the state has not changed since.',
        evidence: { lockId: 'f2b0c9a4-lock', who: 'ci@runner-7', operation: 'OperationTypeApply' },
        remediation: {
          summary: 'Check nobody is applying, then force-unlock.',
          // As the lock rule writes it: prose, then the command on its own line.
          steps: ['Once nobody is applying, in the workspace root:\nterraform force-unlock f2b0c9a4-lock'],
        },
      }),
    },
  ];
  if (options.hostile)
    planned.push({
      scope: 'payments-prod',
      check: 'terraform',
      owner: 'payments',
      environment: HOSTILE.environment,
      from: last - 3,
      draft: () =>
        drift(
          `aws_instance.x["${HOSTILE.script}"]`,
          'high',
          [
            [`tags.${HOSTILE.mustache}`, HOSTILE.bidi, HOSTILE.script],
            ['user_data', HOSTILE.comment, HOSTILE.lineSeparator],
            // Differs only by a trailing space: must not read "private → private".
            ['acl', 'private', 'private '],
          ],
          { detail: `${HOSTILE.script} ${HOSTILE.mustache} ${HOSTILE.bidi}` },
        ),
    });
  const extraWorkspaces = options.extraWorkspaces ?? 50;
  for (let index = 0; index < (options.extraFindings ?? 0); index++) {
    const workspace = `bulk-${String(index % extraWorkspaces).padStart(3, '0')}`;
    const severity = (['critical', 'high', 'medium', 'low', 'info'] as const)[index % 5]!;
    planned.push({
      scope: workspace,
      check: 'terraform',
      owner: `team-${index % 7}`,
      environment: ['prod', 'staging', 'dev'][index % 3]!,
      from: index % nights,
      draft: () =>
        drift(`aws_s3_bucket.b${index}`, severity, [
          [`tags.Name`, `bucket-${index}`, `bucket-${index}-renamed`],
          ['versioning[0].enabled', true, false],
        ]),
    });
  }
  return planned;
}

export async function buildReportStore(
  dir: string,
  options: ReportStoreOptions = {},
): Promise<BuiltReportStore> {
  const nights = options.nights ?? 35;
  const last = nights - 1;
  const gaps = new Set(options.gaps ?? [12]);
  const store = createFindingsStore(createFsObjectStore(dir));
  const planned = plan(options, nights);
  const scopes = [...new Map(planned.map((entry) => [`${entry.scope}@${entry.check}`, entry])).values()];
  let latest = { scanId: '', startedAt: '' };
  for (let night = 0; night < nights; night++) {
    if (gaps.has(night)) continue;
    const startedAt = new Date(FIRST_NIGHT + night * DAY);
    const scanId = `night-${String(night).padStart(3, '0')}`;
    const now = new Date(startedAt.getTime() + 20 * 60_000);
    const outcomes: WorkspaceOutcome[] = [];
    const checks: ScopeCheckOutcome[] = [];
    for (const scope of scopes) {
      // platform-prod's plan fails on the last night: its drift is carried over, not resolved.
      const failing = scope.scope === 'platform-prod' && night === last;
      const drafts: FindingDraft[] = planned
        .filter((entry) => entry.scope === scope.scope && entry.check === scope.check)
        .filter((entry) => night >= entry.from && (entry.until === undefined || night < entry.until))
        .map((entry) => ({
          ...entry.draft(night),
          workspace: entry.scope,
          owner: entry.owner,
          environment: entry.environment,
        }));
      if (failing)
        drafts.splice(0, drafts.length, {
          ...scanFailedDraft({ workspace: scope.scope, owner: scope.owner, environment: scope.environment }),
          title: 'platform-prod: scan failed',
          detail:
            'terraform plan errored: AccessDenied assuming arn:aws:iam::111111111111:role/driftwatch-read',
        });
      const outcome: ScanOutcome = failing ? 'failed' : 'ok';
      const recorded = await store.recordWorkspace(
        { scanId, startedAt, now },
        { workspace: scope.scope, check: scope.check, outcome },
        drafts,
      );
      if (scope.check === 'terraform') outcomes.push({ workspace: scope.scope, findings: recorded.history });
      else
        checks.push({ scope: scope.scope, check: scope.check, findings: recorded.history, durationMs: 100 });
    }
    if (night === 15) {
      const staging = (await store.openFindings()).find(
        (finding) => finding.workspace === 'payments-staging',
      );
      if (staging)
        await store.suppress(staging.id, {
          reason: 'applied with the next release',
          by: 'alice',
          until: '2027-06-01T00:00:00Z',
          at: now.toISOString(),
        });
    }
    const finishedAt = new Date(now.getTime() + 60_000);
    await store.writeSummary(
      { scanId, startedAt },
      summarizeScan({ scanId, startedAt, finishedAt, totalWorkspaces: outcomes.length }, outcomes, checks),
    );
    latest = { scanId, startedAt: startedAt.toISOString() };
  }
  // A plan dump beside the findings (as a careless operator might leave one): not a finding, never read.
  if (options.canaries?.length)
    writeFileSync(
      join(dir, 'payments-prod.plan.json'),
      JSON.stringify({ resource_changes: [{ change: { after: { password: options.canaries } } }] }),
    );
  return {
    dir,
    nights,
    latestScanId: latest.scanId,
    latestStartedAt: latest.startedAt,
    owners: [...new Set(planned.map((entry) => entry.owner))].sort(),
  };
}
