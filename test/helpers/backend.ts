import { S3ServiceException } from '@aws-sdk/client-s3';
import type {
  BackendObject,
  BackendReader,
  LockTableItem,
  ObjectVersionRef,
  ReadFailure,
} from '../../functions/core/backend/ports.js';
import { BackendReadError, ObjectTooLargeError } from '../../functions/core/backend/ports.js';
import { tlsOnlyPolicy } from '../../functions/core/backend/rules/tls-only.js';
import type { BucketSettings, PublicGrant } from '../../functions/core/backend/settings.js';
import { type ObjectStore, PreconditionFailedError } from '../../functions/core/findings/object-store.js';
import type { Registry } from '../../functions/core/registry/model.js';
import { parseRegistry } from '../../functions/core/registry/parse.js';

/** A bucket setting read that worked. */
export function ok<T>(value: T) {
  return { ok: true as const, value };
}

export function denied(action: string, resource = 's3://tfstate'): { ok: false; failure: ReadFailure } {
  return { ok: false, failure: { resource, action, code: 'AccessDenied', message: 'Access Denied' } };
}

/** The bucket's ListBucket preflight against an endpoint nobody listens on. */
export const refusedListing: ReadFailure = {
  resource: 's3://tfstate/',
  action: 's3:ListBucket',
  code: 'ECONNREFUSED',
  errorName: 'Error',
  endpoint: '127.0.0.1:1',
  message: 'connect ECONNREFUSED 127.0.0.1:1',
};

/** A compliant state bucket: every rule passes. */
export function compliantSettings(overrides: Partial<BucketSettings> = {}): BucketSettings {
  return {
    versioning: ok('Enabled' as const),
    encryption: ok({ algorithm: 'aws:kms', kmsKeyId: 'arn:aws:kms:eu-west-1:111111111111:key/1' }),
    publicAccessBlock: ok({
      blockPublicAcls: true,
      ignorePublicAcls: true,
      blockPublicPolicy: true,
      restrictPublicBuckets: true,
    }),
    policy: ok(JSON.stringify(tlsOnlyPolicy('tfstate'))),
    objectOwnership: ok('BucketOwnerEnforced'),
    lifecycle: ok([{ enabled: true, tagFiltered: false, noncurrentVersionExpiration: { days: 90 } }]),
    policyStatus: ok(false),
    publicGrants: ok([]),
    ...overrides,
  };
}

export function lockBody(fields: Record<string, unknown> = {}): string {
  return JSON.stringify({
    ID: 'a1b2c3d4-0000-4000-8000-000000000001',
    Operation: 'OperationTypeApply',
    Info: '',
    Who: 'ci@runner-7',
    Version: '1.11.4',
    Created: '2026-11-29T00:00:00.123456789Z',
    Path: 'tfstate/payments/terraform.tfstate',
    ...fields,
  });
}

export function stateBody(fields: Record<string, unknown> = {}): string {
  return JSON.stringify({
    version: 4,
    terraform_version: '1.11.4',
    serial: 3,
    lineage: '5e0c1c2d-7a0b-4a37-9d7e-0c8a1d1f0001',
    outputs: {},
    resources: [],
    ...fields,
  });
}

export interface FakeObject {
  body: string;
  /** The size S3 reports, when it is not the body's (an object too large to build in a test). */
  size?: number;
  lastModified?: Date;
  etag?: string;
  /** Older versions, newest first, each with its own body (and object ACL's public grants). */
  history?: Array<{ versionId: string; body: string; lastModified?: Date; publicGrants?: PublicGrant[] }>;
  /** The public grants of the current version's object ACL (none by default). */
  publicGrants?: PublicGrant[];
  /** The server-side encryption S3 reports for every version (default `aws:kms`; null: none). */
  encryption?: string | null;
  /** Deleted then: a delete marker on top of its versions (listings skip it, GETs say NoSuchKey). */
  deletedAt?: Date;
}

/**
 * An in-memory state bucket behind the BackendReader port, counting what a real one would be asked.
 * `fail` makes a read of one resource fail like S3 would: `s3://<bucket>` the preflight and the
 * listing, `list:<bucket>` the listing only (a bucket that answered the preflight, then failed),
 * `acl:<bucket>/<key>` the object ACL reads of a state.
 */
export function fakeBackend(
  options: {
    bucket?: string;
    objects?: Record<string, FakeObject>;
    settings?: BucketSettings;
    tables?: Record<string, LockTableItem[]>;
    fail?: Record<string, ReadFailure>;
    pageSize?: number;
  } = {},
) {
  const bucket = options.bucket ?? 'tfstate';
  const objects = new Map(Object.entries(options.objects ?? {}));
  const calls = {
    preflight: 0,
    list: 0,
    settings: 0,
    versions: 0,
    read: [] as string[],
    /** The byte counts of the Range reads of states. */
    ranges: [] as number[],
    tables: 0,
    /** The versions whose object ACL was read (`key@versionId`). */
    acls: [] as string[],
  };
  const failIf = (resource: string) => {
    const failure = options.fail?.[resource];
    if (failure) throw new BackendReadError(failure);
  };
  /** A version's body as the Range reads see it: none for a deleted object's current version. */
  const versionBody = (key: string, versionId: string | undefined): string | undefined => {
    const object = objects.get(key);
    if (!object || (object.deletedAt && !versionId)) return undefined;
    if (!versionId || versionId === `${key}@current`) return object.body;
    return object.history?.find((version) => version.versionId === versionId)?.body;
  };
  const reader: BackendReader = {
    // The preflight is a one-key listing: it fails like the listing does (`s3://<bucket>`).
    async preflight(name) {
      calls.preflight++;
      failIf(`s3://${name}`);
    },
    async *listObjects(name, prefix) {
      failIf(`s3://${name}`);
      failIf(`list:${name}`);
      const keys = [...objects.keys()]
        .filter((key) => key.startsWith(prefix) && objects.get(key)?.deletedAt === undefined)
        .sort();
      const pageSize = options.pageSize ?? 1000;
      for (let start = 0; start === 0 || start < keys.length; start += pageSize) {
        calls.list++;
        for (const key of keys.slice(start, start + pageSize)) {
          const object = objects.get(key)!;
          const listed: BackendObject = { key, size: object.size ?? object.body.length };
          listed.lastModified = object.lastModified ?? new Date('2026-11-28T00:00:00Z');
          listed.etag = object.etag ?? `"${object.body.length}-${object.body.slice(0, 12)}"`;
          yield listed;
        }
      }
    },
    async bucketSettings(name) {
      calls.settings++;
      failIf(`settings:${name}`);
      return options.settings ?? compliantSettings();
    },
    async recentVersions(_name, key, limit): Promise<ObjectVersionRef[]> {
      calls.versions++;
      const object = objects.get(key);
      if (!object) return [];
      return [
        ...(object.deletedAt
          ? [{ versionId: `${key}@deleted`, deleteMarker: true, lastModified: object.deletedAt }]
          : []),
        { versionId: `${key}@current`, deleteMarker: false, lastModified: object.lastModified ?? new Date() },
        ...(object.history ?? []).map((version) => ({
          versionId: version.versionId,
          deleteMarker: false,
          lastModified: version.lastModified ?? new Date('2026-11-01T00:00:00Z'),
        })),
      ].slice(0, limit);
    },
    async readObject(_name, key, versionId, maxBytes) {
      calls.read.push(versionId ? `${key}@${versionId}` : key);
      failIf(`s3://${bucket}/${key}`);
      const object = objects.get(key);
      if (!object) return undefined;
      const size = object.size ?? object.body.length;
      if (maxBytes !== undefined && size > maxBytes) throw new ObjectTooLargeError(size, maxBytes);
      if (!versionId || versionId === `${key}@current`) return object.body;
      return object.history?.find((version) => version.versionId === versionId)?.body;
    },
    async readObjectStart(_name, key, versionId, bytes) {
      calls.read.push(versionId ? `${key}@${versionId}` : key);
      calls.ranges.push(bytes);
      failIf(`s3://${bucket}/${key}`);
      const body = versionBody(key, versionId);
      if (body === undefined) return undefined;
      const data = Buffer.from(body, 'utf8');
      const object = objects.get(key)!;
      const totalBytes = object.size ?? data.length;
      const text = data.subarray(0, bytes).toString('utf8');
      const encryption = object.encryption === undefined ? 'aws:kms' : object.encryption;
      return { text, totalBytes, complete: bytes >= totalBytes, ...(encryption ? { encryption } : {}) };
    },
    async readObjectEnd(_name, key, versionId, bytes) {
      calls.read.push(`${versionId ? `${key}@${versionId}` : key} (end)`);
      failIf(`s3://${bucket}/${key}`);
      const body = versionBody(key, versionId);
      if (body === undefined) return undefined;
      const data = Buffer.from(body, 'utf8');
      return data.subarray(Math.max(0, data.length - bytes)).toString('utf8');
    },
    async objectPublicGrants(_name, key, versionId) {
      calls.acls.push(`${key}@${versionId}`);
      failIf(`acl:${bucket}/${key}`);
      const object = objects.get(key);
      if (!object || (object.deletedAt && !versionId)) return undefined;
      if (!versionId || versionId === `${key}@current`) return object.publicGrants ?? [];
      const version = object.history?.find((each) => each.versionId === versionId);
      return version && (version.publicGrants ?? []);
    },
    async lockTableItems(table) {
      calls.tables++;
      failIf(`dynamodb:${table}`);
      return options.tables?.[table] ?? [];
    },
  };
  return { reader, calls, objects };
}

/** The object store port in memory, with ETags and conditional writes like S3's. */
export function memoryObjectStore(): ObjectStore & { objects: Map<string, string> } {
  const objects = new Map<string, string>();
  const etagOf = (body: string) =>
    `"${body.length}:${[...body].reduce((hash, c) => (hash * 31 + c.charCodeAt(0)) | 0, 7)}"`;
  return {
    location: 'memory://',
    objects,
    async get(key) {
      const body = objects.get(key);
      return body === undefined ? undefined : { body, etag: etagOf(body) };
    },
    async put(key, body, options = {}) {
      const existing = objects.get(key);
      if (options.ifNoneMatch === '*' && existing !== undefined) throw new PreconditionFailedError(key);
      if (options.ifMatch !== undefined && (existing === undefined || etagOf(existing) !== options.ifMatch))
        throw new PreconditionFailedError(key);
      objects.set(key, body);
      return { etag: etagOf(body) };
    },
    async delete(key, options = {}) {
      const existing = objects.get(key);
      if (options.ifMatch !== undefined && existing !== undefined && etagOf(existing) !== options.ifMatch)
        throw new PreconditionFailedError(key);
      objects.delete(key);
    },
    async *list(prefix) {
      for (const [key, body] of [...objects].sort(([a], [b]) => a.localeCompare(b)))
        if (key.startsWith(prefix)) yield { key, size: body.length };
    },
  };
}

/** A clock the test moves by hand. */
export function manualClock(start: string) {
  let now = new Date(start).getTime();
  return {
    now: () => new Date(now),
    advance(ms: number) {
      now += ms;
    },
  };
}

/** A registry with the teams platform and payments, and these YAML lines after `workspaces:`. */
export function backendRegistry(...lines: string[]): Registry {
  return parseRegistry(
    [
      'version: 1',
      'owners:',
      '  fallback: platform',
      '  teams:',
      '    - { id: platform, destinations: [{ type: email, address: p@example.com }] }',
      '    - { id: payments, destinations: [{ type: email, address: q@example.com }] }',
      'workspaces:',
      ...lines,
      '',
    ].join('\n'),
  );
}

/** An S3 error as the SDK throws it for an answer with this code and status (its message: `<name>!`). */
export function s3ServiceError(name: string, status: number): S3ServiceException {
  return new S3ServiceException({
    name,
    $fault: 'client',
    // Every answer of S3 carries a request id; one without is not from AWS (failure-cause.ts).
    $metadata: { httpStatusCode: status, requestId: 'R3QU35T1D' },
    message: `${name}!`,
  });
}
