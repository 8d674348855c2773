import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliError } from '../../../cli/context.js';
import { createFsObjectStore } from '../../../functions/adapters/object-store/fs-object-store.js';
import { recordWorkspaceScan } from '../../../functions/core/findings/lifecycle.js';
import { driftDraft } from '../../helpers/findings.js';
import { suppressInProcess } from '../../helpers/suppress-cli.js';

/** Two open findings whose ids share their first 20 characters (as ids of a large estate can). */
const dir = mkdtempSync(join(tmpdir(), 'driftwatch-suppress-ids-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const shared = 'abcdef0123456789abcd';
const first = `${shared}${'1'.repeat(44)}`;
const second = `${shared}${'2'.repeat(44)}`;

beforeAll(async () => {
  const now = new Date(Date.now() - 60_000);
  const { current } = recordWorkspaceScan(
    undefined,
    [
      driftDraft(),
      driftDraft({ resource: { address: 'aws_s3_bucket.audit', type: 'aws_s3_bucket', provider: 'aws' } }),
    ],
    { workspace: 'payments-prod', scanId: 'scan-1', now, outcome: 'ok', check: 'terraform' },
  );
  current.findings = current.findings.map((finding, index) => ({
    ...finding,
    id: index === 0 ? first : second,
  }));
  await createFsObjectStore(dir).put('current/payments-prod.json', JSON.stringify(current));
});

const suppress = (typed: string) => suppressInProcess(dir, typed);

describe('suppress with ids that share a long prefix', () => {
  it('an ambiguous prefix is refused, naming both', async () => {
    const refused = suppress(shared.slice(0, 16));
    await expect(refused).rejects.toThrow(CliError);
    await expect(refused).rejects.toThrow(`${first.slice(0, 21)}, ${second.slice(0, 21)}`);
  });

  it('the confirmation shows the id long enough to name that finding alone', async () => {
    const out = await suppress(second.slice(0, 24));
    expect(out).toMatch(new RegExp(`^suppressed ${second.slice(0, 21)} \\(`));
  });
});
