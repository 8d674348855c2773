import { beforeAll, describe, expect, it } from 'vitest';
import { SEVERITIES } from '../../functions/core/findings/model.js';
import { REPORT_FAILURE_PATH } from '../../infra/constructs/scan-workflow.js';
import { FINDINGS_ACCESS } from '../../infra/findings-access.js';
import { type AslDefinition, definitionOf } from './definition.js';
import {
  type PolicyStatement,
  SYNTH_TIMEOUT_MS,
  type Synthesized,
  statementsOfRole as statementsOfTemplateRole,
  synthesize,
} from './synth.js';

let synthesized: Synthesized;
let definition: AslDefinition;
beforeAll(() => {
  synthesized = synthesize();
  definition = definitionOf(synthesized.template);
}, SYNTH_TIMEOUT_MS);

type Statement = PolicyStatement;
const statementsOfRole = (rolePrefix: string): Statement[] =>
  statementsOfTemplateRole(synthesized.template, rolePrefix);

/** The object prefixes of the findings bucket a role may use with an action (`s3:PutObject` …). */
function findingsPrefixes(rolePrefix: string, action: string): string[] {
  return statementsOfRole(rolePrefix)
    .filter((statement) => statement.Effect === 'Allow' && [statement.Action].flat().includes(action))
    .flatMap((statement) => [statement.Resource].flat())
    .map((resource) => JSON.stringify(resource))
    .filter((resource) => resource.includes('FindingsBucket'))
    .map((resource) => /"\/([a-z-]+\/)\*"/.exec(resource)?.[1] ?? resource)
    .sort();
}

describe('the nightly reports in AWS', () => {
  it('WriteReports runs between RecordFindings and NotifyOwners; its failure is caught and the digests still go out', () => {
    expect(definition.States.RecordFindings?.Next).toBe('WriteReports');
    const writeReports = definition.States.WriteReports!;
    expect(writeReports.Next).toBe('NotifyOwners');
    expect(writeReports.ResultPath).toBeNull();
    expect(writeReports.Catch).toEqual([
      { ErrorEquals: ['States.ALL'], Next: 'NotifyOwners', ResultPath: REPORT_FAILURE_PATH },
    ]);
  });

  it('WriteReports reads findings and history and writes only reports/; NotifyOwners may read reports/ to link them', () => {
    expect(FINDINGS_ACCESS['write-reports']).toEqual({
      read: ['current', 'scans'],
      write: ['reports'],
      delete: [],
    });
    expect(findingsPrefixes('WriteReportsRole', 's3:PutObject')).toEqual(['reports/']);
    expect(findingsPrefixes('WriteReportsRole', 's3:DeleteObject')).toEqual([]);
    expect(findingsPrefixes('WriteReportsRole', 's3:GetObject')).toEqual(['current/', 'scans/']);
    expect(findingsPrefixes('NotifyOwnersRole', 's3:GetObject')).toContain('reports/');
    expect(findingsPrefixes('NotifyOwnersRole', 's3:PutObject')).not.toContain('reports/');
  });

  it('NotifyOwners signs report links for the configured hours (default 12)', () => {
    const notify = Object.entries(synthesized.template.findResources('AWS::Lambda::Function')).find(([id]) =>
      id.startsWith('NotifyOwnersFunction'),
    )![1] as { Properties: { Environment: { Variables: Record<string, unknown> } } };
    expect(notify.Properties.Environment.Variables.REPORT_LINK_HOURS).toBe('12');
  });

  it('reports expire after five weeks', () => {
    const bucket = Object.entries(synthesized.template.findResources('AWS::S3::Bucket')).find(([id]) =>
      id.startsWith('FindingsBucket'),
    )![1] as { Properties: { LifecycleConfiguration: { Rules: Array<Record<string, unknown>> } } };
    expect(bucket.Properties.LifecycleConfiguration.Rules).toContainEqual(
      expect.objectContaining({
        Id: 'expire-reports',
        Prefix: 'reports/',
        ExpirationInDays: 35,
        Status: 'Enabled',
      }),
    );
  });
});

describe('the operations dashboard', () => {
  const body = () => {
    const dashboards = Object.values(synthesized.template.findResources('AWS::CloudWatch::Dashboard'));
    expect(dashboards).toHaveLength(1);
    // The body is a Fn::Join of strings and references: its text holds every metric and query.
    return JSON.stringify(
      (dashboards[0] as { Properties: { DashboardBody: unknown } }).Properties.DashboardBody,
    );
  };

  it('shows scans, failures, open findings by severity, digests delivered and scan time p50/p95', () => {
    const text = body();
    for (const metric of [
      'ExecutionsStarted',
      'ExecutionsSucceeded',
      'ExecutionsFailed',
      'ExecutionsTimedOut',
    ])
      expect(text).toContain(metric);
    for (const metric of ['WorkspacesScanned', 'WorkspacesFailed', 'WorkspacesTimedOut'])
      expect(text).toContain(metric);
    for (const severity of SEVERITIES) expect(text).toContain(`\\"Severity\\",\\"${severity}\\"`);
    for (const metric of [
      'NumberOfMessagesPublished',
      'NumberOfNotificationsDelivered',
      'NumberOfNotificationsFailed',
    ])
      expect(text).toContain(metric);
    expect(text).toContain('\\"stat\\":\\"p50\\"');
    expect(text).toContain('\\"stat\\":\\"p95\\"');
  });

  it('lists scan time per workspace from RecordFindings’ log group (a Logs Insights table, not a metric per workspace)', () => {
    const text = body();
    expect(text).toMatch(
      /SOURCE '",\{"Ref":"RecordFindingsLogs\w+"\},"' \| filter ispresent\(PlanDuration\)/,
    );
    expect(text).toContain('pct(PlanDuration, 95)');
    expect(text).toContain('by Workspace');
  });

  it('is linked from the stack outputs', () => {
    expect(Object.keys(synthesized.template.findOutputs('Dashboard'))).toEqual(['Dashboard']);
  });
});
