import { containsCredential, redactText, type SensitiveHasher } from '../redaction/secrets.js';
import { createdAttributes, diffAttributes, type ValueMasks } from './attribute-diff.js';
import { formatPath } from './attribute-path.js';
import { changedElementKeys, isCollectionAttribute } from './companion-elements.js';
import { keptIdentityValue } from './companions.js';
import { childMask, isPlainObject, MAX_VALUE_DEPTH, nestingExceeds, nonEmptyString } from './json-values.js';
import { describeJson, PlanFormatError, shownAddress, shownToken } from './plan-error.js';
import {
  type CompactChange,
  type CompactOutputChange,
  IDENTITY_ATTRIBUTES,
  type IdentityAttribute,
  type PathSegment,
  type ResourceMode,
} from './plan-model.js';
import {
  holdsSecrets,
  MASKLESS_REDACTION_NOTE,
  type SensitiveKeyTest,
  secretAttributesOf,
  sensitiveKeyTestFor,
} from './sensitivity.js';

/**
 * Compacts one `resource_drift` / `resource_changes` entry or one `output_changes` member: keeps the
 * identity of the resource and the redacted attribute changes, drops everything else (full values,
 * masks, planned values) so memory stays proportional to what changed.
 */

export interface CompactionTools {
  hashSensitive: SensitiveHasher;
  isSensitiveKey: SensitiveKeyTest;
  /** One string object per distinct type/provider/module: less memory, and hashed once for lookups. */
  intern: (text: string) => string;
  /** The plan's format_version once read (Terraform writes it first); 0.x plans have no sensitivity masks. */
  formatVersion?: string;
}

export function compactResourceEntry(
  entry: unknown,
  section: string,
  index: number,
  tools: CompactionTools,
): CompactChange | undefined {
  if (!isPlainObject(entry)) throw invalidPlan(`${section}[${index}] is not an object`);
  const address = entry.address;
  if (typeof address !== 'string' || address === '') throw invalidPlan(`${section}[${index}] has no address`);
  const change = entry.change;
  if (!isPlainObject(change))
    throw invalidPlan(`${section}[${index}] (${shownAddress(address)}) has no change`);
  if (!isStringArray(change.actions))
    throw invalidPlan(`${section}[${index}] (${shownAddress(address)}) has no actions`);
  const actions = canonicalActions(change.actions, `${section}[${index}] (${shownAddress(address)})`);

  const mode = resourceMode(entry.mode, address);
  const previousAddress = optionalAddress(nonEmptyString(entry.previous_address));
  // Data sources are read, never drift; plain no-ops say nothing unless they record a move or an
  // import (a no-op import still adopts an object at the next apply).
  const imports = isPlainObject(change.importing);
  if (mode === 'data' || (isNothingToDo(actions) && previousAddress === undefined && !imports))
    return undefined;

  const where = `${section}[${index}] (${shownAddress(address)})`;
  assertNesting(change, where);
  const type = tools.intern(nonEmptyString(entry.type) ?? typeFromAddress(address));
  const before = resourceValue(change.before, `${where} change.before`);
  const after = resourceValue(change.after, `${where} change.after`);
  const masks: ValueMasks = {
    beforeSensitive: change.before_sensitive,
    afterSensitive: change.after_sensitive,
    afterUnknown: change.after_unknown,
  };
  const masksMissing =
    tools.formatVersion?.startsWith('0.') === true ||
    (!Object.hasOwn(change, 'before_sensitive') && !Object.hasOwn(change, 'after_sensitive'));
  const hashedWhole = masksMissing && holdsSecrets(type);
  const options = {
    hashSensitive: tools.hashSensitive,
    isSensitiveKey: sensitiveKeyTestFor(type, tools.isSensitiveKey),
    secretAttributes: secretAttributesOf(type, before, after),
    sensitiveRoot: hashedWhole,
  };
  const isDelete = actions.includes('delete') && !actions.includes('create');
  const isCreate = actions.length === 1 && actions[0] === 'create';
  // A deletion is described by its action, not by listing every attribute as "→ null".
  const changes = isDelete
    ? []
    : isCreate
      ? createdAttributes(after, masks, options)
      : diffAttributes(before, after, masks, options);
  for (const attributeChange of changes) {
    const top = attributeChange.segments[0];
    if (typeof top !== 'string' || !isCollectionAttribute(type, top)) continue;
    const keys = changedElementKeys(type, attributeChange, before);
    if (keys !== undefined) attributeChange.elementKeys = keys;
  }

  // The applied side names the resource as the team declared it; fall back to the planned side.
  const described = before ?? after;
  const describedMask = before === null ? masks.afterSensitive : masks.beforeSensitive;
  // Optional members are only set when present, so both reading paths serialise identically.
  const compact: CompactChange = { address: safeAddress(address), type, mode, actions, changes };
  if (previousAddress !== undefined) compact.previousAddress = previousAddress;
  const name = nonEmptyString(entry.name);
  if (name !== undefined) compact.name = name;
  const provider = nonEmptyString(entry.provider_name);
  if (provider !== undefined) compact.provider = tools.intern(provider);
  const module = optionalAddress(nonEmptyString(entry.module_address));
  if (module !== undefined) compact.module = tools.intern(module);
  const actionReason = nonEmptyString(entry.action_reason);
  if (actionReason !== undefined) compact.actionReason = tools.intern(actionReason);
  const tags = extractTags(described, describedMask, tools);
  if (tags !== undefined) compact.tags = tags;
  const replacePaths = replacePathsOf(change.replace_paths, tools.hashSensitive);
  if (replacePaths !== undefined) {
    compact.replacePaths = replacePaths.map(formatPath);
    // Kept for the plan's sensitive literals, known only once the whole plan is read (compact.ts).
    REPLACE_PATH_SEGMENTS.set(compact, replacePaths);
  }
  const identity = extractIdentity(type, described, describedMask, tools);
  if (identity !== undefined) compact.identity = identity;
  const deposed = nonEmptyString(entry.deposed);
  if (deposed !== undefined) compact.deposed = deposed;
  if (imports) compact.importing = true;
  if (hashedWhole) compact.redactionNote = MASKLESS_REDACTION_NOTE;
  return compact;
}

export function compactOutputChange(
  name: string,
  value: unknown,
  tools: CompactionTools,
): CompactOutputChange | undefined {
  if (!isPlainObject(value)) throw invalidPlan(`output_changes.${name} is not an object`);
  if (!isStringArray(value.actions)) throw invalidPlan(`output_changes.${name} has no actions`);
  const actions = canonicalActions(value.actions, `output_changes.${name}`);
  if (isNothingToDo(actions)) return undefined;
  assertNesting(value, `output_changes.${name}`);
  const changes = diffAttributes(
    value.before,
    value.after,
    {
      beforeSensitive: value.before_sensitive,
      afterSensitive: value.after_sensitive,
      afterUnknown: value.after_unknown,
    },
    { ...tools, sensitiveRoot: tools.isSensitiveKey(name) },
  );
  return {
    name,
    actions,
    changes,
    sensitive: value.before_sensitive === true || value.after_sensitive === true,
  };
}

/**
 * The actions as literals: strings from JSON.parse compare by content, literals by identity, and
 * every later step compares actions.
 */
function canonicalActions(actions: readonly string[], where: string): string[] {
  return actions.map((action) => {
    const known = KNOWN_ACTIONS.get(action);
    // The vocabulary is closed: an action we do not know would otherwise read as "nothing to do".
    if (known === undefined)
      throw invalidPlan(
        `${where} has an unknown action ${shownToken(action, /^[a-z][a-z-]{0,30}$/)} (known: ${[...KNOWN_ACTIONS.keys()].join(', ')}): written by a Terraform newer than this driftwatch?`,
      );
    return known;
  });
}

/** Terraform's plan actions (plans/action.go), ephemeral resources' open/renew/close included. */
const KNOWN_ACTIONS = new Map(
  ['no-op', 'create', 'read', 'update', 'delete', 'forget', 'open', 'renew', 'close'].map((action) => [
    action,
    action,
  ]),
);

/**
 * Every later step (the diff, redaction, noise rules, fingerprints, JSON output) walks values
 * recursively; a value nested deeper than MAX_VALUE_DEPTH fails the scan here with a reason instead
 * of overflowing the stack somewhere below.
 */
function assertNesting(value: unknown, where: string): void {
  if (nestingExceeds(value, MAX_VALUE_DEPTH))
    throw invalidPlan(`${where} nests values deeper than ${MAX_VALUE_DEPTH} levels, driftwatch's limit`);
}

/**
 * A resource's values are an object (null: absent). `"before": "x"` would otherwise be diffed as a
 * scalar, every attribute of `after` becoming one change "x → {…}"; its text is never quoted.
 */
function resourceValue(value: unknown, where: string): Record<string, unknown> | null {
  if (value === undefined || value === null) return null;
  if (isPlainObject(value)) return value;
  throw invalidPlan(`${where} is ${describeJson(value)}, expected an object or null`);
}

function isStringArray(value: unknown): value is string[] {
  if (!Array.isArray(value)) return false;
  for (const item of value) if (typeof item !== 'string') return false;
  return true;
}

function isNothingToDo(actions: readonly unknown[]): boolean {
  return actions.length === 0 || (actions.length === 1 && (actions[0] === 'no-op' || actions[0] === 'read'));
}

function resourceMode(mode: unknown, address: string): ResourceMode {
  if (mode === 'managed') return 'managed';
  if (mode === 'data') return 'data';
  // format 0.x entries always carry `mode`; this covers hand-trimmed plans.
  return /(^|\.)data\./.test(address) ? 'data' : 'managed';
}

/** `module.a.aws_s3_bucket.logs["x"]` → `aws_s3_bucket`. */
function typeFromAddress(address: string): string {
  const parts = address.replace(/\[[^\]]*\]/g, '').split('.');
  return parts.length >= 2 ? (parts[parts.length - 2] ?? address) : address;
}

/** The segments of each `replacePaths` entry of a compacted change (only set when it has some). */
export const REPLACE_PATH_SEGMENTS = new WeakMap<CompactChange, readonly PathSegment[][]>();

function replacePathsOf(value: unknown, hash: SensitiveHasher): PathSegment[][] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const paths = value
    .filter((path): path is unknown[] => Array.isArray(path))
    .map((path) =>
      path
        .filter((s): s is PathSegment => typeof s === 'string' || typeof s === 'number')
        // A map key that is a credential is hashed here as in the changes' paths (attribute-diff.ts).
        .map((s) => (typeof s === 'string' && containsCredential(s) ? hash(s) : s)),
    );
  return paths.length > 0 ? paths : undefined;
}

/** An instance key of an address: `["…"]` (its text escaped as Terraform prints strings). */
const INSTANCE_KEY = /\["((?:[^"\\]|\\.)*)"\]/g;

/**
 * Hashes every instance key of `address` that holds a secret, whole, the way a secret map key is
 * hashed in a path: `for_each = toset([nonsensitive(var.token)])` gives `x["<token>"]`, and
 * `module.m["<token>"].x` puts it in the module address too. Keys are the only place an address
 * carries data; the same key hashes the same in every address, so addresses still match each other.
 */
export function hashSecretInstanceKeys(
  address: string,
  isSecret: (text: string) => boolean,
  hash: SensitiveHasher,
): string {
  if (!address.includes('["')) return address;
  return address.replace(INSTANCE_KEY, (whole, escaped: string) => {
    const key = unescapeKey(escaped);
    return isSecret(key) || isSecret(escaped) ? `[${JSON.stringify(hash(key))}]` : whole;
  });
}

function unescapeKey(escaped: string): string {
  try {
    const key: unknown = JSON.parse(`"${escaped}"`);
    return typeof key === 'string' ? key : escaped;
  } catch {
    return escaped;
  }
}

/**
 * An instance key is data: `for_each = toset(var.webhook_urls)` puts a Slack webhook or a URL with a
 * password into the address, which is printed, stored and sent. The secret part is redacted the same
 * way in every address (prior state too), so addresses still match each other.
 */
export function safeAddress(address: string): string {
  return containsCredential(address) ? redactText(address) : address;
}

function optionalAddress(address: string | undefined): string | undefined {
  return address === undefined ? undefined : safeAddress(address);
}

function extractTags(
  values: unknown,
  mask: unknown,
  tools: CompactionTools,
): Record<string, string> | undefined {
  if (!isPlainObject(values)) return undefined;
  const tags = values.tags;
  const tagsMask = childMask(mask, 'tags');
  if (!isPlainObject(tags) || tagsMask === true || tools.isSensitiveKey('tags')) return undefined;
  const kept: Record<string, string> = {};
  let count = 0;
  for (const key in tags) {
    const value = tags[key];
    if (typeof value !== 'string' || childMask(tagsMask, key) === true) continue;
    if (tools.isSensitiveKey(key) || containsCredential(value) || containsCredential(key)) continue;
    kept[key] = value;
    count++;
  }
  return count > 0 ? kept : undefined;
}

function extractIdentity(
  type: string,
  values: unknown,
  mask: unknown,
  tools: CompactionTools,
): Partial<Record<IdentityAttribute, string>> | undefined {
  if (!isPlainObject(values)) return undefined;
  const identity: Partial<Record<IdentityAttribute, string>> = {};
  let count = 0;
  for (const key of IDENTITY_ATTRIBUTES) {
    const value = keptIdentityValue(type, key, values[key], mask, tools.hashSensitive);
    if (value === undefined) continue;
    identity[key] = value;
    count++;
  }
  return count > 0 ? identity : undefined;
}

function invalidPlan(reason: string): PlanFormatError {
  return new PlanFormatError(`invalid plan: ${reason}`);
}
