import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detachProvidersFromCache } from '../../../functions/adapters/terraform/provider-links.js';
import { scratchDir } from '../../helpers/scratch-dirs.js';

/**
 * The layouts Terraform 1.11 leaves (seen with a filesystem mirror and a plugin cache): the data
 * directory's package is a symlink to the cache entry, which is itself a symlink to the mirror's
 * unpacked package, or (from a registry, a network mirror, a zip) the unpacked package.
 */
const PACKAGE = ['registry.terraform.io', 'hashicorp', 'aws', '5.100.0', 'linux_amd64'];
const BINARY = 'terraform-provider-aws_v5.100.0_x5';

function writePackage(dir: string): void {
  mkdirSync(join(dir, 'docs'), { recursive: true });
  writeFileSync(join(dir, BINARY), 'provider binary');
  writeFileSync(join(dir, 'docs', 'LICENSE.txt'), 'licence');
  symlinkSync(join('docs', 'LICENSE.txt'), join(dir, 'LICENSE'));
}

function layout(root: string) {
  const mirror = join(root, 'mirror', ...PACKAGE);
  const cache = join(root, 'cache');
  const cached = join(cache, ...PACKAGE);
  const dataDir = join(root, 'work', '.terraform-data');
  const linked = join(dataDir, 'providers', ...PACKAGE);
  mkdirSync(join(cached, '..'), { recursive: true });
  mkdirSync(join(linked, '..'), { recursive: true });
  symlinkSync(cached, linked);
  return { mirror, cache, cached, dataDir, linked };
}

/** What another init does to the cache entry before it links the package anew. */
const removeCacheEntry = (cached: string) => rmSync(cached, { recursive: true, force: true });

const readPackage = (dir: string) => ({
  binary: readFileSync(join(dir, BINARY), 'utf8'),
  licence: readFileSync(join(dir, 'LICENSE'), 'utf8'),
});

describe('detachProvidersFromCache', () => {
  it('points a package linked from a mirror through the cache at the mirror itself', async () => {
    const { mirror, cache, cached, dataDir, linked } = layout(scratchDir('driftwatch-links-'));
    writePackage(mirror);
    symlinkSync(mirror, cached);

    expect(await detachProvidersFromCache(dataDir, cache)).toEqual([]);
    removeCacheEntry(cached);
    expect(readlinkSync(linked)).toBe(mirror);
    expect(readPackage(linked)).toEqual({ binary: 'provider binary', licence: 'licence' });
  });

  it('hard-links a package unpacked in the cache, so its files outlive the cache entry', async () => {
    const { cache, cached, dataDir, linked } = layout(scratchDir('driftwatch-links-'));
    writePackage(cached);

    expect(await detachProvidersFromCache(dataDir, cache)).toEqual([]);
    expect(lstatSync(linked).isDirectory()).toBe(true);
    // The same files, not copies (a provider binary is hundreds of MB).
    expect(statSync(join(linked, BINARY)).ino).toBe(statSync(join(cached, BINARY)).ino);
    removeCacheEntry(cached);
    expect(readPackage(linked)).toEqual({ binary: 'provider binary', licence: 'licence' });
    // Nothing staged is left beside the package.
    expect(readdirSync(join(linked, '..'))).toEqual(['linux_amd64']);
  });

  it('leaves alone what is not a linked package of the layout', async () => {
    const root = scratchDir('driftwatch-links-');
    const { cache, cached, dataDir, linked } = layout(root);
    writePackage(cached);
    // A package Terraform installed into the data directory itself (no cache), and a stray link.
    const installed = join(
      dataDir,
      'providers',
      'registry.terraform.io',
      'hashicorp',
      'null',
      '3.2.4',
      'linux_amd64',
    );
    writePackage(installed);
    const stray = join(dataDir, 'providers', 'not a host');
    symlinkSync(cached, stray);

    await detachProvidersFromCache(dataDir, cache);
    expect(lstatSync(linked).isDirectory()).toBe(true);
    expect(lstatSync(stray).isSymbolicLink()).toBe(true);
    expect(statSync(join(installed, BINARY)).nlink).toBe(1);
  });

  it('a data directory without providers (init failed early) is nothing to detach', async () => {
    const root = scratchDir('driftwatch-links-');
    expect(await detachProvidersFromCache(join(root, 'missing'), join(root, 'cache'))).toEqual([]);
  });

  describe('across file systems', () => {
    // /dev/shm is a tmpfs on Linux, another file system than the temporary directory's.
    const shm = mkdtempSync('/dev/shm/driftwatch-links-');
    afterAll(() => rmSync(shm, { recursive: true, force: true }));

    it('premise: the cache and the data directory are on different devices', () => {
      expect(statSync(shm).dev).not.toBe(statSync(scratchDir('driftwatch-links-')).dev);
    });

    it('keeps the link and names the package when no hard link is possible', async () => {
      const cache = join(shm, 'cache');
      const cached = join(cache, ...PACKAGE);
      writePackage(cached);
      const dataDir = join(scratchDir('driftwatch-links-'), '.terraform-data');
      const linked = join(dataDir, 'providers', ...PACKAGE);
      mkdirSync(join(linked, '..'), { recursive: true });
      symlinkSync(cached, linked);

      expect(await detachProvidersFromCache(dataDir, cache)).toEqual([PACKAGE.join('/')]);
      expect(readlinkSync(linked)).toBe(cached);
      expect(readdirSync(join(linked, '..'))).toEqual(['linux_amd64']);
    });
  });
});
