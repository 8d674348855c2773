import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsObjectStore } from '../../../functions/adapters/object-store/fs-object-store.js';
import { createFindingsStore } from '../../../functions/core/findings/findings-store.js';
import type { Finding } from '../../../functions/core/findings/model.js';
import { driftDraft } from '../../helpers/findings.js';
import { runCli, TEST_REGISTRY_OWNERS } from '../../helpers/integration.js';

/**
 * Digests send the fallback owner the findings without an owner (a store.corrupt-object finding) and
 * those of a team the registry no longer has; `findings --owner <fallback> --registry` lists them too,
 * as the digest's "+N more" and the team reading it expect.
 */
const dir = mkdtempSync(join(tmpdir(), 'driftwatch-fallback-owner-'));
const store = join(dir, 'store');
const registry = join(dir, 'driftwatch.yaml');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  const now = new Date();
  const resource = (address: string) => ({ address, type: address.split('.')[0]!, provider: 'aws' });
  await createFindingsStore(createFsObjectStore(store)).recordWorkspace(
    { scanId: 'scan-1', startedAt: now, now },
    { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
    [
      driftDraft({ owner: 'platform', resource: resource('aws_sqs_queue.platform') }),
      driftDraft({ owner: undefined, resource: resource('aws_sqs_queue.nobody') }),
      driftDraft({ owner: 'retired-team', resource: resource('aws_sqs_queue.retired') }),
      driftDraft({ owner: 'payments', resource: resource('aws_sqs_queue.payments') }),
    ],
  );
  writeFileSync(
    registry,
    [
      ...TEST_REGISTRY_OWNERS,
      'workspaces:',
      '  - id: payments-prod',
      '    owner: payments',
      '    environment: prod',
      '    source: { dir: infra }',
      '    backend: { bucket: tfstate, key: payments.tfstate, region: eu-west-1 }',
      '',
    ].join('\n'),
  );
});

const listed = async (args: string[]) => {
  const run = await runCli(['findings', '--store', store, '--format', 'json', ...args]);
  expect(run.stderr).toBe('');
  return (JSON.parse(run.stdout) as Finding[])
    .map((finding) => (finding.resource && 'address' in finding.resource ? finding.resource.address : ''))
    .sort();
};

describe('findings --owner with a registry', () => {
  it('gives the fallback owner what its digests list: its own, those without an owner and those of a team no longer registered', async () => {
    expect(await listed(['--owner', 'platform', '--registry', registry])).toEqual([
      'aws_sqs_queue.nobody',
      'aws_sqs_queue.platform',
      'aws_sqs_queue.retired',
    ]);
    expect(await listed(['--owner', 'payments', '--registry', registry])).toEqual(['aws_sqs_queue.payments']);
  });

  it('without a registry, the owner recorded on each finding', async () => {
    expect(await listed(['--owner', 'platform'])).toEqual(['aws_sqs_queue.platform']);
  });
});
