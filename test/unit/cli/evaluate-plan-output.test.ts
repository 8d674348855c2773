import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateResourceAt, writePlan } from '../../../bench/evaluate-plan.js';
import { REPO_ROOT, runCli } from '../../helpers/integration.js';
import { entry, plan, securityGroupValues } from '../../helpers/plan-builders.js';

/**
 * `evaluate-plan --format json` writes its output as it goes (streamed, in batches of findings) for
 * speed on large plans; these are the bytes the one-string renderer printed before that change,
 * recorded then (sha256 of the output with the clock's two timestamps fixed) so that any difference
 * (indentation, separators between batches, order, escapes) fails here.
 */
const dir = mkdtempSync(join(tmpdir(), 'driftwatch-evaluate-output-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { DRIFTWATCH_HASH_SALT: 'evaluate-output-test-salt-01' };

/** The run's clock is the only varying part of the output (plans are named relative to `dir`). */
function normalised(stdout: string): string {
  return stdout.replace(/"(firstSeenAt|lastSeenAt)": "[^"]+"/g, '"$1": "<now>"');
}
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

async function evaluate(planPath: string): Promise<{ code: number | null; output: string }> {
  const run = await runCli(
    ['evaluate-plan', basename(planPath), '--format', 'json', '--environment', 'prod'],
    {
      env,
      cwd: dir,
    },
  );
  return { code: run.code, output: normalised(run.stdout) };
}

describe('evaluate-plan --format json output is byte-identical to the one-string renderer', () => {
  it('prints [] and a newline for a plan without drift', async () => {
    const path = join(dir, 'empty.json');
    writeFileSync(path, JSON.stringify(plan()));
    const { code, output } = await evaluate(path);
    expect(code).toBe(0);
    expect(output).toBe('[]\n');
  });

  it('prints one finding as before (control characters and bidi escapes included)', async () => {
    const path = join(dir, 'one.json');
    const before = securityGroupValues({ tags: { Name: 'db' } });
    const after = securityGroupValues({ tags: { Name: 'db\u202e\u0085\u2028 changed' } });
    writeFileSync(
      path,
      JSON.stringify(
        plan({ drift: [entry('aws_security_group.db', { actions: ['update'], before, after })] }),
      ),
    );
    const { code, output } = await evaluate(path);
    expect(code).toBe(2);
    expect(output).toContain('\\u202e');
    expect(sha256(output)).toBe(EXPECTED.one);
  });

  for (const [name, resources] of [
    ['small', 60],
    ['several batches', 1500],
  ] as const)
    it(`prints the findings of a generated ${resources}-resource plan (${name}) as before`, async () => {
      const path = join(dir, `plan-${resources}.json`);
      await writePlan(path, resources, generateResourceAt);
      const { code, output } = await evaluate(path);
      expect(code).toBe(2);
      expect(output.startsWith('[\n  {\n    "kind": ')).toBe(true);
      expect(sha256(output)).toBe(EXPECTED[resources]);
    });

  it('writes the same bytes when stdout is a file (`> findings.json`, written through its own stream)', async () => {
    const path = join(dir, 'plan-file-out.json');
    await writePlan(path, 1500, generateResourceAt);
    const outPath = join(dir, 'findings-out.json');
    const out = openSync(outPath, 'w');
    const run = spawnSync(
      process.execPath,
      [
        join(REPO_ROOT, 'bin', 'driftwatch.js'),
        'evaluate-plan',
        basename(path),
        '--format',
        'json',
        '--environment',
        'prod',
      ],
      { cwd: dir, env: { ...process.env, ...env }, stdio: ['ignore', out, 'pipe'] },
    );
    closeSync(out);
    expect(run.status).toBe(2);
    expect(sha256(normalised(readFileSync(outPath, 'utf8')))).toBe(EXPECTED[1500]);
  });

  it('prints the scan-failed finding of an unreadable plan as before', async () => {
    const path = join(dir, 'broken.json');
    writeFileSync(path, '{"format_version": "1.2", "resource_drift": [');
    const { code, output } = await evaluate(path);
    expect(code).toBe(1);
    expect(sha256(output)).toBe(EXPECTED.broken);
  });
});

const EXPECTED: Record<string, string> = {
  one: 'd63138b4b6e6ab1ab30bc8d44cd91c2c1f0c55397e44c56fa577bca59cd14228',
  60: '83470b147214d7d01afa2c9de7b6c4e47c64c0f152859c66300c0860fe6e818a',
  1500: '56e93ad467a97f791ffb56e386f4fc4d63a3e2b4386c7d67d66fb95947568fef',
  broken: '8ab54b195c8a5fc2a04e20b63960ee2300b7e2c4b0555da750dc3825072e4f13',
};
