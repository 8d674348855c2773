import { type AttributeValue, type DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import {
  GetBucketAclCommand,
  GetBucketEncryptionCommand,
  GetBucketLifecycleConfigurationCommand,
  GetBucketOwnershipControlsCommand,
  GetBucketPolicyCommand,
  GetBucketPolicyStatusCommand,
  GetBucketVersioningCommand,
  GetObjectAclCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  GetPublicAccessBlockCommand,
  type Grant,
  type LifecycleRule as LifecycleRuleOutput,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import {
  type BackendObject,
  BackendReadError,
  type BackendReader,
  type LockTableItem,
  ObjectTooLargeError,
  type ObjectVersionRef,
  type Observed,
} from '../../core/backend/ports.js';
import type { BucketSettings, LifecycleRule, PublicGrant } from '../../core/backend/settings.js';
import { SETTING_READ_ACTIONS } from '../../core/backend/settings.js';
import { configuredEndpoint } from '../aws-endpoint.js';
import { readFailure } from '../aws-read-failure.js';
import { refuseLargerThan } from '../s3-bundle.js';
import { listedKey, URL_ENCODED_LISTING } from '../s3-list-encoding.js';

/**
 * The backend port over S3 and DynamoDB: list pages, bucket settings, object versions, lock table
 * scans. Read-only by construction: no write command is imported here.
 */
export function createAwsBackendReader(clients: { s3: S3Client; dynamodb: DynamoDBClient }): BackendReader {
  const { s3, dynamodb } = clients;

  /**
   * One GetObject of a version (`null` is the id S3 reports for an object written while versioning
   * was off: the current object), or of a byte range of it; undefined when it does not exist.
   */
  async function getObject(
    bucket: string,
    key: string,
    versionId: string | undefined,
    range?: string,
  ): Promise<GetObjectCommandOutput | typeof EMPTY_OBJECT | undefined> {
    const version = versionId && versionId !== 'null' ? versionId : undefined;
    const action = version ? 's3:GetObjectVersion' : 's3:GetObject';
    try {
      return await read(`s3://${bucket}/${key}`, action, () =>
        s3.send(
          new GetObjectCommand({
            Bucket: bucket,
            Key: key,
            VersionId: version,
            ...(range ? { Range: range } : {}),
          }),
        ),
      );
    } catch (error) {
      if (error instanceof BackendReadError) {
        if (/^(NoSuchKey|NoSuchVersion|NotFound)$/.test(error.failure.code)) return undefined;
        // S3 answers a range of an empty object with 416: there is nothing to read.
        if (range && (error.failure.code === 'InvalidRange' || error.failure.httpStatus === 416))
          return EMPTY_OBJECT;
      }
      throw error;
    }
  }

  /** One page of a listing of the bucket under `prefix` (keys url-encoded, see s3-list-encoding.ts). */
  const listPage = (bucket: string, prefix: string, page: { token?: string; maxKeys?: number } = {}) =>
    read(`s3://${bucket}/${prefix}`, 's3:ListBucket', () =>
      s3.send(
        new ListObjectsV2Command({
          Bucket: bucket,
          Prefix: prefix || undefined,
          ContinuationToken: page.token,
          MaxKeys: page.maxKeys,
          ...URL_ENCODED_LISTING,
        }),
      ),
    );

  return {
    async preflight(bucket, prefix) {
      // A one-key listing: the permission discovery needs anyway (s3:ListBucket, even when it is
      // granted for a prefix only), with real error codes (HEAD answers carry none).
      await listPage(bucket, prefix, { maxKeys: 1 });
    },

    async *listObjects(bucket, prefix) {
      let continuationToken: string | undefined;
      do {
        const page = await listPage(bucket, prefix, { token: continuationToken });
        for (const object of page.Contents ?? []) {
          const key = listedKey(object.Key, page.EncodingType);
          if (!key) continue;
          const listed: BackendObject = { key, size: object.Size ?? 0 };
          if (object.LastModified) listed.lastModified = object.LastModified;
          if (object.ETag) listed.etag = object.ETag;
          yield listed;
        }
        continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (continuationToken);
    },

    async bucketSettings(bucket) {
      const setting = <T>(name: keyof BucketSettings, absent: string[], get: () => Promise<T>, none: T) =>
        observe(`s3://${bucket}`, SETTING_READ_ACTIONS[name], absent, get, none);
      const [
        versioning,
        encryption,
        publicAccessBlock,
        policy,
        objectOwnership,
        lifecycle,
        policyStatus,
        publicGrants,
      ] = await Promise.all([
        setting(
          'versioning',
          [],
          async () => {
            const { Status } = await s3.send(new GetBucketVersioningCommand({ Bucket: bucket }));
            return Status === 'Enabled' || Status === 'Suspended' ? Status : 'Disabled';
          },
          'Disabled' as const,
        ),
        setting(
          'encryption',
          ['ServerSideEncryptionConfigurationNotFoundError'],
          async () => {
            const response = await s3.send(new GetBucketEncryptionCommand({ Bucket: bucket }));
            const rule = response.ServerSideEncryptionConfiguration?.Rules?.[0];
            const byDefault = rule?.ApplyServerSideEncryptionByDefault;
            if (!byDefault?.SSEAlgorithm) return undefined;
            return {
              algorithm: byDefault.SSEAlgorithm,
              ...(byDefault.KMSMasterKeyID ? { kmsKeyId: byDefault.KMSMasterKeyID } : {}),
              ...(rule?.BucketKeyEnabled !== undefined ? { bucketKeyEnabled: rule.BucketKeyEnabled } : {}),
            };
          },
          undefined,
        ),
        setting(
          'publicAccessBlock',
          ['NoSuchPublicAccessBlockConfiguration'],
          async () => {
            const response = await s3.send(new GetPublicAccessBlockCommand({ Bucket: bucket }));
            const block = response.PublicAccessBlockConfiguration;
            if (!block) return undefined;
            return {
              blockPublicAcls: block.BlockPublicAcls,
              ignorePublicAcls: block.IgnorePublicAcls,
              blockPublicPolicy: block.BlockPublicPolicy,
              restrictPublicBuckets: block.RestrictPublicBuckets,
            };
          },
          undefined,
        ),
        setting(
          'policy',
          ['NoSuchBucketPolicy'],
          async () => {
            return (await s3.send(new GetBucketPolicyCommand({ Bucket: bucket }))).Policy;
          },
          undefined,
        ),
        setting(
          'objectOwnership',
          ['OwnershipControlsNotFoundError'],
          async () => {
            const response = await s3.send(new GetBucketOwnershipControlsCommand({ Bucket: bucket }));
            return response.OwnershipControls?.Rules?.[0]?.ObjectOwnership;
          },
          undefined,
        ),
        setting(
          'lifecycle',
          ['NoSuchLifecycleConfiguration'],
          async () => {
            const response = await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: bucket }));
            // Without the field (an endpoint that predates it), small objects are assumed to move.
            const transitionMinimum =
              response.TransitionDefaultMinimumObjectSize === 'all_storage_classes_128K'
                ? TRANSITION_DEFAULT_MINIMUM_BYTES
                : undefined;
            return (response.Rules ?? []).map(
              (rule): LifecycleRule => ({
                ...(rule.ID ? { id: rule.ID } : {}),
                enabled: rule.Status === 'Enabled',
                ...lifecyclePrefix(rule.Filter?.Prefix ?? rule.Filter?.And?.Prefix ?? rule.Prefix),
                tagFiltered: rule.Filter?.Tag !== undefined || (rule.Filter?.And?.Tags?.length ?? 0) > 0,
                ...lifecycleSizes(
                  rule.Filter?.ObjectSizeGreaterThan ?? rule.Filter?.And?.ObjectSizeGreaterThan,
                  rule.Filter?.ObjectSizeLessThan ?? rule.Filter?.And?.ObjectSizeLessThan,
                ),
                ...currentVersionRemoval(rule, transitionMinimum),
                ...(rule.NoncurrentVersionExpiration
                  ? {
                      noncurrentVersionExpiration: {
                        days: rule.NoncurrentVersionExpiration.NoncurrentDays,
                        newerVersions: rule.NoncurrentVersionExpiration.NewerNoncurrentVersions,
                      },
                    }
                  : {}),
              }),
            );
          },
          [] as LifecycleRule[],
        ),
        setting(
          'policyStatus',
          // No policy, nothing public.
          ['NoSuchBucketPolicy'],
          async () => {
            const response = await s3.send(new GetBucketPolicyStatusCommand({ Bucket: bucket }));
            // An endpoint that does not compute it answers without IsPublic: nothing is claimed.
            return response.PolicyStatus?.IsPublic;
          },
          false as boolean | undefined,
        ),
        setting(
          'publicGrants',
          [],
          async () => {
            const response = await s3.send(new GetBucketAclCommand({ Bucket: bucket }));
            return publicGrantsOf(response.Grants);
          },
          [] as PublicGrant[],
        ),
      ]);
      return {
        versioning,
        encryption,
        publicAccessBlock,
        policy,
        objectOwnership,
        lifecycle,
        policyStatus,
        publicGrants,
      };
    },

    async recentVersions(bucket, key, limit) {
      // Versions are listed key by key, newest first: `key` comes before `key.tflock`, so one
      // small page holds the recent versions of the state.
      const page = await read(`s3://${bucket}/${key}`, 's3:ListBucketVersions', () =>
        s3.send(
          new ListObjectVersionsCommand({
            Bucket: bucket,
            Prefix: key,
            MaxKeys: Math.min(1000, limit * 4),
            ...URL_ENCODED_LISTING,
          }),
        ),
      );
      const refs: Array<ObjectVersionRef & { isLatest: boolean }> = [
        ...(page.Versions ?? []).map((version) => ({ entry: version, deleteMarker: false })),
        ...(page.DeleteMarkers ?? []).map((marker) => ({ entry: marker, deleteMarker: true })),
      ]
        .filter(({ entry }) => listedKey(entry.Key, page.EncodingType) === key && entry.VersionId)
        .map(({ entry, deleteMarker }) => ({
          versionId: entry.VersionId!,
          deleteMarker,
          isLatest: entry.IsLatest === true,
          ...(entry.LastModified ? { lastModified: entry.LastModified } : {}),
        }));
      refs.sort(
        (a, b) =>
          Number(b.isLatest) - Number(a.isLatest) ||
          (b.lastModified?.getTime() ?? 0) - (a.lastModified?.getTime() ?? 0),
      );
      return refs.map(({ isLatest: _isLatest, ...ref }) => ref);
    },

    async readObject(bucket, key, versionId, maxBytes) {
      const response = await getObject(bucket, key, versionId);
      if (response === undefined) return undefined;
      if (response === EMPTY_OBJECT) return '';
      if (maxBytes === undefined) return (await response.Body?.transformToString('utf8')) ?? '';
      refuseLargerThan(response, maxBytes, (length) => new ObjectTooLargeError(length, maxBytes));
      const length = response.ContentLength ?? 0;
      // A body longer than its Content-Length said (or sent without one) is still read no further.
      const data = await readAtMost(response.Body, maxBytes + 1);
      if (data.length > maxBytes) throw new ObjectTooLargeError(Math.max(length, data.length), maxBytes);
      return data.toString('utf8');
    },

    async readObjectStart(bucket, key, versionId, bytes) {
      const response = await getObject(bucket, key, versionId, `bytes=0-${bytes - 1}`);
      if (response === undefined) return undefined;
      if (response === EMPTY_OBJECT) return { text: '', totalBytes: 0, complete: true };
      // `bytes 0-65535/734003200` (`/*`: size unknown); a server that ignored the Range answers 200
      // with the whole length and no Content-Range.
      const total = response.ContentRange
        ? Number(/\/(\d+)$/.exec(response.ContentRange)?.[1] ?? Number.NaN)
        : (response.ContentLength ?? Number.NaN);
      const data = await readAtMost(response.Body, bytes);
      const extent = Number.isFinite(total)
        ? { totalBytes: total, complete: data.length >= total }
        : // Size unknown: a full range may have more behind it.
          { totalBytes: data.length, complete: data.length < bytes };
      return {
        text: data.toString('utf8'),
        ...extent,
        ...(response.ServerSideEncryption ? { encryption: response.ServerSideEncryption } : {}),
        ...(response.SSEKMSKeyId ? { kmsKeyId: response.SSEKMSKeyId } : {}),
      };
    },

    async readObjectEnd(bucket, key, versionId, bytes) {
      const response = await getObject(bucket, key, versionId, `bytes=-${bytes}`);
      if (response === undefined) return undefined;
      if (response === EMPTY_OBJECT) return '';
      return (await readAtMost(response.Body, bytes)).toString('utf8');
    },

    async objectPublicGrants(bucket, key, versionId) {
      const version = versionId && versionId !== 'null' ? versionId : undefined;
      try {
        const response = await read(
          `s3://${bucket}/${key}`,
          version ? 's3:GetObjectVersionAcl' : 's3:GetObjectAcl',
          () => s3.send(new GetObjectAclCommand({ Bucket: bucket, Key: key, VersionId: version })),
        );
        return publicGrantsOf(response.Grants);
      } catch (error) {
        // Deleted or expired between the listing and this read: there is no ACL left to judge.
        if (
          error instanceof BackendReadError &&
          /^(NoSuchKey|NoSuchVersion|NotFound)$/.test(error.failure.code)
        )
          return undefined;
        throw error;
      }
    },

    async lockTableItems(table, bucket) {
      const items: LockTableItem[] = [];
      let startKey: Record<string, AttributeValue> | undefined;
      do {
        const page = await read(`dynamodb:${table}`, 'dynamodb:Scan', () =>
          dynamodb.send(
            new ScanCommand({
              TableName: table,
              FilterExpression: 'begins_with(#id, :bucket)',
              ProjectionExpression: '#id, #info, #digest',
              ExpressionAttributeNames: { '#id': 'LockID', '#info': 'Info', '#digest': 'Digest' },
              ExpressionAttributeValues: { ':bucket': { S: `${bucket}/` } },
              ExclusiveStartKey: startKey,
            }),
          ),
        );
        for (const item of page.Items ?? []) {
          const lockId = item.LockID?.S;
          if (!lockId) continue;
          const entry: LockTableItem = { lockId };
          if (item.Info?.S !== undefined) entry.info = item.Info.S;
          else if (item.Info !== undefined) entry.infoType = Object.keys(item.Info)[0];
          if (item.Digest?.S !== undefined) entry.digest = item.Digest.S;
          items.push(entry);
        }
        startKey = page.LastEvaluatedKey;
      } while (startKey);
      return items;
    },
  };
}

/** ACL grantee groups that are public: everyone, and anyone with an AWS account. */
const PUBLIC_GROUPS: ReadonlyMap<string, PublicGrant['grantee']> = new Map<string, PublicGrant['grantee']>([
  ['http://acs.amazonaws.com/groups/global/AllUsers', 'AllUsers'],
  ['http://acs.amazonaws.com/groups/global/AuthenticatedUsers', 'AuthenticatedUsers'],
]);

/** The grants of an ACL (a bucket's or an object's) to a public group. */
function publicGrantsOf(grants: readonly Grant[] | undefined): PublicGrant[] {
  return (grants ?? []).flatMap((grant): PublicGrant[] => {
    // Only group grantees have a URI (the xsi:type attribute is not needed to tell).
    const uri = grant.Grantee?.URI;
    const grantee = uri === undefined ? undefined : PUBLIC_GROUPS.get(uri);
    return grantee ? [{ grantee, permission: grant.Permission ?? 'unknown' }] : [];
  });
}

/** A range asked of an empty object (S3's 416). */
const EMPTY_OBJECT = Symbol('empty object');

/**
 * At most `limit` bytes of a body, then the stream is destroyed: a server that ignored the Range
 * (or a body longer than it said) never fills memory.
 */
async function readAtMost(body: unknown, limit: number): Promise<Buffer> {
  if (body === undefined || body === null) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let length = 0;
  const stream = body as AsyncIterable<Uint8Array> & { destroy?: () => void };
  if (typeof stream[Symbol.asyncIterator] !== 'function') {
    const text = await (body as { transformToString?: () => Promise<string> }).transformToString?.();
    return Buffer.from(text ?? '', 'utf8').subarray(0, limit);
  }
  for await (const chunk of stream) {
    chunks.push(Buffer.from(chunk));
    length += chunk.length;
    if (length >= limit) break;
  }
  stream.destroy?.();
  return Buffer.concat(chunks).subarray(0, limit);
}

function lifecyclePrefix(prefix: string | undefined): { prefix?: string } {
  return prefix ? { prefix } : {};
}

/** Storage classes whose objects GetObject refuses (InvalidObjectState) until restored. */
const ARCHIVE_CLASSES: ReadonlySet<string> = new Set(['GLACIER', 'DEEP_ARCHIVE']);

/**
 * What a rule does to current versions: an `Expiration` by age or date (one with only
 * `ExpiredObjectDeleteMarker` removes orphaned delete markers and nothing else), and transitions to
 * an archive class (GLACIER_IR and the infrequent-access classes stay readable).
 */
function currentVersionRemoval(
  rule: LifecycleRuleOutput,
  transitionMinimum: number | undefined,
): Pick<LifecycleRule, 'currentExpiration' | 'archivingTransitions' | 'transitionsFromBytes'> {
  const day = (date: Date | undefined) => (date ? { date: date.toISOString().slice(0, 10) } : {});
  const { Days, Date: on } = rule.Expiration ?? {};
  const archiving = (rule.Transitions ?? [])
    .filter((transition) => ARCHIVE_CLASSES.has(transition.StorageClass ?? ''))
    .map((transition) => ({
      storageClass: transition.StorageClass as string,
      ...(transition.Days !== undefined ? { days: transition.Days } : day(transition.Date)),
    }));
  return {
    ...(Days !== undefined || on !== undefined
      ? { currentExpiration: Days !== undefined ? { days: Days } : day(on) }
      : {}),
    ...(archiving.length > 0 ? { archivingTransitions: archiving } : {}),
    ...(archiving.length > 0 && transitionMinimum !== undefined && !hasSizeFilter(rule)
      ? { transitionsFromBytes: transitionMinimum }
      : {}),
  };
}

/**
 * `all_storage_classes_128K`: "objects smaller than 128 KB will not transition to any storage class"
 * (128 KiB), unless the rule filters on object size itself.
 */
const TRANSITION_DEFAULT_MINIMUM_BYTES = 128 * 1024;

function hasSizeFilter(rule: LifecycleRuleOutput): boolean {
  const { Filter } = rule;
  return [
    Filter?.ObjectSizeGreaterThan,
    Filter?.ObjectSizeLessThan,
    Filter?.And?.ObjectSizeGreaterThan,
    Filter?.And?.ObjectSizeLessThan,
  ].some((bound) => bound !== undefined);
}

function lifecycleSizes(
  greaterThan: number | undefined,
  lessThan: number | undefined,
): Pick<LifecycleRule, 'objectSize'> {
  if (greaterThan === undefined && lessThan === undefined) return {};
  return {
    objectSize: {
      ...(greaterThan !== undefined ? { greaterThan } : {}),
      ...(lessThan !== undefined ? { lessThan } : {}),
    },
  };
}

/** Runs one read; its failure becomes a BackendReadError naming the resource and the IAM action. */
async function read<T>(resource: string, action: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    const failure = readFailure(resource, action, error);
    // A timeout carries no address, nor does an answer: name the endpoint the SDK was configured to
    // talk to ("no answer from http://127.0.0.1:4566 (timeout)", "HTTP 500 from …").
    failure.endpoint ??= configuredEndpoint(
      process.env,
      resource.startsWith('dynamodb:') ? 'dynamodb' : 's3',
    );
    throw new BackendReadError(failure, { cause: error });
  }
}

/** A setting read: "not configured" errors mean the absent value; other failures are kept, not thrown. */
async function observe<T>(
  resource: string,
  action: string,
  absentCodes: readonly string[],
  get: () => Promise<T>,
  absent: T,
): Promise<Observed<T>> {
  try {
    return { ok: true, value: await read(resource, action, get) };
  } catch (error) {
    if (!(error instanceof BackendReadError)) throw error;
    if (absentCodes.includes(error.failure.code)) return { ok: true, value: absent };
    return { ok: false, failure: error.failure };
  }
}
