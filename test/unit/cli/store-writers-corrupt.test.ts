import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { retireAction } from '../../../cli/commands/retire-action.js';
import { CliError } from '../../../cli/usage.js';
import { createFsObjectStore } from '../../../functions/adapters/object-store/fs-object-store.js';
import { createFindingsStore } from '../../../functions/core/findings/findings-store.js';
import { actionOutput } from '../../helpers/action-output.js';
import { driftDraft } from '../../helpers/findings.js';
import { suppressInProcess } from '../../helpers/suppress-cli.js';
import { HEADER, WORKSPACE, yaml } from '../core/registry/helpers.js';

/**
 * `suppress` and `retire` read every scope's current document to find an id or a scope. A corrupt
 * one of another scope was quarantined (moved away) by them without a word: listings then lacked
 * that scope's findings with no line saying so, and the next scan, which never heard of it, recorded
 * the scope afresh with no store.corrupt-object finding. They now leave it in place, for the next
 * scan to quarantine and report, and say so on stderr.
 */
let dir: string;
let storeDir: string;
const night = new Date('2026-12-01T02:00:00Z');
const CORRUPT = '{"schemaVersion": 1, "workspace": "billing-prod", "findin';

async function recordNight(scope: string, address: string) {
  await createFindingsStore(createFsObjectStore(storeDir)).recordWorkspace(
    { scanId: 'night-1', startedAt: night, now: night },
    { workspace: scope, check: 'terraform', outcome: 'ok' },
    [driftDraft({ workspace: scope, resource: { address, type: 'aws_s3_bucket' } })],
  );
}

function captureStderr() {
  let err = '';
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    err += String(chunk);
    return true;
  });
  return { text: () => err, restore: () => spy.mockRestore() };
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'driftwatch-writers-corrupt-'));
  storeDir = join(dir, 'store');
  await recordNight('payments-prod', 'aws_s3_bucket.ledger');
  await recordNight('old-payments', 'aws_s3_bucket.audit');
  writeFileSync(join(storeDir, 'current', 'billing-prod.json'), CORRUPT);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const corruptLeftInPlace = () => {
  expect(readFileSync(join(storeDir, 'current', 'billing-prod.json'), 'utf8')).toBe(CORRUPT);
  expect(existsSync(join(storeDir, 'quarantine'))).toBe(false);
};

describe('a corrupt current document of another scope', () => {
  it('suppress does its work, leaves it in place and says so in one line', async () => {
    const [open] = await createFindingsStore(createFsObjectStore(storeDir), {
      readOnly: true,
    }).openFindings();
    const stderr = captureStderr();
    try {
      const out = await suppressInProcess(storeDir, open!.id.slice(0, 12));
      expect(out).toMatch(/^suppressed /);
    } finally {
      stderr.restore();
    }
    const lines = stderr.text().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^driftwatch: current\/billing-prod\.json in the findings store is not a valid current document \(not JSON/,
    );
    expect(lines[0]).toContain('left in place');
    corruptLeftInPlace();
  });

  it('retire does its work, leaves it in place and says so in one line', async () => {
    const registry = join(dir, 'driftwatch.yaml');
    writeFileSync(registry, yaml(...HEADER, 'workspaces:', ...WORKSPACE));
    const stderr = captureStderr();
    try {
      // A scope that holds nothing reads every document to suggest a near one.
      const missing = await actionOutput((run) =>
        retireAction(run, 'old-paymnts', { registry, store: storeDir }),
      ).catch((error: unknown) => error);
      expect((missing as Error).message).toContain('holds no findings of old-paymnts');
      const { code } = await actionOutput((run) =>
        retireAction(run, 'old-payments', { registry, store: storeDir }),
      );
      expect(code).toBe(0);
    } finally {
      stderr.restore();
    }
    expect(stderr.text()).toMatch(
      /^driftwatch: current\/billing-prod\.json in the findings store is not a valid current document/,
    );
    corruptLeftInPlace();
  });

  it('retire of the corrupt scope itself says its document cannot be read, once, not that it holds no findings', async () => {
    const registry = join(dir, 'driftwatch.yaml');
    writeFileSync(registry, yaml(...HEADER, 'workspaces:', ...WORKSPACE));
    const stderr = captureStderr();
    let refused: unknown;
    try {
      refused = await actionOutput((run) =>
        retireAction(run, 'billing-prod', { registry, store: storeDir }),
      ).catch((error: unknown) => error);
    } finally {
      stderr.restore();
    }
    expect(stderr.text()).toBe('');
    expect(refused).toBeInstanceOf(CliError);
    expect((refused as Error).message).toMatch(
      /^current\/billing-prod\.json in .* is not a valid current document \(not JSON .*\): its findings cannot be read, so none was retired; restore a good version of it, then run retire again$/,
    );
    corruptLeftInPlace();
  });
});
