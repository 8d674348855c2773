import {
  canonicalJson,
  containsCredential,
  type SensitiveHasher,
  secretCommandMembers,
} from '../redaction/secrets.js';
import { formatPath } from './attribute-path.js';
import {
  type IamKeyCache,
  iamKey,
  isIamPolicyDocument,
  isPrincipalKey,
  isPublicAllowStatement,
  jsonDocumentsEquivalent,
  newIamKeyCache,
  parseJsonDocument,
} from './json-document.js';
import {
  asJson,
  childMask,
  deepEqual,
  isEmptyValue,
  isNullVersusEmpty,
  isPlainObject,
} from './json-values.js';
import { type CompactAttributeChange, type PathSegment, UNKNOWN_VALUE } from './plan-model.js';
import {
  hashSide,
  hasSensitiveContent,
  isPairValueKey,
  isSecretNamedPair,
  isSecretOptionList,
  type SensitiveKeyTest,
} from './sensitivity.js';
import { opensEntryToTheWorld } from './world-open-entry.js';

/**
 * Attribute-level diff of one plan change (`before` → `after`), with redaction applied as the changes
 * are produced so plaintext secrets never leave this module.
 *
 * Objects are diffed by key. Lists first match deep-equal elements (Terraform serialises sets as
 * lists, so one new element shifts the rest), then pair the leftovers in order; an element on one side
 * only is one change holding the whole element. Strings holding JSON documents are diffed inside the
 * document (`policy.Statement[0].Action`), and inside IAM policy documents the way IAM reads them (see
 * diffJsonStrings). Masks (`before_sensitive`, `after_sensitive`,
 * `after_unknown`) are walked alongside the values, never materialised per path.
 */

export interface ValueMasks {
  beforeSensitive?: unknown;
  afterSensitive?: unknown;
  afterUnknown?: unknown;
}

export interface DiffOptions {
  hashSensitive: SensitiveHasher;
  isSensitiveKey: SensitiveKeyTest;
  /** Top-level attributes that are secrets for this resource type (SecureString `value`...). */
  secretAttributes?: ReadonlySet<string> | undefined;
  /** The whole value is sensitive (an output named `db_password`). */
  sensitiveRoot?: boolean;
}

interface DiffState {
  readonly options: DiffOptions;
  readonly path: PathSegment[];
  readonly out: CompactAttributeChange[];
  /**
   * Inside two IAM policy documents, the path length at the documents' root: values IAM reads the
   * same are no change (iamKey). Undefined elsewhere.
   */
  iam: number | undefined;
  /** The keys of the IAM documents being diffed, each computed once (json-document.ts). */
  iamKeys: IamKeyCache | undefined;
}

/** Lists whose unmatched middle is larger than this (before × after) are matched by canonical key. */
const QUADRATIC_MATCH_LIMIT = 1024;

export function diffAttributes(
  before: unknown,
  after: unknown,
  masks: ValueMasks,
  options: DiffOptions,
): CompactAttributeChange[] {
  const state: DiffState = { options, path: [], out: [], iam: undefined, iamKeys: undefined };
  diffNode(
    state,
    before ?? null,
    after ?? null,
    masks.beforeSensitive,
    masks.afterSensitive,
    masks.afterUnknown,
    options.sensitiveRoot === true,
  );
  // A rule resource (aws_security_group_rule, aws_network_acl_rule) is an entry of its own.
  noteEntry(state, 0, before, after);
  return state.out;
}

/**
 * The attributes a create sets, one change per top-level attribute with a value. Unknown and empty
 * values are left out: they say nothing a reviewer needs, and they are not changes of anything.
 */
export function createdAttributes(
  after: unknown,
  masks: ValueMasks,
  options: DiffOptions,
): CompactAttributeChange[] {
  if (!isPlainObject(after)) return diffAttributes(null, after, masks, options);
  const state: DiffState = { options, path: [], out: [], iam: undefined, iamKeys: undefined };
  for (const key in after) {
    const value = after[key];
    if (value === null || isEmptyValue(value) || childMask(masks.afterUnknown, key) === true) continue;
    state.path.push(key);
    const sensitive =
      options.sensitiveRoot === true ||
      masks.afterSensitive === true ||
      options.secretAttributes?.has(key) === true ||
      options.isSensitiveKey(key);
    emitChange(state, null, value, sensitive, undefined, childMask(masks.afterSensitive, key));
    state.path.pop();
  }
  return state.out;
}

function diffNode(
  state: DiffState,
  before: unknown,
  after: unknown,
  beforeMask: unknown,
  afterMask: unknown,
  unknownMask: unknown,
  sensitive: boolean,
): void {
  if (unknownMask === true) {
    emitChange(state, before, UNKNOWN_VALUE, sensitive || beforeMask === true, beforeMask, undefined);
    return;
  }
  if (before === after) return;
  if (state.iam !== undefined) {
    if (iamKeyHere(state, before) === iamKeyHere(state, after)) return;
    // A single value is a one-element list to IAM: `"s3:GetObject"` → `["s3:GetObject", "s3:PutObject"]`
    // adds one action (Action[1]), it does not replace a string by a list.
    if (before !== null && after !== null && Array.isArray(before) !== Array.isArray(after)) {
      const list = (value: unknown) => (Array.isArray(value) ? value : [value]);
      diffLists(state, list(before), list(after), beforeMask, afterMask, unknownMask);
      return;
    }
  }
  if (sensitive || beforeMask === true || afterMask === true) {
    if (!deepEqual(before, after)) emitChange(state, before, after, true, undefined, undefined);
    return;
  }
  if (typeof before === 'object' && typeof after === 'object' && before !== null && after !== null) {
    const beforeIsList = Array.isArray(before);
    if (beforeIsList && Array.isArray(after)) {
      // `["--token", "x"]`: the value element alone looks like nothing; the list is one secret change.
      const { isSensitiveKey } = state.options;
      if (isSecretOptionList(before, isSensitiveKey) || isSecretOptionList(after, isSensitiveKey)) {
        if (!deepEqual(before, after)) emitChange(state, before, after, true, undefined, undefined);
        return;
      }
      diffLists(state, before, after, beforeMask, afterMask, unknownMask);
      return;
    }
    if (!beforeIsList && !Array.isArray(after)) {
      const first = state.out.length;
      diffObjects(
        state,
        before as Record<string, unknown>,
        after as Record<string, unknown>,
        beforeMask,
        afterMask,
        unknownMask,
      );
      // `"Statement": {…}`, one statement written without a list.
      if (isStatementPath(state, state.path.length)) noteStatement(state, first, before, after);
      return;
    }
  } else if (
    typeof before === 'string' &&
    typeof after === 'string' &&
    diffJsonStrings(state, before, after)
  ) {
    return;
  }
  emitChange(state, before, after, false, beforeMask, afterMask);
}

function diffObjects(
  state: DiffState,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  beforeMask: unknown,
  afterMask: unknown,
  unknownMask: unknown,
): void {
  const { isSensitiveKey } = state.options;
  // `{name: "DB_PASSWORD", value: …}`: the value member is a secret (CodeBuild, Batch, ECS env).
  const secretPair = isSecretNamedPair(before, isSensitiveKey) || isSecretNamedPair(after, isSensitiveKey);
  // `command = ["mysql"]` with `args = ["-pS3cret"]`: the command line is secret, not either list.
  const secretCommand = secretCommandMembers(before, after);
  for (const key in before) {
    const b = before[key] ?? null;
    const a = Object.hasOwn(after, key) ? (after[key] ?? null) : null;
    diffMember(state, key, b, a, beforeMask, afterMask, unknownMask, secretPair, secretCommand);
  }
  for (const key in after) {
    if (Object.hasOwn(before, key)) continue;
    diffMember(
      state,
      key,
      null,
      after[key] ?? null,
      beforeMask,
      afterMask,
      unknownMask,
      secretPair,
      secretCommand,
    );
  }
}

function diffMember(
  state: DiffState,
  key: string,
  before: unknown,
  after: unknown,
  beforeMask: unknown,
  afterMask: unknown,
  unknownMask: unknown,
  secretPair: boolean,
  secretCommand: ReadonlySet<string>,
): void {
  const childUnknown = childMask(unknownMask, key);
  if (before === after && childUnknown !== true) return;
  // Most attributes of a drifted resource did not change: equal values with nothing unknown below
  // produce no change, and deepEqual walks them without the path and masks the diff keeps.
  if (typeof before === 'object' && noUnknowns(childUnknown) && deepEqual(before, after)) return;
  // Secret-looking names are checked when a change is emitted (any segment of its path), which
  // keeps this hot loop free of name tests; resource-type secrets are known only at the top level.
  const sensitive =
    (secretPair && isPairValueKey(key)) ||
    secretCommand.has(key) ||
    (state.path.length === 0 && state.options.secretAttributes?.has(key) === true);
  state.path.push(key);
  diffNode(
    state,
    before,
    after,
    childMask(beforeMask, key),
    childMask(afterMask, key),
    childUnknown,
    sensitive,
  );
  state.path.pop();
}

/** A mask of after_unknown that marks nothing: absent, false, or an empty object or list. */
function noUnknowns(mask: unknown): boolean {
  if (mask === undefined || mask === null || mask === false) return true;
  if (typeof mask !== 'object') return false;
  for (const _key in mask) return false;
  return true;
}

function diffLists(
  state: DiffState,
  before: readonly unknown[],
  after: readonly unknown[],
  beforeMask: unknown,
  afterMask: unknown,
  unknownMask: unknown,
): void {
  let start = 0;
  let beforeEnd = before.length;
  let afterEnd = after.length;
  // In IAM documents, elements are the same when IAM reads them so (keys computed once per element).
  const beforeKeys = state.iam === undefined ? undefined : before.map((value) => iamKeyHere(state, value));
  const afterKeys = state.iam === undefined ? undefined : after.map((value) => iamKeyHere(state, value));
  const same = (i: number, j: number) =>
    beforeKeys && afterKeys ? beforeKeys[i] === afterKeys[j] : deepEqual(before[i], after[j]);
  // Unchanged prefix and suffix first: the common case, and it keeps the matching below small.
  while (
    start < beforeEnd &&
    start < afterEnd &&
    childMask(unknownMask, start) !== true &&
    same(start, start)
  ) {
    start++;
  }
  while (
    beforeEnd > start &&
    afterEnd > start &&
    childMask(unknownMask, afterEnd - 1) !== true &&
    same(beforeEnd - 1, afterEnd - 1)
  ) {
    beforeEnd--;
    afterEnd--;
  }
  if (start === beforeEnd && start === afterEnd) return;

  const { unmatchedBefore, unmatchedAfter } = matchEqualElements(
    before,
    after,
    start,
    beforeEnd,
    afterEnd,
    unknownMask,
    beforeKeys && afterKeys ? { beforeKeys, afterKeys } : undefined,
  );
  const partners = pairLeftovers(state, before, after, unmatchedBefore, unmatchedAfter);
  const statementList = isStatementPath(state, state.path.length);
  for (let k = 0; k < unmatchedBefore.length; k++) {
    const beforeIndex = unmatchedBefore[k]!;
    const afterIndex = partners[k]!;
    state.path.push(beforeIndex);
    const first = state.out.length;
    const beforeElement = before[beforeIndex] ?? null;
    const afterElement = afterIndex < 0 ? null : (after[afterIndex] ?? null);
    diffNode(
      state,
      beforeElement,
      afterElement,
      childMask(beforeMask, beforeIndex),
      afterIndex < 0 ? undefined : childMask(afterMask, afterIndex),
      afterIndex < 0 ? undefined : childMask(unknownMask, afterIndex),
      false,
    );
    if (statementList) noteStatement(state, first, beforeElement, afterElement);
    else if (afterIndex >= 0) noteEntry(state, first, beforeElement, afterElement);
    state.path.pop();
  }
  const paired = new Set(partners);
  for (const afterIndex of unmatchedAfter) {
    if (paired.has(afterIndex)) continue;
    state.path.push(afterIndex);
    diffNode(
      state,
      null,
      after[afterIndex] ?? null,
      undefined,
      childMask(afterMask, afterIndex),
      childMask(unknownMask, afterIndex),
      false,
    );
    state.path.pop();
  }
}

/**
 * The after-side partner of each leftover before-side element (-1: removed). Objects pair with the
 * object that shares the most members with them, most shared first: Terraform serialises a set of
 * blocks (security group rules, statements) in its own order, and when two rules changed, pairing
 * by position made "the description of the port 80 rule changed" read as "the https rule's ports
 * changed from 443 to 80". Whatever shares nothing pairs in order, as before; longer leftovers than
 * the quadratic limit pair in order too.
 */
function pairLeftovers(
  state: DiffState,
  before: readonly unknown[],
  after: readonly unknown[],
  unmatchedBefore: readonly number[],
  unmatchedAfter: readonly number[],
): number[] {
  const partners = unmatchedBefore.map(() => -1);
  const taken = new Set<number>();
  if (unmatchedBefore.length * unmatchedAfter.length <= QUADRATIC_MATCH_LIMIT) {
    const candidates: { k: number; afterIndex: number; shared: number }[] = [];
    unmatchedBefore.forEach((beforeIndex, k) => {
      for (const afterIndex of unmatchedAfter) {
        const shared = sharedMembers(state, before[beforeIndex], after[afterIndex]);
        if (shared > 0) candidates.push({ k, afterIndex, shared });
      }
    });
    // Most shared first; ties in list order (the sort is stable).
    candidates.sort((a, b) => b.shared - a.shared);
    for (const { k, afterIndex } of candidates) {
      if (partners[k] !== -1 || taken.has(afterIndex)) continue;
      partners[k] = afterIndex;
      taken.add(afterIndex);
    }
  }
  const rest = unmatchedAfter.filter((afterIndex) => !taken.has(afterIndex));
  let next = 0;
  for (let k = 0; k < partners.length && next < rest.length; k++) {
    if (partners[k] === -1) partners[k] = rest[next++]!;
  }
  return partners;
}

/** How many members two objects have equal (IAM's equality inside policy documents); 0 for anything else. */
function sharedMembers(state: DiffState, before: unknown, after: unknown): number {
  if (!isPlainObject(before) || !isPlainObject(after)) return 0;
  let shared = 0;
  for (const key in before) {
    if (!Object.hasOwn(after, key)) continue;
    if (
      state.iam === undefined
        ? deepEqual(before[key], after[key])
        : iamKey(before[key], inPrincipal(state) || isPrincipalKey(key), state.iamKeys) ===
          iamKey(after[key], inPrincipal(state) || isPrincipalKey(key), state.iamKeys)
    )
      shared++;
  }
  return shared;
}

/**
 * Pairs deep-equal elements of the unmatched middle (elements of equal keys, when given: IAM
 * documents); unknown (after_unknown) elements never match.
 */
function matchEqualElements(
  before: readonly unknown[],
  after: readonly unknown[],
  start: number,
  beforeEnd: number,
  afterEnd: number,
  unknownMask: unknown,
  keys?: { beforeKeys: readonly string[]; afterKeys: readonly string[] },
): { unmatchedBefore: number[]; unmatchedAfter: number[] } {
  const matched = new Uint8Array(afterEnd - start);
  for (let j = start; j < afterEnd; j++) if (childMask(unknownMask, j) === true) matched[j - start] = 2;
  const unmatchedBefore: number[] = [];
  const keyed =
    keys || (beforeEnd - start) * (afterEnd - start) > QUADRATIC_MATCH_LIMIT
      ? keyedMatcher((j) => keys?.afterKeys[j] ?? canonicalJson(after[j]), start, afterEnd, matched)
      : undefined;
  for (let i = start; i < beforeEnd; i++) {
    let found = -1;
    if (keyed) found = keyed(keys?.beforeKeys[i] ?? canonicalJson(before[i]));
    else {
      for (let j = start; j < afterEnd; j++) {
        if (matched[j - start] === 0 && deepEqual(before[i], after[j])) {
          found = j;
          break;
        }
      }
    }
    if (found >= 0) matched[found - start] = 1;
    else unmatchedBefore.push(i);
  }
  const unmatchedAfter: number[] = [];
  for (let j = start; j < afterEnd; j++) if (matched[j - start] !== 1) unmatchedAfter.push(j);
  return { unmatchedBefore, unmatchedAfter };
}

/** For long lists: index the after side by key (canonical JSON), each index handed out once. */
function keyedMatcher(
  afterKey: (index: number) => string,
  start: number,
  afterEnd: number,
  matched: Uint8Array,
): (key: string) => number {
  const byKey = new Map<string, number[]>();
  for (let j = start; j < afterEnd; j++) {
    if (matched[j - start] !== 0) continue;
    const key = afterKey(j);
    const indexes = byKey.get(key);
    if (indexes) indexes.push(j);
    else byKey.set(key, [j]);
  }
  return (key) => byKey.get(key)?.shift() ?? -1;
}

/**
 * Both sides hold JSON documents: equivalent documents stay one change with the original strings
 * (the `equivalent-json` noise rule decides whether to report it); different documents are diffed
 * inside, with paths continuing into the document. Two IAM policy documents are diffed the way IAM
 * reads them: AWS hands a changed policy back re-serialised (one-element lists unwrapped, statements
 * in its own order), and compared as plain JSON every statement it rewrote would pair with another
 * statement, so a public statement added first read as edits of the statement it displaced.
 */
function diffJsonStrings(state: DiffState, before: string, after: string): boolean {
  const beforeDocument = parseJsonDocument(before);
  if (beforeDocument === undefined) return false;
  const afterDocument = parseJsonDocument(after);
  if (afterDocument === undefined) return false;
  // Keyed once here and reused by the diff inside (IAM documents only; dropped with the documents).
  const keys = newIamKeyCache();
  if (jsonDocumentsEquivalent(beforeDocument, afterDocument, keys)) {
    const { isSensitiveKey } = state.options;
    const redact =
      hasSensitiveContent(beforeDocument, undefined, isSensitiveKey) ||
      hasSensitiveContent(afterDocument, undefined, isSensitiveKey);
    const change = pushChange(state, before, after, redact || pathIsSensitive(state));
    EQUIVALENT_JSON_CHANGES.add(change);
  } else {
    const { iam: outer, iamKeys: outerKeys } = state;
    const iam = isIamPolicyDocument(beforeDocument) && isIamPolicyDocument(afterDocument);
    state.iam = iam ? state.path.length : undefined;
    state.iamKeys = iam ? keys : undefined;
    diffNode(state, beforeDocument, afterDocument, undefined, undefined, undefined, false);
    state.iam = outer;
    state.iamKeys = outerKeys;
  }
  return true;
}

/**
 * Whether the first `length` segments of the current path end at the `Statement` member of an IAM
 * policy document's root.
 */
function isStatementPath(state: DiffState, length: number): boolean {
  return state.iam !== undefined && length === state.iam + 1 && state.path[state.iam] === 'Statement';
}

/**
 * Marks the changes emitted since `first`, each inside one statement that was edited in place (not
 * added, removed or redacted), when the edit made that statement allow everyone and it did not before
 * (CompactAttributeChange.opensStatementToEveryone): only the verdict is kept, never the statement.
 */
function noteStatement(state: DiffState, first: number, before: unknown, after: unknown): void {
  if (!isPlainObject(before) || !isPlainObject(after)) return;
  if (isPublicAllowStatement(before) || !isPublicAllowStatement(after)) return;
  markSince(state, first, 'opensStatementToEveryone');
}

/**
 * Marks the changes emitted since `first`, each inside one list element edited in place, when the
 * edit made that element a rule entry admitting from anywhere what it did not before
 * (CompactAttributeChange.opensEntryToTheWorld).
 */
function noteEntry(state: DiffState, first: number, before: unknown, after: unknown): void {
  if (state.out.length === first || !opensEntryToTheWorld(before, after)) return;
  markSince(state, first, 'opensEntryToTheWorld');
}

/**
 * Sets a verdict on the changes emitted since `first` inside the node at the current path (deeper
 * than it, not redacted): the verdict is kept, never the node it was reached on.
 */
function markSince(
  state: DiffState,
  first: number,
  verdict: 'opensStatementToEveryone' | 'opensEntryToTheWorld',
): void {
  const depth = state.path.length;
  for (let index = first; index < state.out.length; index++) {
    const change = state.out[index]!;
    if (!change.sensitive && change.segments.length > depth) change[verdict] = true;
  }
}

/** The IAM key of a value at the current path (a principal's account reads as its id). */
function iamKeyHere(state: DiffState, value: unknown): string {
  return iamKey(value, inPrincipal(state), state.iamKeys);
}

/** Whether the current path is under a Principal or NotPrincipal of the IAM document. */
function inPrincipal(state: DiffState): boolean {
  for (let index = state.iam ?? state.path.length; index < state.path.length; index++) {
    const segment = state.path[index];
    if (typeof segment === 'string' && isPrincipalKey(segment)) return true;
  }
  return false;
}

/**
 * Changes known, when they were produced, to hold equivalent JSON documents: the `equivalent-json`
 * noise rule consults this before re-parsing (a cache of a pure decision, so it never changes a result).
 */
export const EQUIVALENT_JSON_CHANGES = new WeakSet<CompactAttributeChange>();

function emitChange(
  state: DiffState,
  before: unknown,
  after: unknown,
  sensitive: boolean,
  beforeMask: unknown,
  afterMask: unknown,
): void {
  const { isSensitiveKey } = state.options;
  const redact =
    sensitive ||
    pathIsSensitive(state) ||
    hasSensitiveContent(before, beforeMask, isSensitiveKey) ||
    hasSensitiveContent(after, afterMask, isSensitiveKey);
  pushChange(state, before, after, redact);
}

/** Whether a segment of the current path names a secret (`db[0].master_password`), via the per-plan memo. */
function pathIsSensitive(state: DiffState): boolean {
  const { isSensitiveKey } = state.options;
  for (const segment of state.path) if (typeof segment === 'string' && isSensitiveKey(segment)) return true;
  return false;
}

function pushChange(
  state: DiffState,
  before: unknown,
  after: unknown,
  redact: boolean,
): CompactAttributeChange {
  const { hashSensitive } = state.options;
  // A map key can itself be a credential (`tags["https://user:pw@host"]`, a token as a key): paths
  // are printed and stored like values, so such a key is hashed and what it holds is hashed too.
  const segments = state.path.slice();
  let secretKey = false;
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index];
    if (typeof segment === 'string' && containsCredential(segment)) {
      segments[index] = hashSensitive(segment);
      secretKey = true;
    }
  }
  const hashed = redact || secretKey;
  const change: CompactAttributeChange = {
    path: formatPath(segments),
    segments,
    before: hashed ? hashSide(before, hashSensitive) : asJson(before),
    after: hashed ? hashSide(after, hashSensitive) : asJson(after),
    sensitive: hashed,
  };
  // Hashing hides that one side was nothing and the other empty: the verdict is kept, not the values.
  if (hashed && isNullVersusEmpty(before, after)) change.nullVersusEmpty = true;
  state.out.push(change);
  return change;
}
