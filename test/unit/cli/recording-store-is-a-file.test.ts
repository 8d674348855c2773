import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, writeRegistry } from '../../helpers/integration.js';

/**
 * `scan` and `cluster-diff` record findings, so a missing store is created; a `--store` that names a
 * file (the registry, typed in the wrong place) is said as such, as check-backend, locks and the
 * reading commands say it. Both said `cannot read the findings store at … (ENOTDIR): check its
 * permissions`, a cause that is not the one. Nothing is read before: no terraform, no cluster.
 */
const dir = mkdtempSync(join(tmpdir(), 'driftwatch-store-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const registry = writeRegistry(join(dir, 'driftwatch.yaml'), [{ id: 'app', dir: 'app' }]);
const overlay = join(dir, 'overlay');
mkdirSync(overlay);
writeFileSync(join(dir, 'notes.txt'), 'not a store\n');
// Nothing listens there: a request to AWS would fail with another line.
const env = { AWS_ENDPOINT_URL: 'http://127.0.0.1:9', AWS_REGION: 'eu-west-1' };

describe('a recording command given a file as --store', () => {
  it.each([
    ['scan', ['scan', '--registry', registry]],
    ['cluster-diff', ['cluster-diff', '--kustomize', overlay, '--context', 'prod']],
  ])('%s says the store is a file (exit 1)', async (_command, args) => {
    const [file, below] = await Promise.all([
      runCli([...args, '--store', 'notes.txt'], { cwd: dir, env }),
      runCli([...args, '--store', 'notes.txt/store'], { cwd: dir, env }),
    ]);
    expect(file.code).toBe(1);
    expect(file.stderr).toBe(
      'driftwatch: the findings store notes.txt is a file, not a directory: pass --store with a directory or s3://bucket\n',
    );
    expect(below.code).toBe(1);
    expect(below.stderr).toBe(
      'driftwatch: the findings store notes.txt/store is below a file, not in a directory: pass --store with a directory or s3://bucket\n',
    );
    expect(file.stdout + below.stdout).toBe('');
  });
});
