import aslValidator from 'asl-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { PIPELINE_STAGES } from '../../functions/core/scan/stages.js';
import { LOCK_CONFIRMATION_WAIT, TRANSIENT_LAMBDA_ERRORS } from '../../infra/constructs/scan-workflow.js';
import { type AslDefinition, type AslState, definitionOf, executionPath } from './definition.js';
import { SYNTH_TIMEOUT_MS, type Synthesized, synthesize } from './synth.js';

let synthesized: Synthesized;
let definition: AslDefinition;
const MAP_STAGES = ['CheckBackend', 'ObserveLocks', 'ScanTerraform', 'ScanCluster', 'ConfirmLocks'] as const;

beforeAll(() => {
  synthesized = synthesize({ scanConcurrency: '40', toleratedFailurePercentage: '5', scanTimeoutHours: '6' });
  definition = definitionOf(synthesized.template);
}, SYNTH_TIMEOUT_MS);

function state(name: string): AslState {
  const found = definition.States[name];
  if (!found) throw new Error(`no state ${name}`);
  return found;
}

describe('the scan state machine', () => {
  it('runs the stages in exactly the order of PIPELINE_STAGES, the local runner’s list', () => {
    const path = executionPath(definition);
    const stages = path.filter((name) => (PIPELINE_STAGES as readonly string[]).includes(name));
    expect(stages).toEqual([...PIPELINE_STAGES]);
    // The only helper state: the Wait for the lock confirmation window, right before ConfirmLocks.
    expect(path.filter((name) => !stages.includes(name))).toEqual([LOCK_CONFIRMATION_WAIT]);
    expect(path.indexOf(LOCK_CONFIRMATION_WAIT)).toBe(path.indexOf('ConfirmLocks') - 1);
    expect(state(LOCK_CONFIRMATION_WAIT)).toMatchObject({ Type: 'Wait', TimestampPath: '$.confirmAt' });
    expect(state('NotifyOwners').End).toBe(true);
  });

  it('is a valid Amazon States Language document (asl-validator)', () => {
    const result = aslValidator(definition);
    expect(result.errorsText?.('\n') ?? '', 'asl-validator errors').toBe('');
    expect(result.isValid).toBe(true);
  });

  it('is a Standard state machine with a timeout, X-Ray tracing and full logging without execution data', () => {
    synthesized.template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      StateMachineType: 'STANDARD',
      TracingConfiguration: { Enabled: true },
      LoggingConfiguration: { Level: 'ALL', IncludeExecutionData: false },
    });
    expect(definition.TimeoutSeconds).toBe(6 * 3600);
  });

  it('reads the per-account workspace groups from S3 in a Distributed Map, accounts × per-account cap within the configured concurrency', () => {
    const map = state('ScanTerraform');
    expect(map.Type).toBe('Map');
    expect(map.ItemProcessor?.ProcessorConfig).toEqual({ Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' });
    expect(map.ItemReader).toEqual({
      Resource: 'arn:aws:states:::s3:getObject',
      ReaderConfig: { InputType: 'JSON' },
      Parameters: { Bucket: expect.stringMatching(/^findingsbucket/), 'Key.$': '$.items.accounts.key' },
    });
    // 40 workspaces at once: 8 accounts at a time, each at most 5 (accountConcurrency's default).
    expect(map.MaxConcurrency).toBe(8);
    expect(map.ToleratedFailurePercentage).toBe(5);
  });

  it('gives every Map its own list, writes results to scratch/ and discards them from the state (256 KiB limit)', () => {
    const lists = {
      CheckBackend: 'buckets',
      ObserveLocks: 'buckets',
      ScanTerraform: 'accounts',
      ScanCluster: 'clusters',
      ConfirmLocks: 'buckets',
    };
    for (const stage of MAP_STAGES) {
      const map = state(stage);
      expect(map.ItemReader?.Parameters['Key.$'], stage).toBe(`$.items.${lists[stage]}.key`);
      expect(map.ResultWriter?.Parameters.Prefix, stage).toBe(`scratch/map-results/${stage}`);
      expect(map.ResultPath, stage).toBeNull();
    }
    // Backends and clusters use their own concurrency defaults.
    expect(state('CheckBackend').MaxConcurrency).toBe(10);
    expect(state('ScanCluster').MaxConcurrency).toBe(5);
  });

  it('retries throttling with exponential backoff and full jitter, and catches every item failure into RecordScanFailure', () => {
    const scopes = {
      CheckBackend: 'bucket',
      ObserveLocks: 'bucket',
      ScanTerraform: 'workspace',
      ScanCluster: 'cluster',
      ConfirmLocks: 'bucket',
    };
    for (const stage of MAP_STAGES) {
      // ScanTerraform's items are one level down, inside the per-account Map.
      const processor =
        stage === 'ScanTerraform'
          ? state(stage).ItemProcessor?.States.ScanTerraformAccount?.ItemProcessor
          : state(stage).ItemProcessor;
      const start = stage === 'ScanTerraform' ? 'ScanTerraformRunner' : `${stage}Item`;
      const item = processor?.States[`${stage}Item`];
      expect(processor?.StartAt, stage).toBe(start);
      expect(item?.Retry, stage).toEqual([
        {
          ErrorEquals: TRANSIENT_LAMBDA_ERRORS,
          IntervalSeconds: 2,
          BackoffRate: 2,
          MaxAttempts: 6,
          MaxDelaySeconds: 60,
          JitterStrategy: 'FULL',
        },
      ]);
      expect(TRANSIENT_LAMBDA_ERRORS).toContain('Lambda.TooManyRequestsException');
      expect(item?.Catch, stage).toEqual([
        { ErrorEquals: ['States.ALL'], Next: `Record${stage}Failure`, ResultPath: '$.error' },
      ]);
      const failure = processor?.States[`Record${stage}Failure`];
      expect(failure?.Resource).toMatch(/function:RecordScanFailureFunction/);
      expect(failure?.Parameters).toEqual({
        'scanId.$': '$.scanId',
        'startedAt.$': '$.startedAt',
        'registry.$': '$.registry',
        [`${scopes[stage]}.$`]: `$.${scopes[stage]}`,
        ...(stage === 'ScanTerraform' ? { 'runner.$': '$.runner' } : {}),
        stage,
        'error.$': '$.error',
      });
    }
  });

  it('keeps only pointers in the state: LoadRegistry’s result, never a Lambda result', () => {
    for (const name of ['RecordFindings', 'NotifyOwners']) {
      expect(state(name).ResultPath, name).toBeNull();
      expect(state(name).Parameters).toEqual({
        'scanId.$': '$.scanId',
        'startedAt.$': '$.startedAt',
        'registry.$': '$.registry',
        // RecordFindings also records what failed Maps left undone, and knows a re-scan from a night.
        ...(name === 'RecordFindings' ? { 'failures.$': '$.failures', 'filter.$': '$.filter' } : {}),
      });
    }
    expect(state('LoadRegistry').Resource).toMatch(/function:LoadRegistryFunction/);
    for (const name of ['LoadRegistry', 'RecordFindings', 'NotifyOwners'])
      expect(state(name).Retry?.[0]?.JitterStrategy, name).toBe('FULL');
  });
});
