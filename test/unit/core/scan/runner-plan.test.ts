import { describe, expect, it } from 'vitest';
import type { ScanSummary } from '../../../../functions/core/findings/findings-store.js';
import { findingId } from '../../../../functions/core/findings/fingerprint.js';
import type { CurrentDocument } from '../../../../functions/core/findings/lifecycle.js';
import type { Finding } from '../../../../functions/core/findings/model.js';
import { parseRegistry } from '../../../../functions/core/registry/parse.js';
import { RECORD_MARGIN_MS, scanDeadline } from '../../../../functions/core/scan/deadline.js';
import { scanHealth } from '../../../../functions/core/scan/health.js';
import {
  accountOf,
  groupByAccount,
  MAX_GROUP_WORKSPACES,
  planWorkspace,
  RESCAN_PREFIX,
  SCAN_TIMEOUT_RULE_ID,
  selectWorkspaces,
  timedOutRecently,
  UnknownFilterError,
} from '../../../../functions/core/scan/runner-plan.js';

const registry = parseRegistry(
  [
    'version: 1',
    'owners: { fallback: platform, teams: [{ id: platform, destinations: [{ type: email, address: p@example.com }] }] }',
    'workspaces:',
    ...[
      ['a1', '111111111111', ''],
      ['a2', '111111111111', 'runner: codebuild'],
      ['b1', '222222222222', 'timeout: 3h'],
      ['local', '', 'runner: lambda'],
    ].flatMap(([id, account, extra]) => [
      `  - id: ${id}`,
      '    owner: platform',
      '    environment: prod',
      '    source: { dir: infra }',
      `    backend: { bucket: tfstate-${id}, key: k.tfstate, region: eu-west-1 }`,
      ...(account ? [`    roleArn: arn:aws:iam::${account}:role/driftwatch-read`] : []),
      ...(extra ? [`    ${extra}`] : []),
    ]),
    '',
  ].join('\n'),
);
const byId = (id: string) => registry.workspaces.find((workspace) => workspace.id === id)!;
const now = new Date('2026-12-02T02:00:00Z');
const DAY = 24 * 60 * 60_000;

function current(workspace: string, parts: Partial<CurrentDocument>): CurrentDocument {
  return {
    workspace,
    updatedAt: now.toISOString(),
    lastScan: { scanId: 's', status: 'failed', at: now.toISOString() },
    checks: {},
    findings: [],
    resolved: [],
    ...parts,
  };
}
const timeoutId = (workspace: string) =>
  findingId({ kind: 'scan-failed', ruleId: SCAN_TIMEOUT_RULE_ID, workspace });

describe('registry runner and timeout', () => {
  it('parses runner and timeout, and refuses a runner or timeout CodeBuild cannot take', () => {
    expect(byId('a2').runner).toBe('codebuild');
    expect(byId('b1').timeout).toBe(3 * 60 * 60_000);
    const entry = (extra: string) =>
      [
        'version: 1',
        'owners: { fallback: p, teams: [{ id: p, destinations: [{ type: email, address: p@example.com }] }] }',
        'workspaces:',
        '  - { id: w, owner: p, environment: prod, source: { dir: x }, backend: { bucket: tfstate-w, key: k, region: eu-west-1 }, ' +
          `${extra} }`,
      ].join('\n');
    expect(() => parseRegistry(entry('runner: fargate'))).toThrow(/runner.*expected lambda or codebuild/s);
    expect(() => parseRegistry(entry('timeout: 9h'))).toThrow(/timeout.*5m to 8h/s);
    expect(() => parseRegistry(entry('timeout: 1m'))).toThrow(/timeout.*5m to 8h/s);
  });
});

describe('accounts and the re-scan filter', () => {
  it('takes the account from the role ARN; a workspace without a role is in the scanner’s own account', () => {
    expect(accountOf(byId('a1'))).toBe('111111111111');
    expect(accountOf(byId('local'))).toBe('default');
  });

  it('selects one workspace or one account’s workspaces, and names the known ones for an unknown filter', () => {
    expect(selectWorkspaces(registry.workspaces, undefined).map((w) => w.id)).toEqual([
      'a1',
      'a2',
      'b1',
      'local',
    ]);
    expect(selectWorkspaces(registry.workspaces, { workspace: 'b1' }).map((w) => w.id)).toEqual(['b1']);
    expect(selectWorkspaces(registry.workspaces, { account: '111111111111' }).map((w) => w.id)).toEqual([
      'a1',
      'a2',
    ]);
    expect(() => selectWorkspaces(registry.workspaces, { workspace: 'nope' })).toThrow(UnknownFilterError);
    expect(() => selectWorkspaces(registry.workspaces, { workspace: 'nope' })).toThrow(
      "no workspace 'nope' in the registry; workspaces: a1, a2, b1, local",
    );
    expect(() => selectWorkspaces(registry.workspaces, { account: '999999999999' })).toThrow(
      /accounts: 111111111111, 222222222222, default/,
    );
  });
});

describe('where a workspace runs', () => {
  it('runs in Lambda by default, in CodeBuild when the registry says so, with a 2 h default build budget', () => {
    expect(planWorkspace(byId('a1'), false)).toEqual({
      workspace: 'a1',
      account: '111111111111',
      runner: 'lambda',
      runnerReason: 'default',
      timeoutSeconds: null,
      buildTimeoutMinutes: null,
    });
    expect(planWorkspace(byId('a2'), false)).toMatchObject({
      runner: 'codebuild',
      runnerReason: 'registry',
      timeoutSeconds: 7200,
      buildTimeoutMinutes: 125,
    });
    // The workspace's timeout is its budget; the build gets 5 minutes more to record.
    expect(planWorkspace({ ...byId('b1'), runner: 'codebuild' }, false)).toMatchObject({
      timeoutSeconds: 3 * 3600,
      buildTimeoutMinutes: 185,
    });
    expect(planWorkspace({ ...byId('b1'), runner: 'codebuild', timeout: 8 * 3600_000 }, false)).toMatchObject(
      {
        buildTimeoutMinutes: 480,
      },
    );
  });

  it('moves a workspace that timed out to CodeBuild, unless the registry pins its runner', () => {
    expect(planWorkspace(byId('a1'), true)).toMatchObject({ runner: 'codebuild', runnerReason: 'timed-out' });
    expect(planWorkspace(byId('local'), true)).toMatchObject({ runner: 'lambda', runnerReason: 'registry' });
  });

  it('reads "timed out" from the current document: an open timeout finding, or one resolved within 30 days', () => {
    const open = { id: timeoutId('a1'), status: 'ongoing', ruleId: SCAN_TIMEOUT_RULE_ID } as Finding;
    expect(timedOutRecently('a1', current('a1', { findings: [open] }), now)).toBe(true);
    const resolvedAt = (days: number) => new Date(now.getTime() - days * DAY).toISOString();
    const resolved = (days: number) => ({
      id: timeoutId('a1'),
      check: 'terraform' as const,
      resolvedAt: resolvedAt(days),
      firstSeenAt: resolvedAt(days + 1),
    });
    expect(timedOutRecently('a1', current('a1', { resolved: [resolved(29)] }), now)).toBe(true);
    expect(timedOutRecently('a1', current('a1', { resolved: [resolved(31)] }), now)).toBe(false);
    // Another failure (a plan error) is not a reason to move.
    const other = {
      id: findingId({ kind: 'scan-failed', ruleId: 'scan.plan-failed', workspace: 'a1' }),
      status: 'new',
    } as Finding;
    expect(timedOutRecently('a1', current('a1', { findings: [other] }), now)).toBe(false);
    expect(timedOutRecently('a1', undefined, now)).toBe(false);
  });
});

describe('the per-account groups of the ScanTerraform Map', () => {
  it('groups workspaces by account in registry order, each with the account’s cap', () => {
    const items = registry.workspaces.map((workspace) => planWorkspace(workspace, false));
    const groups = groupByAccount(items, 3);
    expect(
      groups.map((group) => [group.account, group.maxConcurrency, group.workspaces.map((w) => w.workspace)]),
    ).toEqual([
      ['111111111111', 3, ['a1', 'a2']],
      ['222222222222', 3, ['b1']],
      ['default', 3, ['local']],
    ]);
    // Items of a group carry what the state machine selects, never the account twice.
    expect(Object.keys(groups[0]!.workspaces[0]!).sort()).toEqual([
      'buildTimeoutMinutes',
      'runner',
      'timeoutSeconds',
      'workspace',
    ]);
  });

  it('splits a large account so each child execution stays small, and shares the cap among its groups', () => {
    const many = Array.from({ length: MAX_GROUP_WORKSPACES * 2 + 1 }, (_, index) =>
      planWorkspace({ id: `w${index}`, roleArn: 'arn:aws:iam::111111111111:role/r' }, false),
    );
    const groups = groupByAccount(many, 6);
    expect(groups.map((group) => group.workspaces.length)).toEqual([
      MAX_GROUP_WORKSPACES,
      MAX_GROUP_WORKSPACES,
      1,
    ]);
    expect(groups.map((group) => group.maxConcurrency)).toEqual([2, 2, 2]);
    expect(groupByAccount(many, 2).map((group) => group.maxConcurrency)).toEqual([1, 1, 1]);
  });
});

describe('the scan deadline', () => {
  it('stops Terraform before the host: its remaining time less the recording margin, or the budget if sooner', () => {
    expect(scanDeadline({ nowMs: 0, remainingMs: 900_000, runner: 'lambda' })).toEqual({
      atMs: 900_000 - RECORD_MARGIN_MS,
      hint: '; set runner: codebuild',
    });
    expect(scanDeadline({ nowMs: 10, remainingMs: 900_000, runner: 'lambda', budgetMs: 60_000 }).atMs).toBe(
      60_010,
    );
    expect(
      scanDeadline({ nowMs: 0, remainingMs: 4 * 3600_000, runner: 'codebuild', budgetMs: 3 * 3600_000 }),
    ).toEqual({
      atMs: 3 * 3600_000,
      hint: '; raise the workspace timeout (at most 8h)',
    });
    expect(scanDeadline({ nowMs: 5, remainingMs: 1_000, runner: 'lambda' }).atMs).toBe(5);
  });
});

describe('re-scans on demand and the health check', () => {
  it('a re-scan’s summary does not count as the night’s scan', () => {
    const summary = (scanId: string, finishedAt: string) =>
      ({ scanId, finishedAt }) as unknown as ScanSummary;
    const at = new Date('2026-12-03T09:00:00Z');
    const day = 24 * 3600_000;
    const nights = [summary('20261201T020000Z-a', '2026-12-01T02:30:00Z')];
    expect(scanHealth(nights, at, day).missing).toBe(true);
    const withRescan = [
      ...nights,
      summary(`${RESCAN_PREFIX}payments-prod-20261203T080000Z`, '2026-12-03T08:10:00Z'),
    ];
    expect(scanHealth(withRescan, at, day)).toMatchObject({
      missing: true,
      lastCompleted: { scanId: '20261201T020000Z-a' },
    });
  });
});
