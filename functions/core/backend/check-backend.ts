import { classifyTableItem } from '../locks/lock-table.js';
import { mapConcurrently } from '../scan/map-concurrently.js';
import { type Discovery, discoverBackend, preflightTarget } from './discovery.js';
import {
  BackendReadError,
  type BackendReader,
  type ObjectStart,
  type Observed,
  type ReadFailure,
  readable,
} from './ports.js';
import {
  type BucketSubject,
  type LockTableFacts,
  ruleDraft,
  type StateSubject,
  type StateVersionFacts,
} from './rule.js';
import { BUCKET_RULES, STATE_RULES } from './rules/index.js';
import { createScopeRuns, type ScopeRun } from './scope-runs.js';
import type { BucketSettingName, BucketSettings } from './settings.js';
import { type ParsedStatePrefix, parseStatePrefix } from './state-document.js';
import { type BackendTarget, inPrefix, stateOwnerOf } from './target.js';

/** Versions of a state object compared for lineage and serial (each one is a GET). */
export const RECENT_STATE_VERSIONS = 5;
/** State objects read at once: each can be megabytes. */
const STATE_READ_CONCURRENCY = 4;

export interface BackendCheckResult {
  runs: ScopeRun[];
  /** State objects and locks the listing found. */
  stateObjects: number;
  locks: number;
  /** Keys the registry or `--key` named that have no state object (never applied, or mistyped). */
  missingStateKeys: string[];
  /** Set when the preflight failed: nothing else was read, and the runs hold its one finding. */
  preflight?: ReadFailure;
}

/**
 * The CheckBackend stage for one bucket: a preflight, then the bucket rules on its settings and the
 * state rules on the recent versions of the state objects the run names. Only reads. A failed
 * preflight is the run's one finding (`backend.preflight`, in the bucket scope) and no rule runs;
 * a later failed read is a `scan-failed` finding in the scope it concerns, naming the rules it left
 * unevaluated, and everything else is still checked.
 */
export async function checkBackend(
  reader: BackendReader,
  target: BackendTarget,
): Promise<BackendCheckResult> {
  const runs = createScopeRuns(target, 'backend');
  const preflight = await preflightTarget(reader, target);
  if (preflight) {
    runs.failPreflight(preflight);
    return { runs: runs.finish(), stateObjects: 0, locks: 0, missingStateKeys: [], preflight };
  }
  let discovery: Discovery;
  try {
    discovery = await discoverBackend(reader, target);
  } catch (error) {
    if (!(error instanceof BackendReadError)) throw error;
    runs.fail(undefined, error.failure);
    return { runs: runs.finish(), stateObjects: 0, locks: 0, missingStateKeys: [] };
  }

  const [settings, lockTables] = await Promise.all([
    reader.bucketSettings(target.bucket),
    readLockTables(reader, target),
  ]);
  const bucket: BucketSubject = {
    bucket: target.bucket,
    settings,
    expectKms: target.expectKms,
    stateKeys: discovery.stateKeys,
    stateObjectSizes: new Map(
      discovery.stateKeys.flatMap((key): Array<[string, number]> => {
        const listed = discovery.objects.get(key);
        return listed ? [[key, listed.size]] : [];
      }),
    ),
    lockTables,
  };
  for (const rule of BUCKET_RULES) {
    const drafts = rule
      .evaluate(bucket)
      .map((violation) => ruleDraft(rule, violation, target.bucketPlacement));
    runs.add(target.bucketPlacement, drafts);
  }
  for (const [name, observed] of Object.entries(settings) as Array<[BucketSettingName, Observed<unknown>]>) {
    if (!observed.ok) runs.fail(target.bucketPlacement, observed.failure, rulesReading(name));
  }
  // The lock table rule still reports a configured table it could not scan (without digest counts).
  for (const { items } of lockTables) if (!items.ok) runs.fail(target.bucketPlacement, items.failure);

  const missingStateKeys: string[] = [];
  const aclsInEffect = objectAclsInEffect(settings);
  const keys = target.contentKeys.filter((key) => inPrefix(target, key));
  await mapConcurrently(keys, STATE_READ_CONCURRENCY, async (key) => {
    const { placement, expectKms } = stateOwnerOf(target, key);
    const listed = discovery.objects.has(key);
    try {
      // Not listed: never written, or deleted (a delete marker on top of its versions).
      const history = await readStateHistory(reader, target.bucket, key, listed);
      if (history === undefined) {
        missingStateKeys.push(key);
        return;
      }
      const subject: StateSubject = { ...history, expectKms, ...bucketKmsKey(settings) };
      // A failed ACL read leaves the ACL rule unevaluated, not the rules of what was read.
      const aclFailure = aclsInEffect ? await readPublicGrants(reader, subject) : undefined;
      if (aclFailure) runs.fail(placement, aclFailure, ACL_RULE_IDS);
      for (const rule of STATE_RULES)
        runs.add(
          placement,
          rule.evaluate(subject).map((violation) => ruleDraft(rule, violation, placement)),
        );
    } catch (error) {
      if (!(error instanceof BackendReadError)) throw error;
      runs.fail(placement, withBucketKmsKey(error.failure, settings), STATE_RULE_IDS);
    }
  });
  return {
    runs: runs.finish(),
    stateObjects: discovery.stateKeys.length,
    locks: discovery.locks.length,
    missingStateKeys: missingStateKeys.sort(),
  };
}

/**
 * An object read that failed in a bucket whose default encryption is SSE-KMS carries the bucket's
 * key: S3 answers a role that may not use the key with the AccessDenied of a missing s3:GetObject,
 * and the finding must name the key to allow kms:Decrypt on.
 */
function withBucketKmsKey(failure: ReadFailure, settings: BucketSettings): ReadFailure {
  const encryption = readable(settings.encryption);
  if (!encryption?.algorithm.startsWith('aws:kms')) return failure;
  return { ...failure, kmsKeyId: encryption.kmsKeyId ?? '' };
}

/** The key of the bucket's default SSE-KMS encryption, when one is named (not aws/s3's). */
function bucketKmsKey(settings: BucketSettings): { bucketKmsKeyId?: string } {
  const encryption = readable(settings.encryption);
  return encryption?.algorithm.startsWith('aws:kms') && encryption.kmsKeyId
    ? { bucketKmsKeyId: encryption.kmsKeyId }
    : {};
}

/** The rules that need a setting: what a failed read of it leaves unevaluated. */
function rulesReading(setting: BucketSettingName): string[] {
  return [...BUCKET_RULES, ...STATE_RULES]
    .filter((rule) => rule.reads?.includes(setting))
    .map((rule) => rule.id);
}

/** The state rules judging object ACLs, which a failed ACL read leaves unevaluated. */
const ACL_RULE_IDS = STATE_RULES.filter((rule) => rule.reads?.includes('objectOwnership')).map(
  (rule) => rule.id,
);

/**
 * Whether an object ACL can make a state public: the bucket's object ownership is read and is not
 * BucketOwnerEnforced (which disables ACLs), and its public access block is read and does not ignore
 * public ACLs. Most buckets made since April 2023 have ACLs disabled: their states' ACLs are not read.
 * When either setting could not be read, its failure already names the ACL rule as not evaluated.
 */
function objectAclsInEffect(settings: BucketSettings): boolean {
  const { objectOwnership, publicAccessBlock } = settings;
  return (
    objectOwnership.ok &&
    objectOwnership.value !== 'BucketOwnerEnforced' &&
    publicAccessBlock.ok &&
    publicAccessBlock.value?.ignorePublicAcls !== true
  );
}

/**
 * The public grants of each version read of a state, onto its facts. A delete marker has no ACL, and
 * an archived version is served to no one, whatever its ACL (moto refuses its ACL too).
 * Returns the failure of a read that failed; the versions before it keep what was read.
 */
async function readPublicGrants(
  reader: BackendReader,
  subject: StateSubject,
): Promise<ReadFailure | undefined> {
  for (const version of subject.versions) {
    if (version.deleted || version.archived !== undefined) continue;
    try {
      const grants = await reader.objectPublicGrants(subject.bucket, subject.key, version.versionId);
      if (grants !== undefined && grants.length > 0) version.publicGrants = grants;
    } catch (error) {
      if (error instanceof BackendReadError) return error.failure;
      throw error;
    }
  }
  return undefined;
}

/**
 * The first read of a state version: Terraform's header (version, terraform_version, serial,
 * lineage) is in its first few hundred bytes, and whole states of hundreds of MiB exist.
 */
export const STATE_HEAD_BYTES = 64 * 1024;
/** The end of a current state read in part, to see that it is whole. */
const STATE_TAIL_BYTES = 64;
/** The one further read when the header is not in the first bytes (members in another order). */
export const STATE_HEAD_MAX_BYTES = 4 * 1024 * 1024;

/** A state whose versions could not be read is checked by none of the state rules. */
const STATE_RULE_IDS = STATE_RULES.map((rule) => rule.id);

/**
 * The recent versions of one state object, newest first, each reduced to its header right after
 * its first bytes are read (state holds secrets: the text goes no further than the parser). Memory
 * is bounded by STATE_HEAD_MAX_BYTES per read, whatever the size of the state.
 */
async function readStateHistory(
  reader: BackendReader,
  bucket: string,
  key: string,
  listed: boolean,
): Promise<StateSubject | undefined> {
  const refs = await reader.recentVersions(bucket, key, RECENT_STATE_VERSIONS);
  const versions = refs.filter((ref) => !ref.deleteMarker).slice(0, RECENT_STATE_VERSIONS);
  // `terraform workspace delete` deletes the state object; `workspace new` of the name writes another.
  const recreated = new Set(
    refs
      .filter((ref, index) => !ref.deleteMarker && refs[index + 1]?.deleteMarker)
      .map((ref) => ref.versionId),
  );
  const facts: StateVersionFacts[] = [];
  if (!listed) {
    // A delete marker on top: the state was deleted, and its earlier versions can be restored.
    const latest = refs[0];
    if (latest?.deleteMarker !== true || versions.length === 0) return undefined;
    facts.push({
      versionId: latest.versionId,
      ...(latest.lastModified ? { lastModified: latest.lastModified.toISOString() } : {}),
      deleted: true,
      unreadable: `the current version is a delete marker: the state object was deleted${latest.lastModified ? ` at ${latest.lastModified.toISOString()}` : ''}, and Terraform now sees no state at all`,
    });
  }
  const reads: Array<{ versionId?: string; lastModified?: Date }> = versions.length > 0 ? versions : [{}];
  for (const [index, version] of reads.entries()) {
    const fact = await readStateVersion(reader, bucket, key, version.versionId, index === 0 && listed);
    if (fact === undefined) continue;
    if (version.versionId !== undefined) fact.versionId = version.versionId;
    if (version.versionId !== undefined && recreated.has(version.versionId)) fact.recreated = true;
    if (version.lastModified !== undefined) fact.lastModified = version.lastModified.toISOString();
    facts.push(fact);
  }
  return { bucket, key, versions: facts };
}

async function readStateVersion(
  reader: BackendReader,
  bucket: string,
  key: string,
  versionId: string | undefined,
  current: boolean,
): Promise<StateVersionFacts | undefined> {
  let parsed: ParsedStatePrefix | undefined;
  let whole = false;
  let encryption: StateVersionFacts['serverSideEncryption'];
  for (const bytes of [STATE_HEAD_BYTES, STATE_HEAD_MAX_BYTES]) {
    let start: ObjectStart | undefined;
    try {
      start = await reader.readObjectStart(bucket, key, versionId, bytes);
    } catch (error) {
      const archived = archivedVersion(error, current);
      if (archived) return archived;
      throw error;
    }
    if (start === undefined) return undefined;
    encryption ??= {
      ...(start.encryption ? { algorithm: start.encryption } : {}),
      ...(start.kmsKeyId ? { kmsKeyId: start.kmsKeyId } : {}),
    };
    parsed = parseStatePrefix(start.text, start.totalBytes, start.complete);
    whole = start.complete;
    if (!('incomplete' in parsed) || start.complete) break;
  }
  if (parsed === undefined) return undefined;
  const facts = await headerFacts(reader, { bucket, key, versionId, current, whole }, parsed);
  if (encryption) facts.serverSideEncryption = encryption;
  return facts;
}

/** What the first bytes of a version say, and for a current state read in part, whether it ends. */
async function headerFacts(
  reader: BackendReader,
  read: { bucket: string; key: string; versionId: string | undefined; current: boolean; whole: boolean },
  parsed: ParsedStatePrefix,
): Promise<StateVersionFacts> {
  const { bucket, key, versionId, current, whole } = read;
  if ('incomplete' in parsed) return { headerUnknown: parsed.reason };
  if ('legacy' in parsed) return { headerUnknown: parsed.reason, legacyFormat: true };
  if (!parsed.ok) return { unreadable: parsed.reason };
  if (!('header' in parsed)) return { encrypted: true };
  // A current state read in part: its last bytes show a write cut short (Terraform ends it with
  // `}` and a newline), which a whole parse would have caught. A cut that happens to fall right
  // after a `}` is not seen.
  if (current && !whole) {
    const end = await reader.readObjectEnd(bucket, key, versionId, STATE_TAIL_BYTES);
    if (end !== undefined && !/\}\s*$/.test(end))
      return {
        unreadable: 'the state does not end with the closing } of its JSON object: a write cut short',
      };
  }
  return { header: parsed.header };
}

/**
 * A version S3 will not serve until it is restored (403 InvalidObjectState: GLACIER, DEEP_ARCHIVE,
 * an Intelligent-Tiering archive tier). Older versions moved there by a noncurrent-version
 * transition (a usual way to keep history cheaply) are history Terraform never reads: they are
 * passed over like unreadable ones, and the versions around them still compared; they failed the
 * whole state check. A current version there is state Terraform cannot read: state.unreadable.
 */
function archivedVersion(error: unknown, current: boolean): StateVersionFacts | undefined {
  if (!(error instanceof BackendReadError) || error.failure.code !== 'InvalidObjectState') return undefined;
  const storageClass = error.failure.storageClass ?? 'an archive storage class';
  return {
    archived: storageClass,
    unreadable: `the ${current ? 'current ' : ''}version is archived in ${storageClass}: S3 serves it to no one, Terraform included, until it is restored`,
  };
}

async function readLockTables(reader: BackendReader, target: BackendTarget): Promise<LockTableFacts[]> {
  return Promise.all(
    target.lockTables.map(async ({ table, configuredBy }): Promise<LockTableFacts> => {
      let items: LockTableFacts['items'];
      try {
        const classified = (await reader.lockTableItems(table, target.bucket)).flatMap(
          (item) => classifyTableItem(target.bucket, item) ?? [],
        );
        const keysOf = (kind: 'lock' | 'digest') =>
          classified
            .filter((item) => item.kind === kind)
            .map((item) => item.stateKey)
            .sort();
        items = ok({ lockedStateKeys: keysOf('lock'), digestStateKeys: keysOf('digest') });
      } catch (error) {
        if (!(error instanceof BackendReadError)) throw error;
        items = { ok: false, failure: error.failure };
      }
      return { table, configuredBy, items };
    }),
  );
}

function ok<T>(value: T): Observed<T> {
  return { ok: true, value };
}
