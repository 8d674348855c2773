import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { stageImageContext } from '../../infra/constructs/driftwatch-function.js';
import { SCANNER_DOCKERFILE } from '../../infra/driftwatch-stack.js';
import { scratchDir } from '../helpers/scratch-dirs.js';

const work = mkdtempSync(join(tmpdir(), 'driftwatch-codebuild-entrypoint-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the CodeBuild entrypoint in the scanner image', () => {
  it('is a small script beside the Lambda bundle that runs that bundle’s handler on DRIFTWATCH_EVENT, and records the scan in the store', () => {
    const dir = stageImageContext(
      new Stack(new App({ outdir: scratchDir('driftwatch-cdk-test-') }), 'Entrypoint'),
      'scan-terraform',
      SCANNER_DOCKERFILE,
    );
    const script = join(dir, 'handler', 'runner-entrypoint.mjs');
    expect(existsSync(script)).toBe(true);
    const code = readFileSync(script, 'utf8');
    expect(code).toContain('./index.mjs');
    // The handler is not bundled a second time: the script is a fraction of index.mjs.
    expect(statSync(script).size * 20).toBeLessThan(statSync(join(dir, 'handler', 'index.mjs')).size);

    // A real run of the staged files, as CodeBuild would run them (minus AWS): a workspace whose source
    // is missing fails its scan quickly, and the scan-failed finding lands in the local store.
    const store = join(work, 'store');
    const registry = join(work, 'driftwatch.yaml');
    writeFileSync(
      registry,
      [
        'version: 1',
        'owners: { fallback: platform, teams: [{ id: platform, destinations: [{ type: email, address: p@example.com }] }] }',
        'workspaces:',
        '  - { id: long-one, owner: platform, environment: prod, runner: codebuild, source: { dir: missing }, backend: { bucket: tfstate-x, key: x.tfstate, region: eu-west-1 } }',
        '',
      ].join('\n'),
    );
    const event = {
      scanId: 'build-1',
      startedAt: '2026-12-02T02:00:00.000Z',
      registry,
      account: 'default',
      workspace: 'long-one',
      runner: 'codebuild',
      timeoutSeconds: 7200,
      buildTimeoutMinutes: 125,
    };
    const run = spawnSync(process.execPath, [script], {
      cwd: work,
      encoding: 'utf8',
      timeout: 60_000,
      env: {
        PATH: process.env.PATH,
        HOME: work,
        DRIFTWATCH_EVENT: JSON.stringify(event),
        DRIFTWATCH_STORE: store,
        DRIFTWATCH_HASH_SALT: 'entrypoint-test-salt-000001',
        // No AWS here: the identity check fails at once instead of looking for credentials.
        AWS_ACCESS_KEY_ID: 'AKIAFAKEFAKEFAKE0001',
        AWS_SECRET_ACCESS_KEY: 'fake-secret-0001',
        AWS_REGION: 'eu-west-1',
        AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
        AWS_MAX_ATTEMPTS: '1',
      },
    });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout.trim().split('\n').at(-1)!)).toMatchObject({
      scanId: 'build-1',
      workspace: 'long-one',
      status: 'failed',
    });
    const current = JSON.parse(readFileSync(join(store, 'current', 'long-one.json'), 'utf8'));
    expect(current.findings).toEqual([
      expect.objectContaining({ kind: 'scan-failed', ruleId: 'scan.source-failed' }),
    ]);
  }, 120_000);
});
