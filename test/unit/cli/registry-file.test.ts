import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliError, loadRegistryFile } from '../../../cli/context.js';

/** A --registry that cannot be a registry is one line saying why, before YAML ever sees it. */
const dir = mkdtempSync(join(tmpdir(), 'driftwatch-registry-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function reasonOf(path: string): string {
  try {
    loadRegistryFile(path);
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    return (error as Error).message;
  }
  throw new Error('expected a CliError');
}

describe('loadRegistryFile', () => {
  it('names a missing file, a directory, a non-UTF-8 file and an oversized one', () => {
    expect(reasonOf(join(dir, 'missing.yaml'))).toMatch(
      /^cannot read registry \S+missing\.yaml: no such file \(pass --registry/,
    );
    mkdirSync(join(dir, 'folder'));
    expect(reasonOf(join(dir, 'folder'))).toMatch(/: it is a directory \(pass --registry/);
    const latin1 = join(dir, 'latin1.yaml');
    writeFileSync(latin1, Buffer.from('version: 1\nowners: "café"\n', 'latin1'));
    expect(reasonOf(latin1)).toMatch(/latin1\.yaml is not UTF-8 text/);
    const big = join(dir, 'big.yaml');
    writeFileSync(big, Buffer.alloc(16 * 1024 * 1024 + 1, 0x20));
    expect(reasonOf(big)).toMatch(/big\.yaml is 17 MiB, over the 16 MiB limit of a registry/);
  });
});
