import { createReadStream } from 'node:fs';
import { copyFile, cp, mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { isWithin } from '../functions/adapters/path-within.js';
import { createBundleDownloader, isNoSuchKey } from '../functions/adapters/s3-bundle.js';
import { temporaryDirectory } from '../functions/adapters/terraform/interrupt-cleanup.js';
import { runProcess } from '../functions/adapters/terraform/run-process.js';
import { summarizeTerraformErrors } from '../functions/core/redaction/terraform-diagnostics.js';
import type { WorkspaceConfig } from '../functions/core/registry/model.js';
import {
  type MirrorIndex,
  type MirrorVersion,
  mergeMirrorIndex,
  mergeMirrorVersion,
} from '../functions/core/terraform/provider-mirror-index.js';
import { CliError } from './context.js';
import type { LoadedRegistry } from './registry-file.js';

/**
 * `driftwatch providers mirror`: fills a provider network mirror from the lock files of the registered
 * workspaces. `terraform providers mirror` does the downloading and checking (signatures, the lock
 * file's versions and hashes) into a staging directory, one workspace after another; the staging
 * directory is then merged into the target, a directory or `s3://bucket/prefix`, so that versions
 * already there stay listed. Archives go first and the JSON documents last: a reader never sees a
 * version whose archive is not there yet.
 */
export interface MirrorOptions {
  loaded: LoadedRegistry;
  /** A directory or s3://bucket/prefix. */
  to: string;
  platforms: string[];
  workspaces?: string[];
  terraformBinary?: string;
  env?: NodeJS.ProcessEnv;
  s3?: () => S3Client;
  /** One line per step, for stderr. */
  log: (line: string) => void;
  timeoutMs?: number;
}

export interface MirrorResult {
  mirrored: string[];
  failed: Array<{ workspace: string; reason: string }>;
  /** Paths relative to the target that were written. */
  written: string[];
}

interface Target {
  describe: string;
  has(path: string, size: number): Promise<boolean>;
  readJson<T>(path: string): Promise<T | undefined>;
  putFile(path: string, from: string): Promise<void>;
  putJson(path: string, value: unknown): Promise<void>;
}

export async function mirrorProviders(options: MirrorOptions): Promise<MirrorResult> {
  const target = openTarget(options);
  const selected = options.workspaces
    ? options.loaded.registry.workspaces.filter((workspace) => options.workspaces!.includes(workspace.id))
    : options.loaded.registry.workspaces;
  // Removed on Ctrl-C too: a mirror of several workspaces takes minutes, and holds their copies.
  const { path: work, remove } = temporaryDirectory('driftwatch-providers-');
  const staging = join(work, 'mirror');
  const result: MirrorResult = { mirrored: [], failed: [], written: [] };
  try {
    await mkdir(staging);
    for (const workspace of selected) {
      try {
        const root = await checkOut(workspace, options, join(work, workspace.id));
        await runMirror(root, staging, options, join(work, `${workspace.id}.data`));
        result.mirrored.push(workspace.id);
        options.log(`mirrored the providers of ${workspace.id}`);
      } catch (error) {
        const reason = (error as Error).message;
        result.failed.push({ workspace: workspace.id, reason });
        options.log(`could not mirror the providers of ${workspace.id}: ${reason}`);
      }
    }
    result.written = await merge(staging, target);
  } finally {
    await remove();
  }
  return result;
}

/** The workspace's Terraform root in a scratch copy (.terraform and state left out), as the scan sees it. */
async function checkOut(workspace: WorkspaceConfig, options: MirrorOptions, dir: string): Promise<string> {
  const { source } = workspace;
  if ('dir' in source) {
    const from = isAbsolute(source.dir) ? source.dir : resolve(options.loaded.dir, source.dir);
    await cp(from, dir, {
      recursive: true,
      filter: (path) => !/(^|[\\/])(\.terraform|\.git|node_modules)$|\.tfstate(\.backup)?$/.test(path),
    });
  } else {
    if (!options.s3) throw new Error('S3 source bundles need an S3 client');
    await mkdir(dir, { recursive: true });
    const bundle = `${dir}.tgz`;
    await createBundleDownloader(options.s3())(source.s3, bundle);
    const tar = await import('tar');
    await tar.x({ file: bundle, cwd: dir, strict: true });
  }
  const root = resolve(dir, source.path ?? '.');
  if (!isWithin(root, dir)) throw new Error(`path ${source.path} leaves the source`);
  return root;
}

async function runMirror(
  root: string,
  staging: string,
  options: MirrorOptions,
  dataDir: string,
): Promise<void> {
  const terraform = options.terraformBinary ?? options.env?.DRIFTWATCH_TERRAFORM ?? 'terraform';
  const args = [
    'providers',
    'mirror',
    ...options.platforms.map((platform) => `-platform=${platform}`),
    staging,
  ];
  const result = await runProcess(terraform, args, {
    cwd: root,
    env: {
      ...(options.env ?? process.env),
      TF_DATA_DIR: dataDir,
      TF_IN_AUTOMATION: '1',
      CHECKPOINT_DISABLE: '1',
    },
    timeoutMs: options.timeoutMs ?? 30 * 60_000,
  }).catch((error: unknown) => {
    throw new Error(`could not run ${terraform}: ${(error as Error).message}`);
  });
  if (result.timedOut) throw new Error('terraform providers mirror timed out');
  if (result.exitCode !== 0)
    throw new Error(
      (summarizeTerraformErrors(result.stderr) ?? `terraform providers mirror exited with ${result.exitCode}`)
        .split('\n')
        .filter(Boolean)
        .join(' '),
    );
}

/** Archives first (skipped when the target has the same file), then the merged JSON documents. */
async function merge(staging: string, target: Target): Promise<string[]> {
  const files = await listFiles(staging);
  const written: string[] = [];
  for (const path of files.filter((file) => !file.endsWith('.json'))) {
    const size = (await stat(join(staging, path))).size;
    if (await target.has(path, size)) continue;
    await target.putFile(path, join(staging, path));
    written.push(path);
  }
  for (const path of files.filter((file) => file.endsWith('.json'))) {
    const added = JSON.parse(await readFile(join(staging, path), 'utf8')) as MirrorIndex & MirrorVersion;
    const merged = path.endsWith('/index.json')
      ? mergeMirrorIndex(await target.readJson<MirrorIndex>(path), added)
      : mergeMirrorVersion(await target.readJson<MirrorVersion>(path), added);
    await target.putJson(path, merged);
    written.push(path);
  }
  return written;
}

async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  const entries = await readdir(join(dir, prefix), { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const path = prefix ? `${prefix}/${entry.name}` : entry.name;
      return entry.isDirectory() ? listFiles(dir, path) : Promise.resolve([path]);
    }),
  );
  return nested.flat().sort();
}

function openTarget(options: MirrorOptions): Target {
  const s3Target = /^s3:\/\/([^/]+)\/?(.*)$/.exec(options.to);
  if (!s3Target) return directoryTarget(resolve(options.to));
  if (!options.s3) throw new CliError('an s3:// target needs an S3 client');
  const s3 = options.s3();
  const bucket = s3Target[1]!;
  const prefix = s3Target[2] ? `${s3Target[2].replace(/\/+$/, '')}/` : '';
  return {
    describe: `s3://${bucket}/${prefix}`,
    async has(path, size) {
      try {
        const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: prefix + path }));
        return head.ContentLength === size;
      } catch (error) {
        const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        if (status === 404 || (error as Error).name === 'NotFound') return false;
        throw error;
      }
    },
    async readJson<T>(path: string) {
      try {
        const response = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: prefix + path }));
        return JSON.parse((await response.Body?.transformToString('utf8')) ?? '') as T;
      } catch (error) {
        if (isNoSuchKey(error)) return undefined;
        throw error;
      }
    },
    async putFile(path, from) {
      const { size } = await stat(from);
      await s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: prefix + path,
          Body: createReadStream(from),
          ContentLength: size,
          ContentType: 'application/zip',
        }),
      );
    },
    async putJson(path, value) {
      await s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: prefix + path,
          Body: JSON.stringify(value),
          ContentType: 'application/json',
        }),
      );
    },
  };
}

function directoryTarget(root: string): Target {
  return {
    describe: root,
    async has(path, size) {
      return (await stat(join(root, path)).catch(() => undefined))?.size === size;
    },
    async readJson<T>(path: string) {
      const text = await readFile(join(root, path), 'utf8').catch(() => undefined);
      return text === undefined ? undefined : (JSON.parse(text) as T);
    },
    async putFile(path, from) {
      const to = join(root, path);
      await mkdir(dirname(to), { recursive: true });
      // The staging directory goes away: moving is enough, copying only across file systems.
      await rename(from, to).catch(() => copyFile(from, to));
    },
    async putJson(path, value) {
      const to = join(root, path);
      await mkdir(dirname(to), { recursive: true });
      await writeFile(`${to}.tmp`, JSON.stringify(value));
      await rename(`${to}.tmp`, to);
    },
  };
}

/** Where the mirror is, for messages. */
export function describeTarget(to: string): string {
  return /^s3:\/\//.test(to) ? to : relative(process.cwd(), resolve(to)) || '.';
}
