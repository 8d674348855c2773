import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { entrypointEvent } from '../../functions/adapters/container-entrypoint.js';
import { PIPELINE_STAGES } from '../../functions/core/scan/stages.js';
import { execute, type Interpreter, type TraceEntry } from '../helpers/asl-interpreter.js';
import { type AslDefinition, definitionOf } from './definition.js';
import { SYNTH_TIMEOUT_MS, synthesize } from './synth.js';

/**
 * The synthesized state machine definition, executed locally (test/helpers/asl-interpreter.ts) with
 * the real LoadRegistry and RecordFindings handlers on a local store and every other Task stubbed.
 */
const store = mkdtempSync(join(tmpdir(), 'driftwatch-execution-'));
afterAll(() => rmSync(store, { recursive: true, force: true }));
// Unit files share their worker's modules (vitest.config.ts): load the handlers afresh with our
// environment (test/unit-setup.ts gives it back after the file).
vi.stubEnv('DRIFTWATCH_STORE', store);
vi.stubEnv('ACCOUNT_CONCURRENCY', '3');
vi.stubEnv('FINDINGS_BUCKET', undefined);
vi.resetModules();
const registryFile = join(store, 'driftwatch.yaml');
writeFileSync(
  registryFile,
  [
    'version: 1',
    'owners: { fallback: platform, teams: [{ id: platform, destinations: [{ type: email, address: p@example.com }] }] }',
    'workspaces:',
    ...[
      ['w-a1', '111111111111', ''],
      ['w-a2', '111111111111', 'runner: codebuild, timeout: 3h, '],
      ['w-b1', '222222222222', ''],
    ].map(
      ([id, account, extra]) =>
        `  - { id: ${id}, owner: platform, environment: prod, ${extra}source: { dir: x }, backend: { bucket: tfstate-shared, key: ${id}.tfstate, region: eu-west-1 }, roleArn: "arn:aws:iam::${account}:role/driftwatch-read" }`,
    ),
    '',
  ].join('\n'),
);

const { handler: loadRegistry } = await import('../../functions/handlers/load-registry.js');
const { handler: recordFindings } = await import('../../functions/handlers/record-findings.js');
const { handler: writeReports } = await import('../../functions/handlers/write-reports.js');
const lambdaContext = { getRemainingTimeInMillis: () => 60_000, awsRequestId: 'local' } as unknown as Context;

let definition: AslDefinition;
beforeAll(() => {
  definition = definitionOf(synthesize().template);
}, SYNTH_TIMEOUT_MS);

interface Calls {
  [state: string]: unknown[];
}

function interpreter(overrides: Interpreter['tasks'] = {}): { interpreter: Interpreter; calls: Calls } {
  const calls: Calls = {};
  const note = (name: string, input: unknown) => {
    calls[name] = [...(calls[name] ?? []), input];
  };
  const record =
    (name: string, result: unknown = {}) =>
    (input: unknown) => {
      note(name, input);
      return result;
    };
  const tasks: Interpreter['tasks'] = {
    LoadRegistry: async (input) => {
      note('LoadRegistry', input);
      return loadRegistry(input as never, lambdaContext);
    },
    RecordFindings: async (input) => {
      note('RecordFindings', input);
      return recordFindings(input as never, lambdaContext);
    },
    WriteReports: async (input) => {
      note('WriteReports', input);
      return writeReports(input as never, lambdaContext);
    },
  };
  for (const name of [
    'CheckBackendItem',
    'ObserveLocksItem',
    'ScanTerraformItem',
    'ScanTerraformBuild',
    'ScanClusterItem',
    'ConfirmLocksItem',
    'NotifyOwners',
    'RecordCheckBackendFailure',
    'RecordObserveLocksFailure',
    'RecordScanTerraformFailure',
    'RecordScanClusterFailure',
    'RecordConfirmLocksFailure',
  ])
    tasks[name] = record(name);
  for (const [name, stub] of Object.entries(overrides))
    tasks[name] = async (input, state) => {
      note(name, input);
      return stub(input, state);
    };
  return {
    calls,
    interpreter: { tasks, getObject: (_bucket, key) => JSON.parse(readFileSync(join(store, key), 'utf8')) },
  };
}

const topLevel = (trace: TraceEntry[]) =>
  trace.map((entry) => entry.state).filter((state) => state in definition.States);
const start = (scanId: string, extra: Record<string, unknown> = {}) => ({
  registry: registryFile,
  scanId,
  startedAt: '2026-12-02T02:00:00.000Z',
  ...extra,
});

describe('a local execution of the scan state machine definition', () => {
  it('runs every stage in order and routes each workspace to its runner, per account with the account’s cap', async () => {
    const { interpreter: run, calls } = interpreter();
    const { trace } = await execute(definition, start('night-1'), run);
    expect(topLevel(trace).filter((state) => (PIPELINE_STAGES as readonly string[]).includes(state))).toEqual(
      [...PIPELINE_STAGES],
    );
    const lambdaScans = (calls.ScanTerraformItem ?? []) as Array<{ workspace: string; runner: string }>;
    expect(lambdaScans.map((event) => [event.workspace, event.runner])).toEqual([
      ['w-a1', 'lambda'],
      ['w-b1', 'lambda'],
    ]);
    // The CodeBuild item: the build gets the workspace's timeout (3 h + 5 min) and the item as its event.
    const builds = (calls.ScanTerraformBuild ?? []) as Array<Record<string, unknown>>;
    expect(builds).toHaveLength(1);
    expect(builds[0]).toMatchObject({ TimeoutInMinutesOverride: 185 });
    const variables = builds[0]!.EnvironmentVariablesOverride as Array<{ Name: string; Value: string }>;
    const event = entrypointEvent({
      DRIFTWATCH_EVENT: variables.find((v) => v.Name === 'DRIFTWATCH_EVENT')!.Value,
    });
    expect(event).toEqual({
      scanId: 'night-1',
      startedAt: '2026-12-02T02:00:00.000Z',
      registry: registryFile,
      account: '111111111111',
      workspace: 'w-a2',
      runner: 'codebuild',
      timeoutSeconds: 3 * 3600,
      buildTimeoutMinutes: 185,
    });
    // One child execution per account, each with the per-account cap LoadRegistry wrote.
    const accounts = trace.filter((entry) => entry.state === 'ScanTerraformAccount');
    expect(
      accounts.map((entry) => [(entry.input as { account: string }).account, entry.maxConcurrency]),
    ).toEqual([
      ['111111111111', 3],
      ['222222222222', 3],
    ]);
    expect(calls.NotifyOwners).toHaveLength(1);
  });

  it('a Map that fails as a whole still reaches RecordFindings and NotifyOwners, and every workspace it left is a scan-failed finding', async () => {
    const fail = () => {
      throw Object.assign(new Error('Task timed out after 900.00 seconds'), { name: 'Sandbox.Timedout' });
    };
    // Every scan fails, and so does recording the failure: each child execution fails, beyond tolerance.
    const { interpreter: run, calls } = interpreter({
      ScanTerraformItem: fail,
      ScanTerraformBuild: fail,
      RecordScanTerraformFailure: () => {
        throw new Error('findings bucket unavailable');
      },
    });
    const { output, trace } = await execute(definition, start('night-2'), run);
    const path = topLevel(trace);
    expect(path.slice(path.indexOf('ScanTerraform'))).toEqual([
      'ScanTerraform',
      'ScanCluster',
      'WaitForLockConfirmation',
      'ConfirmLocks',
      'RecordFindings',
      'WriteReports',
      'NotifyOwners',
    ]);
    // The night's report shows what failed (and the digests link to it).
    const report = readFileSync(join(store, 'reports/scan=night-2/everyone.html'), 'utf8');
    expect(report).toContain('w-a2');
    expect((output as { failures: Record<string, { Error: string }> }).failures).toEqual({
      ScanTerraform: expect.objectContaining({ Error: 'States.ExceedToleratedFailureThreshold' }),
    });
    expect(calls.RecordFindings?.[0]).toMatchObject({
      failures: { ScanTerraform: { Error: 'States.ExceedToleratedFailureThreshold' } },
    });
    for (const workspace of ['w-a1', 'w-a2', 'w-b1']) {
      const current = JSON.parse(readFileSync(join(store, 'current', `${workspace}.json`), 'utf8'));
      expect(current.findings, workspace).toEqual([
        expect.objectContaining({ kind: 'scan-failed', ruleId: 'scan.stage-failed' }),
      ]);
      expect(current.findings[0].detail).toContain('ScanTerraform stopped before this workspace was scanned');
    }
    expect(calls.NotifyOwners).toHaveLength(1);
  });

  it('a report that cannot be written costs the night nothing else: NotifyOwners still runs, the error is kept', async () => {
    const { interpreter: run, calls } = interpreter({
      WriteReports: () => {
        throw Object.assign(new Error('Access Denied'), { name: 'AccessDenied' });
      },
    });
    const { output, trace } = await execute(definition, start('night-reports'), run);
    const path = topLevel(trace);
    expect(path.slice(path.indexOf('RecordFindings'))).toEqual([
      'RecordFindings',
      'WriteReports',
      'NotifyOwners',
    ]);
    expect(calls.NotifyOwners).toHaveLength(1);
    expect((output as { reportFailure: { Error: string } }).reportFailure).toMatchObject({
      Error: 'AccessDenied',
    });
  });

  it('an item failure within tolerance goes to RecordScanFailure with its runner, and the Map does not fail', async () => {
    const { interpreter: run, calls } = interpreter({
      ScanTerraformBuild: () => {
        throw Object.assign(new Error('{"Build":{"buildStatus":"TIMED_OUT"}}'), {
          name: 'States.TaskFailed',
        });
      },
    });
    // One of three children fails its scan but records it: no child execution fails.
    const { output } = await execute(definition, start('night-3'), run);
    expect((output as { failures: object }).failures).toEqual({});
    expect(calls.RecordScanTerraformFailure).toEqual([
      expect.objectContaining({
        workspace: 'w-a2',
        runner: 'codebuild',
        stage: 'ScanTerraform',
        error: { Error: 'States.TaskFailed', Cause: '{"Build":{"buildStatus":"TIMED_OUT"}}' },
      }),
    ]);
  });

  it('each workspace leaves `{}` in its account Map, failed or not: thousands per account stay under 256 KiB', async () => {
    // Step Functions collects an inline Map's iteration outputs and refuses the lot over 256 KiB
    // (States.DataLimitExceeded), even when ResultPath discards them; a caught error's Cause is up
    // to 32 KB, so item plus error per workspace passed the limit after a handful of failures.
    const cause = 'x'.repeat(32 * 1024);
    for (const failing of [false, true]) {
      const fail = () => {
        throw Object.assign(new Error(cause), { name: 'States.TaskFailed' });
      };
      const { interpreter: run } = interpreter(
        failing ? { ScanTerraformItem: fail, ScanTerraformBuild: fail } : {},
      );
      const { trace } = await execute(definition, start(`night-size-${failing}`), run);
      const accounts = trace.filter((entry) => entry.state === 'ScanTerraformAccount');
      expect(
        accounts.map((entry) => entry.result),
        `failing: ${failing}`,
      ).toEqual([[{}, {}], [{}]]);
    }
  });

  it('a filtered execution (driftwatch invoke --workspace) scans that workspace alone', async () => {
    const { interpreter: run, calls } = interpreter();
    const { trace } = await execute(definition, start('rescan-1', { filter: { workspace: 'w-b1' } }), run);
    expect(calls.ScanTerraformItem).toEqual([expect.objectContaining({ workspace: 'w-b1' })]);
    expect(calls.ScanTerraformBuild).toBeUndefined();
    expect(trace.filter((entry) => entry.state === 'ScanTerraformAccount')).toHaveLength(1);
    expect(calls.RecordFindings?.[0]).toMatchObject({ filter: { workspace: 'w-b1' } });
  });
});
