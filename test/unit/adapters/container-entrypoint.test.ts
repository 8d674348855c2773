import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  entrypointEvent,
  type LambdaLikeContext,
  runContainerEntrypoint,
} from '../../../functions/adapters/container-entrypoint.js';
import { useTempDirs } from '../../helpers/processes.js';

const tempDir = useTempDirs('driftwatch-entrypoint-');
const item = {
  scanId: '20261202T020000Z-x',
  startedAt: '2026-12-02T02:00:00.000Z',
  registry: 's3://b/driftwatch.yaml',
  account: '111111111111',
  workspace: 'payments-prod',
  runner: 'codebuild',
  timeoutSeconds: 7200,
  buildTimeoutMinutes: 125,
};

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, stdout: (line: string) => out.push(line), stderr: (line: string) => err.push(line) };
}

describe('the CodeBuild entrypoint', () => {
  it('hands the Map item to the handler with the build’s remaining time, prints the result and exits 0', async () => {
    const io = capture();
    let seen: { event: unknown; remaining: number } | undefined;
    let clock = 1_000_000;
    const code = await runContainerEntrypoint({
      env: { DRIFTWATCH_EVENT: JSON.stringify(item), CODEBUILD_BUILD_ID: 'proj:42' },
      loadHandler: async () => async (event: unknown, context: LambdaLikeContext) => {
        clock += 60_000;
        seen = { event, remaining: context.getRemainingTimeInMillis() };
        expect(context.awsRequestId).toBe('proj:42');
        return { workspace: 'payments-prod', status: 'ok' };
      },
      now: () => clock,
      ...io,
    });
    expect(code).toBe(0);
    expect(seen?.event).toEqual(item);
    // 125 build minutes, one of them spent.
    expect(seen?.remaining).toBe(124 * 60_000);
    expect(io.out).toEqual(['{"workspace":"payments-prod","status":"ok"}']);
    expect(io.err).toEqual([]);
  });

  it('reads the event from a file for local runs', () => {
    const file = join(tempDir(), 'event.json');
    writeFileSync(file, JSON.stringify(item));
    expect(entrypointEvent({ DRIFTWATCH_EVENT_FILE: file })).toEqual(item);
  });

  it('fails with one line and exit 1 when the handler, its import or the event fails: the build fails, the Catch records it', async () => {
    const cases: Array<[NodeJS.ProcessEnv, () => Promise<never>, RegExp]> = [
      [{}, async () => Promise.reject(new Error('unreachable')), /set DRIFTWATCH_EVENT/],
      [{ DRIFTWATCH_EVENT: '{not json' }, async () => Promise.reject(new Error('unreachable')), /not JSON/],
      [{ DRIFTWATCH_EVENT: '[1]' }, async () => Promise.reject(new Error('unreachable')), /JSON object/],
      [
        { DRIFTWATCH_EVENT: JSON.stringify(item) },
        async () => {
          const error = new Error('environment variable FINDINGS_BUCKET is required\n    at stack');
          error.name = 'ConfigurationError';
          throw error;
        },
        /^driftwatch scan entrypoint: ConfigurationError: environment variable FINDINGS_BUCKET is required$/,
      ],
    ];
    for (const [env, loadHandler, message] of cases) {
      const io = capture();
      expect(await runContainerEntrypoint({ env, loadHandler, ...io })).toBe(1);
      expect(io.err).toHaveLength(1);
      expect(io.err[0]).toMatch(message);
      expect(io.out).toEqual([]);
    }
    const io = capture();
    const failing = await runContainerEntrypoint({
      env: { DRIFTWATCH_EVENT: JSON.stringify(item) },
      loadHandler: async () => async () => {
        throw new Error('workspace payments-prod is not in the registry s3://b/driftwatch.yaml');
      },
      ...io,
    });
    expect(failing).toBe(1);
    expect(io.err).toEqual([
      'driftwatch scan entrypoint: Error: workspace payments-prod is not in the registry s3://b/driftwatch.yaml',
    ]);
  });

  it('without a build timeout in the item, assumes CodeBuild’s 8 hours', async () => {
    let remaining = 0;
    await runContainerEntrypoint({
      env: { DRIFTWATCH_EVENT: JSON.stringify({ ...item, buildTimeoutMinutes: null }) },
      loadHandler: async () => async (_event: unknown, context: LambdaLikeContext) => {
        remaining = context.getRemainingTimeInMillis();
        return {};
      },
      now: () => 0,
      ...capture(),
    });
    expect(remaining).toBe(8 * 3600_000);
  });
});
