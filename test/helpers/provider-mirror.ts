import { execFileSync } from 'node:child_process';
import {
  closeSync,
  createReadStream,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';

/**
 * Provider mirrors built in a test from the provider on this machine, without copying it (the AWS
 * provider is ~700 MB): the unpacked filesystem-mirror layout through hard links (symlinks across
 * file systems), and Terraform's network mirror protocol served over HTTPS with a self-signed CA,
 * each archive a stored (uncompressed) zip streamed from the unpacked files.
 */

export interface MirroredProvider {
  /** e.g. registry.terraform.io/hashicorp/aws */
  address: string;
  /** Version number to publish, e.g. 5.100.0 or a made-up 5.100.1 holding the same binary. */
  version: string;
  platform: string;
  /** The unpacked package directory to publish (binary, LICENSE...). */
  from: string;
}

/** Publishes each provider under `dir` in the unpacked layout `<address>/<version>/<platform>/`. */
export function buildFilesystemMirror(dir: string, providers: MirroredProvider[]): void {
  for (const provider of providers) {
    const target = join(dir, provider.address, provider.version, provider.platform);
    mkdirSync(target, { recursive: true });
    for (const name of readdirSync(provider.from)) {
      try {
        linkSync(join(provider.from, name), join(target, name));
      } catch {
        symlinkSync(join(provider.from, name), join(target, name));
      }
    }
  }
}

interface ZipEntry {
  name: string;
  path: string;
  size: number;
  crc: number;
  mode: number;
}

/** A zip that stores (method 0) the files of a package directory, described for streaming. */
function describeZip(dir: string): { entries: ZipEntry[]; size: number } {
  const entries = readdirSync(dir).map((name): ZipEntry => {
    const path = join(dir, name);
    const stats = statSync(path);
    if (stats.size >= 0xffffffff) throw new Error(`${path} needs zip64, which this helper does not write`);
    return { name, path, size: stats.size, crc: fileCrc32(path), mode: stats.mode };
  });
  const size =
    entries.reduce((sum, entry) => sum + 30 + entry.name.length + entry.size + 46 + entry.name.length, 0) +
    22;
  return { entries, size };
}

/** One pass in 8 MB chunks (a 700 MB provider takes about a second with zlib's crc32). */
function fileCrc32(path: string): number {
  const fd = openSync(path, 'r');
  const buffer = Buffer.alloc(8 * 1024 * 1024);
  let crc = 0;
  try {
    for (let read = readSync(fd, buffer); read > 0; read = readSync(fd, buffer))
      crc = crc32(buffer.subarray(0, read), crc);
  } finally {
    closeSync(fd);
  }
  return crc;
}

function localHeader(entry: ZipEntry): Buffer {
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt16LE(0, 6);
  header.writeUInt16LE(0, 8); // stored
  header.writeUInt32LE(0, 10); // time, date
  header.writeUInt32LE(entry.crc >>> 0, 14);
  header.writeUInt32LE(entry.size, 18);
  header.writeUInt32LE(entry.size, 22);
  header.writeUInt16LE(entry.name.length, 26);
  header.writeUInt16LE(0, 28);
  return Buffer.concat([header, Buffer.from(entry.name)]);
}

function centralDirectory(entries: ZipEntry[]): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE((3 << 8) | 20, 4); // made by unix, so the executable bit survives
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(0, 8);
    header.writeUInt16LE(0, 10);
    header.writeUInt32LE(0, 12);
    header.writeUInt32LE(entry.crc >>> 0, 16);
    header.writeUInt32LE(entry.size, 20);
    header.writeUInt32LE(entry.size, 24);
    header.writeUInt16LE(entry.name.length, 28);
    header.writeUInt32LE(((entry.mode & 0xffff) << 16) >>> 0, 38);
    header.writeUInt32LE(offset, 42);
    parts.push(header, Buffer.from(entry.name));
    offset += 30 + entry.name.length + entry.size;
  }
  const central = Buffer.concat(parts);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(central.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([central, end]);
}

export interface TestCertificate {
  /** PEM of the self-signed certificate, which is its own CA (for SSL_CERT_FILE). */
  caFile: string;
  cert: Buffer;
  key: Buffer;
}

/** A self-signed certificate for 127.0.0.1 (or `host`), made with openssl (`<name>.key`, `<name>.pem` in `dir`). */
export function selfSignedCertificate(dir: string, name = 'mirror', host = '127.0.0.1'): TestCertificate {
  const keyFile = join(dir, `${name}.key`);
  const caFile = join(dir, `${name}.pem`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/CN=${host}`,
      '-addext',
      `subjectAltName=${isIP(host) ? 'IP' : 'DNS'}:${host}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-keyout',
      keyFile,
      '-out',
      caFile,
    ],
    { stdio: 'ignore' },
  );
  return { caFile, cert: readFileSync(caFile), key: readFileSync(keyFile) };
}

export interface NetworkMirror {
  /** Base URL of the mirror, ending in '/'. */
  url: string;
  /** Paths requested so far, in order. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * Terraform's provider network mirror protocol (index.json, <version>.json, archives), over HTTPS.
 * https://developer.hashicorp.com/terraform/internals/provider-network-mirror-protocol
 */
export async function serveNetworkMirror(
  providers: MirroredProvider[],
  certificate: TestCertificate,
): Promise<NetworkMirror> {
  const zips = new Map<string, ReturnType<typeof describeZip>>();
  const routes = new Map<string, () => { type: string; body: Buffer | ReturnType<typeof describeZip> }>();
  const byAddress = new Map<string, MirroredProvider[]>();
  for (const provider of providers) {
    byAddress.set(provider.address, [...(byAddress.get(provider.address) ?? []), provider]);
    let zip = zips.get(provider.from);
    if (!zip) {
      zip = describeZip(provider.from);
      zips.set(provider.from, zip);
    }
    const zipped = zip;
    const type = provider.address.split('/')[2];
    const archive = `terraform-provider-${type}_${provider.version}_${provider.platform}.zip`;
    routes.set(`/${provider.address}/${archive}`, () => ({ type: 'application/zip', body: zipped }));
  }
  for (const [address, versions] of byAddress) {
    const json = (value: unknown) => () => ({
      type: 'application/json',
      body: Buffer.from(JSON.stringify(value)),
    });
    routes.set(
      `/${address}/index.json`,
      json({ versions: Object.fromEntries(versions.map((provider) => [provider.version, {}])) }),
    );
    const type = address.split('/')[2];
    for (const version of new Set(versions.map((provider) => provider.version))) {
      const archives = Object.fromEntries(
        versions
          .filter((provider) => provider.version === version)
          .map((provider) => [
            provider.platform,
            { url: `terraform-provider-${type}_${version}_${provider.platform}.zip` },
          ]),
      );
      routes.set(`/${address}/${version}.json`, json({ archives }));
    }
  }
  const requests: string[] = [];
  const server: Server = createServer(
    { cert: certificate.cert, key: certificate.key },
    (request, response) => {
      const path = new URL(request.url ?? '/', 'https://mirror').pathname;
      requests.push(path);
      const route = routes.get(path);
      if (!route) {
        response.writeHead(404).end();
        return;
      }
      const { type, body } = route();
      if (Buffer.isBuffer(body)) {
        response.writeHead(200, { 'content-type': type, 'content-length': body.length }).end(body);
        return;
      }
      response.writeHead(200, { 'content-type': type, 'content-length': body.size });
      streamZip(body.entries, response).catch((error: unknown) => response.destroy(error as Error));
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function streamZip(entries: ZipEntry[], out: NodeJS.WritableStream): Promise<void> {
  const write = (chunk: Buffer) =>
    new Promise<void>((resolve) => (out.write(chunk) ? resolve() : out.once('drain', resolve)));
  for (const entry of entries) {
    await write(localHeader(entry));
    for await (const chunk of createReadStream(entry.path)) await write(chunk as Buffer);
  }
  out.end(centralDirectory(entries));
}
