import type { BackendRule, BucketRule, LockRule, StateRule } from '../rule.js';
import { dynamodbLockingDeprecatedRule } from './dynamodb-locking-deprecated.js';
import { encryptionRule } from './encryption.js';
import { lifecycleRemovesStateRule } from './lifecycle-removes-state.js';
import { lockLiveWriterRule } from './lock-live-writer.js';
import { lockOrphanedRule } from './lock-orphaned.js';
import { lockStaleRule } from './lock-stale.js';
import { lockUnreadableRule } from './lock-unreadable.js';
import { noncurrentVersionRetentionRule } from './noncurrent-version-retention.js';
import { objectOwnershipRule } from './object-ownership.js';
import { publicAccessRule } from './public-access.js';
import { publicAccessBlockRule } from './public-access-block.js';
import { stateEncryptionRule } from './state-encryption.js';
import { stateLineageChangedRule } from './state-lineage-changed.js';
import { statePublicAclRule } from './state-public-acl.js';
import { stateSerialRegressedRule } from './state-serial-regressed.js';
import { stateUnreadableRule } from './state-unreadable.js';
import { tlsOnlyRule } from './tls-only.js';
import { versioningRule } from './versioning.js';

/** Every backend, state and lock rule, in the order findings and documentation list them. */
export const BACKEND_RULES: readonly BackendRule[] = [
  versioningRule,
  encryptionRule,
  publicAccessRule,
  publicAccessBlockRule,
  tlsOnlyRule,
  objectOwnershipRule,
  noncurrentVersionRetentionRule,
  lifecycleRemovesStateRule,
  dynamodbLockingDeprecatedRule,
  stateUnreadableRule,
  stateLineageChangedRule,
  stateSerialRegressedRule,
  stateEncryptionRule,
  statePublicAclRule,
  lockStaleRule,
  lockOrphanedRule,
  lockUnreadableRule,
  lockLiveWriterRule,
];

export const BUCKET_RULES = BACKEND_RULES.filter((rule): rule is BucketRule => rule.target === 'bucket');
export const STATE_RULES = BACKEND_RULES.filter((rule): rule is StateRule => rule.target === 'state');
export const LOCK_RULES = BACKEND_RULES.filter((rule): rule is LockRule => rule.target === 'lock');

/** The IAM read actions the scanner's role needs for the backend and lock checks. */
export function backendReadActions(): string[] {
  return [...new Set(['s3:ListBucket', ...BACKEND_RULES.flatMap((rule) => rule.iamActions)])].sort();
}
