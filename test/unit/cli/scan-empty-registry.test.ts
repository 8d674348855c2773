import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanAction } from '../../../cli/commands/scan-action.js';
import { CliError } from '../../../cli/usage.js';
import { useTempDirs } from '../../helpers/processes.js';

const tempDir = useTempDirs('driftwatch-scan-empty-');

describe('scan of a registry with nothing in it', () => {
  it('is an error naming the file and the fix, before anything is written; never "No findings."', async () => {
    const dir = tempDir();
    // What `driftwatch init` writes for a bucket that holds no state yet.
    const registry = join(dir, 'driftwatch.yaml');
    writeFileSync(
      registry,
      [
        'version: 1',
        'owners: { fallback: platform, teams: [{ id: platform, destinations: [{ type: email, address: p@example.com }] }] }',
        'workspaces: []',
        '',
      ].join('\n'),
    );
    const store = join(dir, 'store');
    const codes: number[] = [];
    const error = await scanAction((code) => codes.push(code), {
      registry,
      store,
      format: 'table',
    } as Parameters<typeof scanAction>[1]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).message).toBe(
      `nothing to scan: ${registry} lists no workspaces and no clusters; add the Terraform roots whose state to scan (driftwatch init --bucket <state bucket> writes one entry per state it finds)`,
    );
    expect(codes).toEqual([]);
    expect(existsSync(store)).toBe(false);
  });
});
