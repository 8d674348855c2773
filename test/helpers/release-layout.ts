import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as openpgp from 'openpgp';
import type { Platform } from '../../functions/adapters/terraform/binary-cache.js';
import type { Engine } from '../../functions/core/terraform/engine-version.js';

/**
 * The official release layout of Terraform / OpenTofu, built from any executable: a zip holding it
 * under the engine's binary name, `<name>_<v>_SHA256SUMS`, and a detached OpenPGP signature of the
 * SHA256SUMS by a key generated in the test. Paths are relative to the release base URL.
 */

export interface SigningKey {
  publicKey: string;
  privateKey: string;
}

/** An ECC key: generated in milliseconds, verified by the same openpgp code as HashiCorp's RSA key. */
export async function generateSigningKey(name = 'driftwatch test mirror'): Promise<SigningKey> {
  const { publicKey, privateKey } = await openpgp.generateKey({
    type: 'ecc',
    curve: 'curve25519Legacy',
    userIDs: [{ name, email: 'mirror@example.com' }],
    format: 'armored',
  });
  return { publicKey, privateKey };
}

export async function detachedSignature(data: Uint8Array, key: SigningKey): Promise<Uint8Array> {
  const privateKey = await openpgp.readPrivateKey({ armoredKey: key.privateKey });
  const message = await openpgp.createMessage({ binary: data });
  return (await openpgp.sign({
    message,
    signingKeys: privateKey,
    detached: true,
    format: 'binary',
  })) as Uint8Array;
}

export interface LayoutOptions {
  engine: Engine;
  version: string;
  /** The executable to publish (copied into the zip under `terraform` or `tofu`). */
  executable: string;
  platform: Platform;
  /** Signs SHA256SUMS; undefined publishes no signature. */
  key?: SigningKey;
  /** Which signature file name to publish (terraform: `.sig` or `.72D7468F.sig`; opentofu: `.gpgsig`). */
  signatureSuffix?: string;
  /** A zip built before (its entry is the binary name, whatever the version): zipping ~90 MB takes seconds. */
  zip?: Uint8Array;
}

export function sha256(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The files of one release, by path under the base URL. */
export async function releaseLayout(options: LayoutOptions): Promise<Map<string, Uint8Array>> {
  const { engine, version, platform } = options;
  const name = engine === 'opentofu' ? 'tofu' : 'terraform';
  const prefix = `${name}_${version}`;
  const dir = engine === 'opentofu' ? `v${version}` : version;
  const zipName = `${prefix}_${platform.os}_${platform.arch}.zip`;
  const work = mkdtempSync(join(tmpdir(), 'driftwatch-layout-'));
  try {
    let zip = options.zip;
    if (!zip) {
      symlinkSync(options.executable, join(work, name));
      // -1: fast deflate (the real releases are deflated too); -j: the entry is `terraform`, no path.
      execFileSync('zip', ['-q', '-j', '-1', join(work, zipName), join(work, name)]);
      zip = new Uint8Array(readFileSync(join(work, zipName)));
    }
    const sums = new TextEncoder().encode(
      `${sha256(new TextEncoder().encode('other'))}  ${prefix}_windows_386.zip\n${sha256(zip)}  ${zipName}\n`,
    );
    const files = new Map<string, Uint8Array>([
      [`${dir}/${zipName}`, zip],
      [`${dir}/${prefix}_SHA256SUMS`, sums],
    ]);
    if (options.key) {
      const suffix = options.signatureSuffix ?? (engine === 'opentofu' ? '.gpgsig' : '.sig');
      files.set(`${dir}/${prefix}_SHA256SUMS${suffix}`, await detachedSignature(sums, options.key));
    }
    return files;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** HashiCorp's index.json shape, listing the given versions. */
export function hashicorpIndex(name: string, versions: string[]): Uint8Array {
  return new TextEncoder().encode(
    JSON.stringify({
      name,
      versions: Object.fromEntries(versions.map((version) => [version, { name, version }])),
    }),
  );
}

export interface ReleaseServer {
  url: string;
  /** Paths requested, in order (`/1.11.99/terraform_1.11.99_SHA256SUMS`). */
  requests: string[];
  stop(): Promise<void>;
}

/** Serves files (path → bytes) over HTTP on 127.0.0.1; anything else is a 404. */
export async function serveFiles(files: Map<string, Uint8Array>): Promise<ReleaseServer> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    const path = decodeURIComponent((request.url ?? '/').split('?')[0]!);
    requests.push(path);
    const body = files.get(path.replace(/^\//, ''));
    if (!body) {
      response.writeHead(404).end('not found');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
