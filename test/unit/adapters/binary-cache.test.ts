import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import * as openpgp from 'openpgp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type BinaryCacheOptions,
  BinaryInstallError,
  binaryCacheOptionsFromEnv,
  checksumFor,
  createBinaryCache,
  versionsOfIndex,
} from '../../../functions/adapters/terraform/binary-cache.js';
import {
  HASHICORP_RELEASE_KEY,
  OPENTOFU_RELEASE_KEY,
} from '../../../functions/adapters/terraform/release-keys.js';
import {
  generateSigningKey,
  hashicorpIndex,
  releaseLayout,
  type SigningKey,
} from '../../helpers/release-layout.js';

const PLATFORM = { os: 'linux', arch: 'amd64' };
const BASE = 'https://mirror.example.com/terraform';
const TOFU_BASE = 'https://mirror.example.com/tofu';

let temp: string;
let executable: string;
let trustedKey: SigningKey;
let otherKey: SigningKey;

beforeAll(async () => {
  temp = mkdtempSync(join(tmpdir(), 'driftwatch-binary-cache-'));
  executable = join(temp, 'fake-terraform');
  writeFileSync(executable, '#!/bin/sh\necho "fake engine $0"\n');
  chmodSync(executable, 0o755);
  [trustedKey, otherKey] = await Promise.all([generateSigningKey(), generateSigningKey('someone else')]);
});

afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** A fetch over a map of files (URL → bytes); 404 for the rest. Records the URLs requested. */
function fakeFetch(files: Map<string, Uint8Array>) {
  const requested: string[] = [];
  const authorizations: Array<string | undefined> = [];
  const fetch = (async (input: string | URL, init?: RequestInit) => {
    const url = String(input);
    requested.push(url);
    authorizations.push((init?.headers as Record<string, string> | undefined)?.authorization);
    const body = files.get(url);
    return body ? new Response(body) : new Response('not found', { status: 404 });
  }) as typeof globalThis.fetch;
  return { fetch, requested, authorizations };
}

async function layout(
  options: { version?: string; key?: SigningKey; suffix?: string; engine?: 'terraform' | 'opentofu' } = {},
) {
  const engine = options.engine ?? 'terraform';
  const files = await releaseLayout({
    engine,
    version: options.version ?? '1.9.8',
    executable,
    platform: PLATFORM,
    ...('key' in options ? (options.key ? { key: options.key } : {}) : { key: trustedKey }),
    ...(options.suffix ? { signatureSuffix: options.suffix } : {}),
  });
  const base = engine === 'opentofu' ? TOFU_BASE : BASE;
  return new Map([...files].map(([path, body]) => [`${base}/${path}`, body]));
}

function cacheWith(files: Map<string, Uint8Array>, extra: Partial<BinaryCacheOptions> = {}) {
  const fake = fakeFetch(files);
  const cacheDir = extra.cacheDir ?? mkdtempSync(join(temp, 'cache-'));
  const cache = createBinaryCache({
    cacheDir,
    platform: PLATFORM,
    fetch: fake.fetch,
    releaseBaseUrls: { terraform: BASE, opentofu: TOFU_BASE },
    extraKeys: [trustedKey.publicKey],
    ...extra,
  });
  return { cache, cacheDir, requested: fake.requested };
}

async function failure(promise: Promise<unknown>): Promise<BinaryInstallError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BinaryInstallError);
  return error as BinaryInstallError;
}

describe('binary cache: downloads from the release layout', () => {
  it('downloads, verifies the signature and checksum, unpacks an executable, and records its checksum', async () => {
    const { cache, cacheDir } = cacheWith(await layout());
    const path = await cache.ensure('terraform', '1.9.8');
    expect(path).toBe(join(cacheDir, 'terraform', '1.9.8', 'linux_amd64', 'terraform'));
    expect(execFileSync(path, [], { encoding: 'utf8' })).toContain('fake engine');
    const manifest = JSON.parse(readFileSync(`${path}.manifest.json`, 'utf8'));
    expect(manifest).toMatchObject({
      zip: 'terraform_1.9.8_linux_amd64.zip',
      source: `${BASE}/1.9.8/terraform_1.9.8_linux_amd64.zip`,
      signature: expect.stringMatching(/^key [0-9A-F]{16}$/),
    });
    expect(manifest.sha256).toMatch(/^[0-9a-f]{64}$/);
    // Nothing half-done is left beside it.
    expect(readdirSync(dirname(path)).sort()).toEqual(['terraform', 'terraform.manifest.json']);
  });

  it('prefers the .72D7468F.sig HashiCorp signs every release with, then the plain .sig', async () => {
    const files = await layout({ suffix: '.sig' });
    const { cache, requested } = cacheWith(files);
    await cache.ensure('terraform', '1.9.8');
    expect(requested.map((url) => url.slice(BASE.length))).toEqual([
      '/1.9.8/terraform_1.9.8_SHA256SUMS',
      '/1.9.8/terraform_1.9.8_SHA256SUMS.72D7468F.sig',
      '/1.9.8/terraform_1.9.8_SHA256SUMS.sig',
      '/1.9.8/terraform_1.9.8_linux_amd64.zip',
    ]);
  });

  it('a second scan (another process) uses the cached binary without any download', async () => {
    const first = cacheWith(await layout());
    await first.cache.ensure('terraform', '1.9.8');
    const second = cacheWith(new Map(), { cacheDir: first.cacheDir });
    await expect(second.cache.ensure('terraform', '1.9.8')).resolves.toContain('1.9.8');
    expect(second.requested).toEqual([]);
  });

  it('OpenTofu: v<version>/tofu_<version>_… with a .gpgsig, unpacked as tofu', async () => {
    const files = await layout({ engine: 'opentofu', version: '1.8.5' });
    const { cache, requested } = cacheWith(files);
    const path = await cache.ensure('opentofu', '1.8.5');
    expect(path).toMatch(/opentofu\/1\.8\.5\/linux_amd64\/tofu$/);
    expect(requested).toContain(`${TOFU_BASE}/v1.8.5/tofu_1.8.5_SHA256SUMS.gpgsig`);
    expect(requested).toContain(`${TOFU_BASE}/v1.8.5/tofu_1.8.5_linux_amd64.zip`);
  });
});

describe('binary cache: what it refuses', () => {
  it('a zip whose SHA-256 differs from SHA256SUMS', async () => {
    const files = await layout();
    files.set(`${BASE}/1.9.8/terraform_1.9.8_linux_amd64.zip`, new TextEncoder().encode('another file'));
    const { cache, cacheDir } = cacheWith(files);
    const error = await failure(cache.ensure('terraform', '1.9.8'));
    expect(error.message).toBe(
      `terraform 1.9.8: checksum mismatch for terraform_1.9.8_linux_amd64.zip from ${BASE}/1.9.8/terraform_1.9.8_linux_amd64.zip; the release mirror serves a different file`,
    );
    expect(readdirSync(join(cacheDir, 'terraform', '1.9.8', 'linux_amd64'))).toEqual([]);
  });

  it('a platform that SHA256SUMS does not list', async () => {
    const { cache } = cacheWith(await layout(), { platform: { os: 'linux', arch: 'riscv64' } });
    const error = await failure(cache.ensure('terraform', '1.9.8'));
    expect(error.message).toBe(
      `terraform 1.9.8: terraform_1.9.8_linux_riscv64.zip is not listed in terraform_1.9.8_SHA256SUMS from ${BASE}/1.9.8; the release has no build for linux_riscv64, or the mirror is incomplete`,
    );
  });

  it('a version the mirror does not have', async () => {
    const { cache } = cacheWith(await layout());
    const error = await failure(cache.ensure('terraform', '1.9.9'));
    expect(error.reason).toBe(
      `${BASE}/1.9.9/terraform_1.9.9_SHA256SUMS does not exist; is 1.9.9 a released terraform version?`,
    );
  });

  it('SHA256SUMS signed by a key nobody trusts', async () => {
    const { cache } = cacheWith(await layout({ key: otherKey }));
    const error = await failure(cache.ensure('terraform', '1.9.8'));
    expect(error.message).toMatch(
      /^terraform 1\.9\.8: the signature terraform_1\.9\.8_SHA256SUMS\.sig from \S+ does not verify with HashiCorp's release key \(72D7468F\) or DRIFTWATCH_RELEASE_KEYS; .*add the mirror's signing key to DRIFTWATCH_RELEASE_KEYS$/,
    );
  });

  it('a signature over different checksums (SHA256SUMS edited after signing)', async () => {
    const files = await layout();
    const sumsUrl = `${BASE}/1.9.8/terraform_1.9.8_SHA256SUMS`;
    files.set(sumsUrl, new TextEncoder().encode(`${Buffer.from(files.get(sumsUrl)!).toString()}\n`));
    const error = await failure(cacheWith(files).cache.ensure('terraform', '1.9.8'));
    expect(error.reason).toMatch(/does not verify/);
  });

  it('an unsigned SHA256SUMS, unless unsigned releases are explicitly allowed (the checksum still counts)', async () => {
    const unsigned = await layout({ key: undefined });
    const error = await failure(cacheWith(unsigned).cache.ensure('terraform', '1.9.8'));
    expect(error.reason).toBe(
      `${BASE}/1.9.8 has no signature for terraform_1.9.8_SHA256SUMS (looked for .72D7468F.sig, .sig); mirror the signature files too, or set DRIFTWATCH_ALLOW_UNSIGNED_RELEASES=1 to trust the checksums alone`,
    );
    const allowed = cacheWith(unsigned, { allowUnsigned: true });
    const path = await allowed.cache.ensure('terraform', '1.9.8');
    expect(JSON.parse(readFileSync(`${path}.manifest.json`, 'utf8')).signature).toBe('unsigned');
    const tampered = await layout({ key: undefined });
    tampered.set(`${BASE}/1.9.8/terraform_1.9.8_linux_amd64.zip`, new Uint8Array([1, 2, 3]));
    await expect(
      cacheWith(tampered, { allowUnsigned: true }).cache.ensure('terraform', '1.9.8'),
    ).rejects.toThrow(/checksum mismatch/);
  });

  it('a mirror that cannot be reached names the variable that points elsewhere, and no credentials of its URL', async () => {
    const cache = createBinaryCache({
      cacheDir: mkdtempSync(join(temp, 'cache-')),
      platform: PLATFORM,
      releaseBaseUrls: { terraform: 'http://user:s3cr3t-token@127.0.0.1:1/terraform' },
    });
    const error = await failure(cache.ensure('terraform', '1.9.8'));
    expect(error.message).toMatch(
      /^terraform 1\.9\.8: could not download http:\/\/127\.0\.0\.1:1\/terraform\/1\.9\.8\/terraform_1\.9\.8_SHA256SUMS \(.+\); allow egress to the releases, or point DRIFTWATCH_TERRAFORM_RELEASES at a mirror of the release layout$/,
    );
    expect(error.message).not.toContain('s3cr3t');
  });
});

describe('binary cache: a mirror behind credentials', () => {
  it('user:token in the base URL becomes Basic authentication, never part of the URL fetched', async () => {
    const fake = fakeFetch(await layout());
    const cache = createBinaryCache({
      cacheDir: mkdtempSync(join(temp, 'cache-')),
      platform: PLATFORM,
      fetch: fake.fetch,
      releaseBaseUrls: { terraform: BASE.replace('https://', 'https://reader:t0ken@') },
      extraKeys: [trustedKey.publicKey],
    });
    await cache.ensure('terraform', '1.9.8');
    expect(fake.requested.every((url) => url.startsWith(BASE))).toBe(true);
    expect(new Set(fake.authorizations)).toEqual(
      new Set([`Basic ${Buffer.from('reader:t0ken').toString('base64')}`]),
    );
  });
});

describe('binary cache: a cached binary is used only with its recorded checksum', () => {
  it('a cached binary changed after install is replaced by a verified download', async () => {
    const files = await layout();
    const first = cacheWith(files);
    const path = await first.cache.ensure('terraform', '1.9.8');
    writeFileSync(path, '#!/bin/sh\necho tampered\n');
    const second = cacheWith(files, { cacheDir: first.cacheDir });
    await second.cache.ensure('terraform', '1.9.8');
    expect(second.requested.length).toBeGreaterThan(0);
    expect(execFileSync(path, [], { encoding: 'utf8' })).toContain('fake engine');
  });

  it('a binary without its manifest (a fill that died half-way) is never used', async () => {
    const files = await layout();
    const first = cacheWith(files);
    const path = await first.cache.ensure('terraform', '1.9.8');
    rmSync(`${path}.manifest.json`);
    writeFileSync(path, 'half-writ');
    const second = cacheWith(files, { cacheDir: first.cacheDir });
    await second.cache.ensure('terraform', '1.9.8');
    expect(execFileSync(path, [], { encoding: 'utf8' })).toContain('fake engine');
  });

  it('concurrent fills: one download per process, several processes on one directory each end with a whole, verified binary', async () => {
    const files = await layout();
    const one = cacheWith(files);
    const paths = await Promise.all([
      one.cache.ensure('terraform', '1.9.8'),
      one.cache.ensure('terraform', '1.9.8'),
    ]);
    expect(new Set(paths).size).toBe(1);
    expect(one.requested.filter((url) => url.endsWith('.zip'))).toHaveLength(1);

    const shared = mkdtempSync(join(temp, 'shared-'));
    const processes = [1, 2, 3].map(() => cacheWith(files, { cacheDir: shared }));
    const results = await Promise.all(processes.map(({ cache }) => cache.ensure('terraform', '1.9.8')));
    expect(new Set(results).size).toBe(1);
    expect(execFileSync(results[0]!, [], { encoding: 'utf8' })).toContain('fake engine');
    expect(readdirSync(dirname(results[0]!)).sort()).toEqual(['terraform', 'terraform.manifest.json']);
    // And a later process trusts what they left.
    const later = cacheWith(new Map(), { cacheDir: shared });
    await later.cache.ensure('terraform', '1.9.8');
    expect(later.requested).toEqual([]);
  });
});

describe('binary cache: the S3 prefix', () => {
  const s3Mock = mockClient(S3Client);
  const client = new S3Client({ region: 'eu-west-1' });
  const s3 = { client: () => client, bucket: 'artifacts', prefix: 'driftwatch/binaries/' };
  beforeEach(() => s3Mock.reset());

  const bytes = (body: Uint8Array) => ({ transformToByteArray: async () => body }) as never;

  it('a download is copied to the prefix as the release files (zip, signature, then SHA256SUMS)', async () => {
    s3Mock.on(GetObjectCommand).rejects(new NoSuchKey({ message: 'none', $metadata: {} }));
    s3Mock.on(PutObjectCommand).resolves({});
    const files = await layout();
    await cacheWith(files, { s3 }).cache.ensure('terraform', '1.9.8');
    const puts = s3Mock.commandCalls(PutObjectCommand).map((call) => call.args[0].input);
    expect(puts.map((input) => [input.Bucket, input.Key])).toEqual([
      ['artifacts', 'driftwatch/binaries/terraform/1.9.8/terraform_1.9.8_linux_amd64.zip'],
      ['artifacts', 'driftwatch/binaries/terraform/1.9.8/terraform_1.9.8_SHA256SUMS.sig'],
      ['artifacts', 'driftwatch/binaries/terraform/1.9.8/terraform_1.9.8_SHA256SUMS'],
    ]);
    expect(Buffer.from(puts[0]!.Body as Uint8Array)).toEqual(
      Buffer.from(files.get(`${BASE}/1.9.8/terraform_1.9.8_linux_amd64.zip`)!),
    );
  });

  it('a copy in S3 is used without the releases, after the same verification', async () => {
    const files = await layout();
    for (const [url, body] of files)
      s3Mock
        .on(GetObjectCommand, {
          Bucket: 'artifacts',
          Key: `driftwatch/binaries/terraform/${url.slice(BASE.length + 1)}`,
        })
        .resolves({ Body: bytes(body) });
    s3Mock
      .on(GetObjectCommand, {
        Key: 'driftwatch/binaries/terraform/1.9.8/terraform_1.9.8_SHA256SUMS.72D7468F.sig',
      })
      .rejects(new NoSuchKey({ message: 'none', $metadata: {} }));
    const { cache, requested } = cacheWith(new Map(), { s3 });
    const path = await cache.ensure('terraform', '1.9.8');
    expect(requested).toEqual([]);
    expect(execFileSync(path, [], { encoding: 'utf8' })).toContain('fake engine');
    expect(s3Mock).not.toHaveReceivedCommand(PutObjectCommand);
  });

  it('a copy in S3 that fails verification is ignored: the releases fill the cache', async () => {
    const files = await layout();
    const untrusted = await layout({ key: otherKey });
    for (const [url, body] of untrusted)
      s3Mock
        .on(GetObjectCommand, { Key: `driftwatch/binaries/terraform/${url.slice(BASE.length + 1)}` })
        .resolves({ Body: bytes(body) });
    s3Mock
      .on(GetObjectCommand, {
        Key: 'driftwatch/binaries/terraform/1.9.8/terraform_1.9.8_SHA256SUMS.72D7468F.sig',
      })
      .rejects(new NoSuchKey({ message: 'none', $metadata: {} }));
    s3Mock.on(PutObjectCommand).resolves({});
    const { cache, requested } = cacheWith(files, { s3 });
    await cache.ensure('terraform', '1.9.8');
    expect(requested).toContain(`${BASE}/1.9.8/terraform_1.9.8_linux_amd64.zip`);
  });

  it('cachedVersions: local versions and version prefixes in S3', async () => {
    s3Mock.on(GetObjectCommand).rejects(new NoSuchKey({ message: 'none', $metadata: {} }));
    s3Mock.on(PutObjectCommand).resolves({});
    s3Mock.on(ListObjectsV2Command).resolves({
      CommonPrefixes: [
        { Prefix: 'driftwatch/binaries/terraform/1.5.7/' },
        { Prefix: 'driftwatch/binaries/terraform/junk/' },
      ],
    });
    const { cache } = cacheWith(await layout(), { s3 });
    await cache.ensure('terraform', '1.9.8');
    expect((await cache.cachedVersions('terraform')).sort()).toEqual(['1.5.7', '1.9.8']);
    expect(s3Mock).toHaveReceivedCommandWith(ListObjectsV2Command, {
      Bucket: 'artifacts',
      Prefix: 'driftwatch/binaries/terraform/',
      Delimiter: '/',
    });
  });
});

describe('binary cache: indexes, checksums, keys, configuration', () => {
  it('reads HashiCorp index.json and OpenTofu api.json', async () => {
    expect(versionsOfIndex({ versions: { '1.9.8': {}, '1.10.0-rc1': {}, junk: {} } })).toEqual([
      '1.9.8',
      '1.10.0-rc1',
    ]);
    expect(versionsOfIndex({ versions: [{ id: '1.8.5' }, { id: 'v1.9.0' }, { id: 7 }] })).toEqual([
      '1.8.5',
      '1.9.0',
    ]);
    const files = new Map([[`${BASE}/index.json`, hashicorpIndex('terraform', ['1.9.8', '1.11.99'])]]);
    const { cache } = cacheWith(files);
    expect(await cache.releasedVersions('terraform')).toEqual(['1.9.8', '1.11.99']);
    expect(await cache.releasedVersions('opentofu')).toBeUndefined();
  });

  it('checksumFor finds the exact file name only', () => {
    const sums = new TextEncoder().encode(
      `${'a'.repeat(64)}  x_linux_amd64.zip.sig\n${'b'.repeat(64)}  x_linux_amd64.zip\n`,
    );
    expect(checksumFor(sums, 'x_linux_amd64.zip')).toBe('b'.repeat(64));
    expect(checksumFor(sums, 'x_linux_arm64.zip')).toBeUndefined();
  });

  it('ships the real release keys (fingerprints as published)', async () => {
    const [hashicorp] = await openpgp.readKeys({ armoredKeys: HASHICORP_RELEASE_KEY });
    const [opentofu] = await openpgp.readKeys({ armoredKeys: OPENTOFU_RELEASE_KEY });
    expect(hashicorp!.getFingerprint().toUpperCase()).toBe('C874011F0AB405110D02105534365D9472D7468F');
    expect(opentofu!.getFingerprint().toUpperCase()).toBe('E3E6E43D84CB852EADB0051D0C0AF313E5FD9F80');
  });

  it('the environment: cache directory beside the plugin cache, S3 prefix, mirrors, extra keys, unsigned opt-in', async () => {
    const keyFile = join(temp, 'mirror.asc');
    writeFileSync(keyFile, trustedKey.publicKey);
    const defaults = await binaryCacheOptionsFromEnv({}, '/tmp/terraform-plugin-cache');
    expect(defaults).toMatchObject({ cacheDir: '/tmp/terraform-binaries', releaseBaseUrls: {} });
    expect(defaults.s3).toBeUndefined();
    expect(defaults.allowUnsigned).toBeUndefined();
    const configured = await binaryCacheOptionsFromEnv(
      {
        DRIFTWATCH_BINARY_CACHE: '/var/cache/dw',
        DRIFTWATCH_BINARY_CACHE_S3: 's3://artifacts/binaries',
        DRIFTWATCH_TERRAFORM_RELEASES: 'https://mirror/terraform',
        DRIFTWATCH_OPENTOFU_RELEASES: 'https://mirror/tofu',
        DRIFTWATCH_RELEASE_KEYS: keyFile,
        DRIFTWATCH_ALLOW_UNSIGNED_RELEASES: '1',
      },
      '/tmp/terraform-plugin-cache',
    );
    expect(configured).toMatchObject({
      cacheDir: '/var/cache/dw',
      s3: { bucket: 'artifacts', prefix: 'binaries/' },
      releaseBaseUrls: { terraform: 'https://mirror/terraform', opentofu: 'https://mirror/tofu' },
      extraKeys: [trustedKey.publicKey],
      allowUnsigned: true,
    });
    await expect(
      binaryCacheOptionsFromEnv({ DRIFTWATCH_BINARY_CACHE_S3: 'bucket/x' }, '/tmp/p'),
    ).rejects.toThrow(/DRIFTWATCH_BINARY_CACHE_S3 is not an s3:\/\/bucket\/prefix\/ URI/);
    await expect(
      binaryCacheOptionsFromEnv({ DRIFTWATCH_RELEASE_KEYS: '/nope.asc' }, '/tmp/p'),
    ).rejects.toThrow(/DRIFTWATCH_RELEASE_KEYS: cannot read \/nope\.asc/);
  });
});
