import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { type Engine, engineBinaryName, isExactVersion } from '../../core/terraform/engine-version.js';
import { withHttpTimeouts } from '../aws-http-timeouts.js';
import type { Logger } from '../logger.js';
import { isNoSuchKey } from '../s3-bundle.js';
import { listedKey, URL_ENCODED_LISTING } from '../s3-list-encoding.js';
import { HASHICORP_RELEASE_KEY, OPENTOFU_RELEASE_KEY } from './release-keys.js';

/**
 * Terraform and OpenTofu binaries by exact version, from a cache filled from the official release
 * layout: `<zip>` + `<name>_<v>_SHA256SUMS` + a detached OpenPGP signature of the SHA256SUMS. The
 * zip's SHA-256 is always checked against SHA256SUMS, and SHA256SUMS must carry a signature by the
 * engine's release key (or a key in DRIFTWATCH_RELEASE_KEYS) unless unsigned releases are allowed.
 *
 * Tiers: the local directory (each binary beside a manifest with its SHA-256, checked before use),
 * then the S3 prefix (a copy of the release files, verified exactly like a download), then the
 * releases (or a mirror of their layout). A download is copied to S3 for the next cold container.
 */

export interface Platform {
  /** Go's GOOS: linux, darwin, windows, freebsd. */
  os: string;
  /** Go's GOARCH: amd64, arm64, 386, arm. */
  arch: string;
}

export function currentPlatform(): Platform {
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  const arch =
    ({ x64: 'amd64', arm64: 'arm64', ia32: '386', arm: 'arm' } as Record<string, string>)[process.arch] ??
    process.arch;
  return { os, arch };
}

export interface BinaryCacheOptions {
  /** Local directory: `<dir>/<engine>/<version>/<os>_<arch>/<binary>`. */
  cacheDir: string;
  /** S3 copy of the release files: `s3://bucket/prefix/<engine>/<version>/<file>`. */
  s3?: { client: () => S3Client; bucket: string; prefix: string };
  /** Base URL of each engine's release layout (a mirror's, for air-gapped estates and tests). */
  releaseBaseUrls?: Partial<Record<Engine, string>>;
  /** Armored public keys trusted beside the engine's own release key (a mirror's signing key). */
  extraKeys?: string[];
  /** Accept a SHA256SUMS without a signature (the checksum is still verified). Never the default. */
  allowUnsigned?: boolean;
  platform?: Platform;
  fetch?: typeof fetch;
  logger?: Logger;
  /** Per download. */
  timeoutMs?: number;
}

export interface BinaryCache {
  /** A verified executable of that exact version for this platform; fills the cache if needed. */
  ensure(engine: Engine, version: string): Promise<string>;
  /** Versions already in the local cache or the S3 prefix (no download needed). */
  cachedVersions(engine: Engine): Promise<string[]>;
  /** Versions the release index lists, or undefined when the index cannot be read. */
  releasedVersions(engine: Engine): Promise<string[] | undefined>;
}

/** One line: what failed, where, and what to do. `reason` lacks the `<engine> <version>: ` prefix. */
export class BinaryInstallError extends Error {
  constructor(
    readonly engine: Engine,
    readonly version: string,
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(`${engine} ${version}: ${reason}`, options);
    this.name = 'BinaryInstallError';
  }
}

export const DEFAULT_RELEASE_BASE_URLS: Record<Engine, string> = {
  terraform: 'https://releases.hashicorp.com/terraform',
  opentofu: 'https://github.com/opentofu/opentofu/releases/download',
};
/** OpenTofu's GitHub releases have no index.json; its download site lists every version. */
const OPENTOFU_INDEX = 'https://get.opentofu.org/tofu/api.json';

interface ReleaseFiles {
  dirUrl: string;
  zip: string;
  sums: string;
  /** Signature files to look for, in order; the first that exists is verified. */
  signatures: string[];
}

function releaseFiles(engine: Engine, version: string, platform: Platform, baseUrl: string): ReleaseFiles {
  const base = baseUrl.replace(/\/+$/, '');
  if (engine === 'opentofu') {
    const prefix = `tofu_${version}`;
    return {
      dirUrl: `${base}/v${version}`,
      zip: `${prefix}_${platform.os}_${platform.arch}.zip`,
      sums: `${prefix}_SHA256SUMS`,
      // `.sig` beside it is a cosign signature, not OpenPGP.
      signatures: [`${prefix}_SHA256SUMS.gpgsig`],
    };
  }
  const prefix = `terraform_${version}`;
  return {
    dirUrl: `${base}/${version}`,
    zip: `${prefix}_${platform.os}_${platform.arch}.zip`,
    sums: `${prefix}_SHA256SUMS`,
    // The plain .sig of releases before April 2021 is by a revoked key; .72D7468F.sig is by the current one.
    signatures: [`${prefix}_SHA256SUMS.72D7468F.sig`, `${prefix}_SHA256SUMS.sig`],
  };
}

const ENGINE_KEYS: Record<Engine, { key: string; name: string }> = {
  terraform: { key: HASHICORP_RELEASE_KEY, name: "HashiCorp's release key (72D7468F)" },
  opentofu: { key: OPENTOFU_RELEASE_KEY, name: "OpenTofu's release key (0C0AF313E5FD9F80)" },
};

interface Manifest {
  sha256: string;
  zip: string;
  zipSha256: string;
  source: string;
  signature: string;
}

/** The fetched release files, verified. */
interface VerifiedRelease {
  zipPath: string;
  zipSha256: string;
  /** Raw files to copy to S3: SHA256SUMS and the signature that verified it (if any). */
  extras: Array<{ name: string; body: Uint8Array }>;
  signature: string;
  source: string;
}

export function createBinaryCache(options: BinaryCacheOptions): BinaryCache {
  const platform = options.platform ?? currentPlatform();
  const fetchImpl = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 5 * 60_000;
  const filling = new Map<string, Promise<string>>();
  const trusted = new Map<string, Promise<boolean>>();
  const indexes = new Map<Engine, Promise<string[] | undefined>>();
  const platformDir = `${platform.os}_${platform.arch}`;

  function baseUrl(engine: Engine): string {
    return options.releaseBaseUrls?.[engine] ?? DEFAULT_RELEASE_BASE_URLS[engine];
  }

  function localPaths(engine: Engine, version: string) {
    const dir = join(options.cacheDir, engine, version, platformDir);
    const binary = join(dir, engineBinaryName(engine));
    return { dir, binary, manifest: `${binary}.manifest.json` };
  }

  async function ensure(engine: Engine, version: string): Promise<string> {
    if (!isExactVersion(version)) throw new BinaryInstallError(engine, version, 'not an exact version');
    const key = `${engine}/${version}`;
    let pending = filling.get(key);
    if (!pending) {
      pending = fill(engine, version).finally(() => filling.delete(key));
      filling.set(key, pending);
    }
    return pending;
  }

  async function fill(engine: Engine, version: string): Promise<string> {
    const paths = localPaths(engine, version);
    if (await isTrusted(paths.binary, paths.manifest)) return paths.binary;
    const work = join(paths.dir, `.fill-${process.pid}-${randomBytes(6).toString('hex')}`);
    await mkdir(work, { recursive: true, mode: 0o700 });
    try {
      let release: VerifiedRelease | undefined;
      let fromS3 = false;
      if (options.s3) {
        release = await fromS3Copy(engine, version, work).catch((error: unknown) => {
          options.logger?.warn('binary cache: S3 copy not used', {
            engine,
            version,
            reason: (error as Error).message,
          });
          return undefined;
        });
        fromS3 = release !== undefined;
      }
      release ??= await fromReleases(engine, version, work);
      const extracted = join(work, engineBinaryName(engine));
      await extractEntry(release.zipPath, engineBinaryName(engine), extracted).catch((error: unknown) => {
        throw new BinaryInstallError(
          engine,
          version,
          `could not unpack ${engineBinaryName(engine)} from ${release.source}: ${(error as Error).message}`,
          { cause: error },
        );
      });
      await chmod(extracted, 0o755);
      const manifest: Manifest = {
        sha256: await sha256File(extracted),
        zip: basenameOf(release.source),
        zipSha256: release.zipSha256,
        source: release.source,
        signature: release.signature,
      };
      // Rename is atomic: another scan sees no binary or a whole one, never half of it; the manifest
      // comes last, so a binary without one is never trusted.
      await rename(extracted, paths.binary);
      const manifestTemp = join(work, 'manifest.json');
      await writeFile(manifestTemp, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o644 });
      await rename(manifestTemp, paths.manifest);
      trusted.set(paths.binary, Promise.resolve(true));
      if (options.s3 && !fromS3) await copyToS3(engine, version, release);
      options.logger?.info('binary cache: installed', {
        engine,
        version,
        from: fromS3 ? 's3' : 'releases',
        signature: release.signature,
      });
      return paths.binary;
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  /** A cached binary is used only when its SHA-256 is the one its manifest recorded. */
  function isTrusted(binary: string, manifestPath: string): Promise<boolean> {
    let known = trusted.get(binary);
    if (!known) {
      known = (async () => {
        try {
          const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as Partial<Manifest>;
          if (typeof manifest.sha256 !== 'string') return false;
          const matches = (await sha256File(binary)) === manifest.sha256;
          if (!matches)
            options.logger?.warn('binary cache: a cached binary does not match its checksum', { binary });
          return matches;
        } catch {
          return false;
        }
      })();
      // Only a positive answer is remembered: a missing binary may appear later in this process.
      known.then((ok) => (ok ? undefined : trusted.delete(binary)));
      trusted.set(binary, known);
    }
    return known;
  }

  async function fromReleases(engine: Engine, version: string, work: string): Promise<VerifiedRelease> {
    const files = releaseFiles(engine, version, platform, baseUrl(engine));
    const fail = (reason: string, cause?: unknown) =>
      new BinaryInstallError(engine, version, reason, cause === undefined ? undefined : { cause });
    const sumsUrl = `${files.dirUrl}/${files.sums}`;
    const sums = await download(sumsUrl).catch((error: unknown) => {
      throw fail(downloadProblem(engine, sumsUrl, error), error);
    });
    if (!sums) throw fail(`${shown(sumsUrl)} does not exist; is ${version} a released ${engine} version?`);
    let signature: { name: string; body: Uint8Array } | undefined;
    for (const name of files.signatures) {
      const url = `${files.dirUrl}/${name}`;
      const body = await download(url).catch((error: unknown) => {
        throw fail(downloadProblem(engine, url, error), error);
      });
      if (body) {
        signature = { name, body };
        break;
      }
    }
    const signedBy = await verifySums(engine, version, sums, signature, files, files.dirUrl);
    const expected = checksumFor(sums, files.zip);
    if (!expected)
      throw fail(
        `${files.zip} is not listed in ${files.sums} from ${shown(files.dirUrl)}; the release has no build for ${platformDir}, or the mirror is incomplete`,
      );
    const zipUrl = `${files.dirUrl}/${files.zip}`;
    const zipPath = join(work, files.zip);
    const found = await downloadToFile(zipUrl, zipPath).catch((error: unknown) => {
      throw fail(downloadProblem(engine, zipUrl, error), error);
    });
    if (!found)
      throw fail(`${shown(zipUrl)} does not exist although ${files.sums} lists it; the mirror is incomplete`);
    const actual = await sha256File(zipPath);
    if (actual !== expected)
      throw fail(
        `checksum mismatch for ${files.zip} from ${shown(zipUrl)}; the release mirror serves a different file`,
      );
    return {
      zipPath,
      zipSha256: actual,
      extras: [{ name: files.sums, body: sums }, ...(signature ? [signature] : [])],
      signature: signedBy,
      source: zipUrl,
    };
  }

  /** The S3 copy is verified exactly like the releases: S3 is a cache, not a source of trust. */
  async function fromS3Copy(
    engine: Engine,
    version: string,
    work: string,
  ): Promise<VerifiedRelease | undefined> {
    const s3 = options.s3!;
    const files = releaseFiles(engine, version, platform, baseUrl(engine));
    const keyOf = (name: string) => `${s3.prefix}${engine}/${version}/${name}`;
    const get = async (name: string): Promise<Uint8Array | undefined> => {
      try {
        const response = await s3
          .client()
          .send(new GetObjectCommand({ Bucket: s3.bucket, Key: keyOf(name) }));
        return await response.Body?.transformToByteArray();
      } catch (error) {
        if (isNoSuchKey(error)) return undefined;
        throw error;
      }
    };
    const where = `s3://${s3.bucket}/${keyOf('')}`;
    const sums = await get(files.sums);
    if (!sums) return undefined;
    const expected = checksumFor(sums, files.zip);
    if (!expected) return undefined;
    const zip = await get(files.zip);
    if (!zip) return undefined;
    let signature: { name: string; body: Uint8Array } | undefined;
    for (const name of files.signatures) {
      const body = await get(name);
      if (body) {
        signature = { name, body };
        break;
      }
    }
    const signedBy = await verifySums(engine, version, sums, signature, files, where);
    const zipPath = join(work, files.zip);
    await writeFile(zipPath, zip, { mode: 0o600 });
    const actual = await sha256File(zipPath);
    if (actual !== expected)
      throw new BinaryInstallError(engine, version, `checksum mismatch for ${files.zip} from ${where}`);
    return {
      zipPath,
      zipSha256: actual,
      extras: [],
      signature: signedBy,
      source: `${where}${files.zip}`,
    };
  }

  async function copyToS3(engine: Engine, version: string, release: VerifiedRelease): Promise<void> {
    const s3 = options.s3!;
    const put = (name: string, body: Uint8Array) =>
      s3.client().send(
        new PutObjectCommand({
          Bucket: s3.bucket,
          Key: `${s3.prefix}${engine}/${version}/${name}`,
          Body: body,
        }),
      );
    try {
      // The zip first: a reader that finds SHA256SUMS expects the zip beside it.
      await put(basenameOf(release.source), await readFile(release.zipPath));
      // The signature before SHA256SUMS, so SHA256SUMS never appears without it.
      for (const extra of [...release.extras].reverse()) await put(extra.name, extra.body);
    } catch (error) {
      // The scan has its binary; the next cold container downloads again.
      options.logger?.warn('binary cache: could not copy to S3', {
        engine,
        version,
        reason: (error as Error).message,
      });
    }
  }

  /** Which key signed SHA256SUMS ('unsigned' when allowed without one); throws when it does not verify. */
  async function verifySums(
    engine: Engine,
    version: string,
    sums: Uint8Array,
    signature: { name: string; body: Uint8Array } | undefined,
    files: ReleaseFiles,
    where: string,
  ): Promise<string> {
    const extra = options.extraKeys?.length ? ' or DRIFTWATCH_RELEASE_KEYS' : '';
    if (!signature) {
      if (options.allowUnsigned) return 'unsigned';
      throw new BinaryInstallError(
        engine,
        version,
        `${shown(where)} has no signature for ${files.sums} (looked for ${files.signatures.map((name) => name.slice(files.sums.length)).join(', ')}); mirror the signature files too, or set DRIFTWATCH_ALLOW_UNSIGNED_RELEASES=1 to trust the checksums alone`,
      );
    }
    const openpgp = await import('openpgp');
    const keys = [];
    for (const armoredKey of [ENGINE_KEYS[engine].key, ...(options.extraKeys ?? [])]) {
      try {
        keys.push(...(await openpgp.readKeys({ armoredKeys: armoredKey })));
      } catch (error) {
        throw new BinaryInstallError(
          engine,
          version,
          `a key in DRIFTWATCH_RELEASE_KEYS is not an armored OpenPGP public key (${(error as Error).message})`,
          { cause: error },
        );
      }
    }
    try {
      const text = Buffer.from(signature.body).toString('latin1');
      const parsed = text.includes('-----BEGIN PGP SIGNATURE-----')
        ? await openpgp.readSignature({ armoredSignature: text })
        : await openpgp.readSignature({ binarySignature: signature.body });
      const message = await openpgp.createMessage({ binary: sums });
      const result = await openpgp.verify({ message, signature: parsed, verificationKeys: keys });
      for (const candidate of result.signatures) {
        try {
          await candidate.verified;
          return `key ${candidate.keyID.toHex().toUpperCase()}`;
        } catch {
          // Try the next signature in the file, if any.
        }
      }
      throw new Error('no signature by a trusted key');
    } catch (error) {
      throw new BinaryInstallError(
        engine,
        version,
        `the signature ${signature.name} from ${shown(where)} does not verify with ${ENGINE_KEYS[engine].name}${extra}; the mirror's checksums are not the release's: re-mirror the release, or add the mirror's signing key to DRIFTWATCH_RELEASE_KEYS`,
        { cause: error },
      );
    }
  }

  /** fetch refuses URLs with credentials: a mirror's `https://user:token@host/` becomes Basic auth. */
  function request(url: string): Promise<Response> {
    const parsed = new URL(url);
    const headers: Record<string, string> = {};
    if (parsed.username || parsed.password) {
      const user = decodeURIComponent(parsed.username);
      const password = decodeURIComponent(parsed.password);
      headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
      parsed.username = '';
      parsed.password = '';
    }
    return fetchImpl(parsed.toString(), {
      headers,
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'follow',
    });
  }

  /** The body, or undefined for a 404 (a file the release does not have). */
  async function download(url: string): Promise<Uint8Array | undefined> {
    const response = await request(url);
    if (response.status === 404) return undefined;
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  }

  async function downloadToFile(url: string, path: string): Promise<boolean> {
    const response = await request(url);
    if (response.status === 404) return false;
    if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
    await pipeline(
      Readable.fromWeb(response.body as unknown as WebReadableStream),
      createWriteStream(path, { mode: 0o600 }),
    );
    return true;
  }

  async function cachedVersions(engine: Engine): Promise<string[]> {
    const versions = new Set<string>();
    const engineDir = join(options.cacheDir, engine);
    for (const version of await readdir(engineDir).catch(() => [] as string[])) {
      const paths = localPaths(engine, version);
      if (isExactVersion(version) && (await stat(paths.manifest).catch(() => undefined)))
        versions.add(version);
    }
    if (options.s3) {
      const s3 = options.s3;
      try {
        let token: string | undefined;
        do {
          const page = await s3.client().send(
            new ListObjectsV2Command({
              Bucket: s3.bucket,
              Prefix: `${s3.prefix}${engine}/`,
              Delimiter: '/',
              ContinuationToken: token,
              ...URL_ENCODED_LISTING,
            }),
          );
          for (const common of page.CommonPrefixes ?? []) {
            const prefix = listedKey(common.Prefix, page.EncodingType);
            const version = prefix?.slice(`${s3.prefix}${engine}/`.length).replace(/\/$/, '');
            if (version && isExactVersion(version)) versions.add(version);
          }
          token = page.IsTruncated ? page.NextContinuationToken : undefined;
        } while (token);
      } catch (error) {
        options.logger?.warn('binary cache: could not list the S3 copy', {
          reason: (error as Error).message,
        });
      }
    }
    return [...versions];
  }

  function releasedVersions(engine: Engine): Promise<string[] | undefined> {
    let pending = indexes.get(engine);
    if (!pending) {
      const url =
        options.releaseBaseUrls?.[engine] === undefined && engine === 'opentofu'
          ? OPENTOFU_INDEX
          : `${baseUrl(engine).replace(/\/+$/, '')}/index.json`;
      pending = (async () => {
        try {
          const body = await download(url);
          if (!body) return undefined;
          return versionsOfIndex(JSON.parse(Buffer.from(body).toString('utf8')));
        } catch (error) {
          options.logger?.warn('binary cache: release index not readable', {
            url: shown(url),
            reason: (error as Error).message,
          });
          return undefined;
        }
      })();
      // A failure is retried by the next workspace; a list is kept for the life of the process.
      pending.then((list) => (list ? undefined : indexes.delete(engine)));
      indexes.set(engine, pending);
    }
    return pending;
  }

  function downloadProblem(engine: Engine, url: string, error: unknown): string {
    const variable = engine === 'opentofu' ? 'DRIFTWATCH_OPENTOFU_RELEASES' : 'DRIFTWATCH_TERRAFORM_RELEASES';
    const cause = error as Error & { cause?: { code?: string; message?: string } };
    const detail = cause.cause?.code ?? cause.cause?.message ?? cause.message;
    return `could not download ${shown(url)} (${shown(detail)}); allow egress to the releases, or point ${variable} at a mirror of the release layout`;
  }

  return { ensure, cachedVersions, releasedVersions };
}

/**
 * Versions listed by a release index: HashiCorp's `index.json` (`{ versions: { "1.9.8": {...} } }`)
 * or OpenTofu's `api.json` (`{ versions: [{ id: "1.8.0" }] }`).
 */
export function versionsOfIndex(index: unknown): string[] {
  const versions = (index as { versions?: unknown } | null)?.versions;
  if (Array.isArray(versions))
    return versions
      .map((entry) => (entry as { id?: unknown }).id)
      .filter((id): id is string => typeof id === 'string' && isExactVersion(id.replace(/^v/, '')))
      .map((id) => id.replace(/^v/, ''));
  if (versions && typeof versions === 'object') return Object.keys(versions).filter(isExactVersion);
  return [];
}

/** The line of SHA256SUMS (`<hex>  <file>`) for one file. */
export function checksumFor(sums: Uint8Array, file: string): string | undefined {
  for (const line of Buffer.from(sums).toString('utf8').split(/\r?\n/)) {
    const match = /^([0-9a-f]{64})\s+\*?(\S+)\s*$/i.exec(line.trim());
    if (match && match[2] === file) return match[1]!.toLowerCase();
  }
  return undefined;
}

async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

/** Unpacks one top-level entry of a zip to `destination`. */
async function extractEntry(zipPath: string, entryName: string, destination: string): Promise<void> {
  const yauzl = await import('yauzl');
  const open = yauzl.default?.open ?? yauzl.open;
  const zip = await new Promise<import('yauzl').ZipFile>((resolve, reject) =>
    open(zipPath, { lazyEntries: true }, (error, file) => (error ? reject(error) : resolve(file!))),
  );
  try {
    await new Promise<void>((resolve, reject) => {
      let found = false;
      zip.on('error', reject);
      zip.on('end', () => {
        if (!found) reject(new Error(`the zip has no ${entryName}`));
      });
      zip.on('entry', (entry: import('yauzl').Entry) => {
        if (entry.fileName !== entryName) {
          zip.readEntry();
          return;
        }
        found = true;
        zip.openReadStream(entry, (error, stream) => {
          if (error || !stream) {
            reject(error ?? new Error('unreadable entry'));
            return;
          }
          pipeline(stream, createWriteStream(destination, { mode: 0o700 })).then(resolve, reject);
        });
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
}

function basenameOf(pathOrUrl: string): string {
  return pathOrUrl.slice(pathOrUrl.lastIndexOf('/') + 1);
}

/** A URL for messages: without credentials a mirror URL may carry (`https://user:token@host`). */
function shown(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, '$1');
}

/**
 * The cache configured by the environment: DRIFTWATCH_BINARY_CACHE (a local directory; default
 * `terraform-binaries` beside the plugin cache), DRIFTWATCH_BINARY_CACHE_S3 (`s3://bucket/prefix/`),
 * DRIFTWATCH_TERRAFORM_RELEASES / DRIFTWATCH_OPENTOFU_RELEASES (mirror base URLs),
 * DRIFTWATCH_RELEASE_KEYS (files of armored public keys, separated by ':'),
 * DRIFTWATCH_ALLOW_UNSIGNED_RELEASES=1.
 */
export async function binaryCacheOptionsFromEnv(
  env: NodeJS.ProcessEnv,
  pluginCacheDir: string,
  logger?: Logger,
): Promise<BinaryCacheOptions> {
  const cacheDir =
    env.DRIFTWATCH_BINARY_CACHE ||
    join(dirname(pluginCacheDir || join(homedir(), '.cache')), 'terraform-binaries');
  const options: BinaryCacheOptions = { cacheDir, ...(logger ? { logger } : {}) };
  const s3Uri = env.DRIFTWATCH_BINARY_CACHE_S3;
  if (s3Uri) {
    const match = /^s3:\/\/([^/]+)\/?(.*)$/.exec(s3Uri);
    if (!match) throw new Error(`DRIFTWATCH_BINARY_CACHE_S3 is not an s3://bucket/prefix/ URI: ${s3Uri}`);
    const prefix = match[2] ? match[2].replace(/\/?$/, '/') : '';
    let client: S3Client | undefined;
    options.s3 = { client: () => (client ??= new S3Client(withHttpTimeouts())), bucket: match[1]!, prefix };
  }
  const releaseBaseUrls: Partial<Record<Engine, string>> = {};
  if (env.DRIFTWATCH_TERRAFORM_RELEASES) releaseBaseUrls.terraform = env.DRIFTWATCH_TERRAFORM_RELEASES;
  if (env.DRIFTWATCH_OPENTOFU_RELEASES) releaseBaseUrls.opentofu = env.DRIFTWATCH_OPENTOFU_RELEASES;
  options.releaseBaseUrls = releaseBaseUrls;
  if (env.DRIFTWATCH_RELEASE_KEYS) {
    options.extraKeys = [];
    for (const file of env.DRIFTWATCH_RELEASE_KEYS.split(':').filter(Boolean)) {
      try {
        options.extraKeys.push(await readFile(file, 'utf8'));
      } catch {
        throw new Error(
          `DRIFTWATCH_RELEASE_KEYS: cannot read ${file}; it names files of armored public keys, separated by ':'`,
        );
      }
    }
  }
  if (/^(1|true|yes)$/i.test(env.DRIFTWATCH_ALLOW_UNSIGNED_RELEASES ?? '')) options.allowUnsigned = true;
  return options;
}
