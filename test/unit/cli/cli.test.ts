import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../../functions/core/findings/model.js';
import { runCli } from '../../helpers/integration.js';

/** The CLI contract without Terraform: bad input gets a clear error, exit codes, formats. */
const dir = mkdtempSync(join(tmpdir(), 'driftwatch-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { DRIFTWATCH_HASH_SALT: 'cli-test-salt-000000001' };

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe('driftwatch scan with an invalid registry', () => {
  it('exits 1, names the path and line, and writes nothing', async () => {
    const registry = file(
      'bad.yaml',
      [
        'version: 1',
        'owners: { fallback: platform, teams: [{ id: platform, destinations: [{ type: email, address: team@example.com }] }] }',
        'workspaces:',
        '  - id: Payments_Prod',
        '    owner: platform',
        '    bakend: {}',
        '',
      ].join('\n'),
    );
    const store = join(dir, 'store-never-written');
    const run = await runCli(['scan', '--registry', registry, '--store', store], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/bad\.yaml:4:\d+ workspaces\[0\]\.id/);
    expect(run.stderr).toMatch(/bad\.yaml:6:\d+ workspaces\[0\]\.bakend: .*did you mean 'backend'/);
    expect(run.stdout).toBe('');
    expect(existsSync(store)).toBe(false);
  });

  it('exits 1 on YAML that does not parse', async () => {
    const registry = file('syntax.yaml', 'version: 1\nowners: [unclosed\n');
    const run = await runCli(['scan', '--registry', registry, '--store', join(dir, 'nothing')], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/syntax\.yaml:\d+:\d+/);
  });

  it.each([
    ['a typo', ['paymnets'], /'paymnets' \(did you mean payments\?\)/],
    ['a far-off id', ['nothing-like-it'], /'nothing-like-it' in .*two\.yaml/],
    ['one good and one mistyped', ['network', 'netwrok'], /'netwrok' \(did you mean network\?\)/],
  ])(
    'a --workspace the registry lacks (%s) names it, the likely id and the ids there; nothing is written',
    async (_case, ids, expected) => {
      const registry = file(
        'two.yaml',
        [
          'version: 1',
          'owners: { fallback: platform, teams: [{ id: platform, destinations: [{ type: email, address: team@example.com }] }] }',
          'workspaces:',
          ...['payments', 'network'].flatMap((id) => [
            `  - id: ${id}`,
            '    owner: platform',
            '    environment: prod',
            `    source: { dir: ${id} }`,
            `    backend: { bucket: tfstate, key: ${id}.tfstate, region: eu-west-1 }`,
          ]),
          '',
        ].join('\n'),
      );
      const store = join(dir, 'typo-store');
      const run = await runCli(['scan', '--registry', registry, '--store', store, '--workspace', ...ids], {
        env,
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(expected);
      expect(run.stderr).toContain('pass --workspace with ids it has (payments, network)');
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stdout).toBe('');
      expect(existsSync(store)).toBe(false);
    },
  );

  it('an empty --workspace is a usage error before the registry is read; nothing is written', async () => {
    const store = join(dir, 'empty-id-store');
    const run = await runCli(
      ['scan', '--registry', join(dir, 'missing.yaml'), '--store', store, '--workspace', ''],
      { env },
    );
    expect(run.code).toBe(64);
    expect(run.stderr).toBe('driftwatch: --workspace is empty: give a value, or leave --workspace out\n');
    expect(run.stdout).toBe('');
    expect(existsSync(store)).toBe(false);
  });

  it('exits 1 when the registry file is missing', async () => {
    const run = await runCli(['scan', '--registry', join(dir, 'missing.yaml')], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('cannot read registry');
  });
});

describe('driftwatch scan --topic with an SNS that accepts nothing', () => {
  it('says which digests were not sent and where they wait, and exits 1', async () => {
    const registry = file(
      'unsent.yaml',
      [
        'version: 1',
        'owners: { fallback: platform, teams: [{ id: platform, destinations: [{ type: email, address: team@example.com }] }] }',
        'workspaces:',
        '  - { id: app, owner: platform, environment: prod, source: { dir: ./missing }, backend: { bucket: tfstate-app, key: app.tfstate, region: eu-west-1 } }',
        '',
      ].join('\n'),
    );
    const run = await runCli(
      [
        'scan',
        '--registry',
        registry,
        '--store',
        join(dir, 'unsent-store'),
        '--topic',
        'arn:aws:sns:eu-west-1:123456789012:digests',
      ],
      {
        // Nothing listens on port 9: the backend check fails, and so does every publish.
        env: {
          ...env,
          AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
          AWS_REGION: 'eu-west-1',
          AWS_ACCESS_KEY_ID: 'test',
          AWS_SECRET_ACCESS_KEY: 'test',
        },
      },
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^driftwatch: 1 digest not accepted by SNS: \S+\.platform \(connect ECONNREFUSED 127\.0\.0\.1:9\)\. Kept in notifications\/outbox\/ and sent by the next run; check the topic/m,
    );
    expect(existsSync(join(dir, 'unsent-store', 'notifications', 'outbox'))).toBe(true);
  });
});

describe('driftwatch evaluate-plan with bad plan files', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['not-json.json', 'this is not json', /not JSON/i],
    [
      'truncated.json',
      '{"format_version":"1.2","resource_drift":[{"address":"a',
      /not JSON|truncated|unexpected end/i,
    ],
    ['empty.json', '', /empty/i],
    ['future.json', '{"format_version":"2.0","terraform_version":"2.0.0"}', /format_version 2\.0/],
  ];
  it.each(cases)(
    '%s becomes one scan-failed finding with the reason, exit 1',
    async (name, content, reason) => {
      const run = await runCli(['evaluate-plan', file(name, content), '--format', 'json'], { env });
      expect(run.code).toBe(1);
      const findings = JSON.parse(run.stdout) as Finding[];
      expect(findings).toHaveLength(1);
      expect(findings[0]).toMatchObject({ kind: 'scan-failed', workspace: 'adhoc' });
      expect(findings[0]!.detail).toMatch(reason);
    },
  );

  it('a plan file that does not exist is a scan-failed finding too', async () => {
    const run = await runCli(['evaluate-plan', join(dir, 'nope.json'), '--format', 'json'], { env });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)[0].detail).toContain('no such file');
  });
});

describe('driftwatch evaluate-plan exit codes and formats', () => {
  const refreshOnly = (drift: unknown[]) =>
    JSON.stringify({
      format_version: '1.2',
      terraform_version: '1.11.4',
      resource_drift: drift,
      errored: false,
      complete: true,
    });
  const tagDrift = {
    address: 'aws_s3_bucket.a',
    mode: 'managed',
    type: 'aws_s3_bucket',
    name: 'a',
    provider_name: 'registry.terraform.io/hashicorp/aws',
    change: {
      actions: ['update'],
      before: { bucket: 'a', tags: { Owner: 'x' } },
      after: { bucket: 'a', tags: { Owner: 'y' } },
      before_sensitive: {},
      after_sensitive: {},
    },
  };

  it('exits 0 with no drift (whatever terraform itself would have returned)', async () => {
    const run = await runCli(['evaluate-plan', file('clean.json', refreshOnly([]))], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('No findings');
  });

  it('exits 2 with drift above info, as a table or as one JSON array', async () => {
    const plan = file('drift.json', refreshOnly([tagDrift]));
    const table = await runCli(['evaluate-plan', plan, '--workspace', 'payments-prod'], { env });
    expect(table.code).toBe(2);
    expect(table.stdout).toMatch(/^ID\s+SEVERITY\s+STATUS\s+WORKSPACE/);
    expect(table.stdout).toContain('tags.Owner: x → y');
    const json = await runCli(['evaluate-plan', plan, '--format', 'json'], { env });
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toEqual([
      expect.objectContaining({ ruleId: 'drift.update', status: 'new' }),
    ]);
    expect(json.stderr).toBe('');
  });

  it('rejects an unknown format as a usage error (exit 64)', async () => {
    const run = await runCli(['evaluate-plan', file('x.json', refreshOnly([])), '--format', 'yaml'], { env });
    expect(run.code).toBe(64);
    expect(run.stderr).toContain('table, json, markdown or sarif');
  });
});

describe('driftwatch invoke', () => {
  it('names the known handlers when given an unknown one', async () => {
    const run = await runCli(['invoke', 'nope', '--event', file('e.json', '{}')], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('scan-terraform');
  });

  it('a missing or non-JSON event file is one line naming the sample event to start from', async () => {
    const missing = await runCli(['invoke', 'scan-terraform', '--event', join(dir, 'no-such-event.json')], {
      env,
    });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(
      /cannot read event .*no-such-event\.json \(ENOENT\): .*events\/scan-terraform\.json/,
    );
    const notJson = await runCli(
      ['invoke', 'check-backend', '--event', file('not-json.json', '{scanId: 1}')],
      {
        env,
      },
    );
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toMatch(
      /event .*not-json\.json is not JSON \(.*\): .*events\/check-backend\.json/,
    );
    expect(notJson.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('rejects an invalid event with the offending fields', async () => {
    const run = await runCli(
      ['invoke', 'scan-terraform', '--event', file('bad-event.json', '{"scanId":"x y"}')],
      {
        env: { ...env, DRIFTWATCH_STORE: join(dir, 'invoke-store') },
      },
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/scanId/);
    expect(run.stderr).toMatch(/workspace/);
  });
});
