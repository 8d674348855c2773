import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsObjectStore } from '../../../functions/adapters/object-store/fs-object-store.js';
import { createFindingsStore } from '../../../functions/core/findings/findings-store.js';
import { driftDraft } from '../../helpers/findings.js';
import { runCli } from '../../helpers/integration.js';
import { entry, plan, securityGroupValues } from '../../helpers/plan-builders.js';
import { sarifValidator } from '../../helpers/sarif-schema.js';

/** The wiring of --format markdown|sarif, --severity and --fail-on, through the built CLI. */
const dir = mkdtempSync(join(tmpdir(), 'driftwatch-listing-formats-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { DRIFTWATCH_HASH_SALT: 'listing-formats-test-salt-01' };
const storeDir = join(dir, 'store');
const planPath = join(dir, 'plan.json');

interface Log {
  runs: {
    results: { level: string; locations: { physicalLocation?: { artifactLocation: { uri: string } } }[] }[];
  }[];
}

beforeAll(async () => {
  // A security group whose ingress opened to the world in prod: one finding above medium.
  const before = securityGroupValues({ tags: { Name: 'db' } });
  const after = securityGroupValues({ tags: { Name: 'db|`changed`' } });
  writeFileSync(
    planPath,
    JSON.stringify(plan({ drift: [entry('aws_security_group.db', { actions: ['update'], before, after })] })),
  );
  mkdirSync(join(dir, 'infra', 'db'), { recursive: true });
  writeFileSync(join(dir, 'infra', 'db', 'main.tf'), 'resource "aws_security_group" "db" {}\n');

  const store = createFindingsStore(createFsObjectStore(storeDir));
  const at = new Date(Date.now() - 60_000);
  await store.recordWorkspace(
    { scanId: 'scan-a', startedAt: at, now: at },
    { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
    [
      driftDraft({ severity: 'high' }),
      driftDraft({
        severity: 'low',
        resource: { address: 'aws_sqs_queue.jobs', type: 'aws_sqs_queue' },
        title: 'aws_sqs_queue.jobs changed outside Terraform: tags.Team',
      }),
    ],
  );
});

describe('evaluate-plan --format markdown|sarif, --severity, --fail-on', () => {
  it('markdown: a summary line, then an escaped table; exit 2 as for the table', async () => {
    const run = await runCli(['evaluate-plan', planPath, '--format', 'markdown', '--environment', 'prod'], {
      env,
    });
    expect(run.code).toBe(2);
    expect(run.stdout).toMatch(
      /^1 finding: 1 \w+\n\n\| ID \| Severity \| Status \| Workspace \| Rule \| Resource \| What changed \|\n/,
    );
    expect(run.stdout).toContain('`aws_security_group.db`');
    expect(run.stdout).toContain('db\\|\\`changed\\`');
  });

  it('sarif: a valid SARIF 2.1.0 log located in the --config directory', async () => {
    const run = await runCli(
      ['evaluate-plan', 'plan.json', '--format', 'sarif', '--environment', 'prod', '--config', 'infra/db'],
      { env, cwd: dir },
    );
    expect(run.code).toBe(2);
    const log = JSON.parse(run.stdout) as Log;
    const validate = sarifValidator();
    expect(validate(log), JSON.stringify(validate.errors)).toBe(true);
    expect(log.runs[0]!.results).toHaveLength(1);
    expect(log.runs[0]!.results[0]!.locations[0]!.physicalLocation).toEqual({
      artifactLocation: { uri: 'infra/db/' },
    });
  });

  it('--severity hides findings below it (and they no longer fail the run); --fail-on raises the bar', async () => {
    const hidden = await runCli(['evaluate-plan', planPath, '--severity', 'critical', '--format', 'json'], {
      env,
    });
    expect(hidden.stdout).toBe('[]\n');
    expect(hidden.code).toBe(0);
    const notFailing = await runCli(
      ['evaluate-plan', planPath, '--fail-on', 'critical', '--format', 'json'],
      {
        env,
      },
    );
    expect((JSON.parse(notFailing.stdout) as unknown[]).length).toBe(1);
    expect(notFailing.code).toBe(0);
  });

  it('an unknown level or format is a usage error naming the allowed values (exit 64)', async () => {
    const badLevel = await runCli(['evaluate-plan', planPath, '--fail-on', 'severe'], { env });
    expect(badLevel.code).toBe(64);
    expect(badLevel.stderr).toContain('critical, high, medium, low, info');
    const badFormat = await runCli(['evaluate-plan', planPath, '--format', 'yaml'], { env });
    expect(badFormat.code).toBe(64);
    expect(badFormat.stderr).toContain('table, json, markdown or sarif');
  });
});

describe('findings --format markdown|sarif, --severity, --fail-on', () => {
  it('markdown with --severity lists only the findings at or above it', async () => {
    const run = await runCli(['findings', '--store', storeDir, '--format', 'markdown', '--severity', 'high']);
    expect(run.code).toBe(2);
    expect(run.stdout.split('\n')[0]).toBe('1 finding: 1 high');
    expect(run.stdout).toContain('`aws_s3_bucket.ledger`');
    expect(run.stdout).not.toContain('aws_sqs_queue.jobs');
  });

  it('sarif of the store is valid, one result per open finding, levels from severities', async () => {
    const run = await runCli(['findings', '--store', storeDir, '--format', 'sarif']);
    expect(run.code).toBe(2);
    const log = JSON.parse(run.stdout) as Log;
    const validate = sarifValidator();
    expect(validate(log), JSON.stringify(validate.errors)).toBe(true);
    expect(log.runs[0]!.results.map((result) => result.level)).toEqual(['error', 'note']);
  });

  it('--fail-on: exit 2 only for a shown finding at or above it; an empty listing says No findings.', async () => {
    expect((await runCli(['findings', '--store', storeDir, '--fail-on', 'high'])).code).toBe(2);
    expect((await runCli(['findings', '--store', storeDir, '--fail-on', 'critical'])).code).toBe(0);
    const none = await runCli([
      'findings',
      '--store',
      storeDir,
      '--format',
      'markdown',
      // A kind none of its findings has (a workspace no scan recorded is an error, not an empty listing).
      '--kind',
      'workspace-busy',
    ]);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('No findings.\n');
  });

  it('markdown never says No findings. when the store could not be read (exit 1)', async () => {
    const corruptDir = join(dir, 'corrupt');
    mkdirSync(join(corruptDir, 'current'), { recursive: true });
    writeFileSync(join(corruptDir, 'current', 'payments-prod.json'), '{"findings": [');
    const run = await runCli(['findings', '--store', corruptDir, '--format', 'markdown']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('not a valid current document');
  });

  it('--health prints a table or json: markdown and sarif are usage errors (exit 64)', async () => {
    const run = await runCli(['findings', '--health', '--store', storeDir, '--format', 'sarif']);
    expect(run.code).toBe(64);
    expect(run.stderr).toContain('--health prints a table or json');
  });
});
