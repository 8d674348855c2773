import {
  base64Forms,
  containsCredential,
  encodedForms,
  MIN_LITERAL_SECRET,
  percentForms,
  redactedExcerpt,
  type SensitiveHasher,
} from '../redaction/secrets.js';
import { formatPath } from './attribute-path.js';
import { companionElementKeys, companionParents } from './companion-elements.js';
import { keptIdentityValue } from './companions.js';
import { checkFormatVersion } from './format-version.js';
import { childMask, isPlainObject, MAX_VALUE_DEPTH } from './json-values.js';
import { describeJson, jsonParseReason, PlanFormatError } from './plan-error.js';
import {
  type CompactAttributeChange,
  type CompactChange,
  type CompactOutputChange,
  type CompactPlan,
  type DeferredChanges,
  type FailedCheck,
  IDENTITY_ATTRIBUTES,
  type IdentityAttribute,
  MAX_CHECK_MESSAGES,
  MAX_DEFERRED_ADDRESSES,
  type ManagedResource,
  type PathSegment,
} from './plan-model.js';
import {
  isPriorStateResourcePath,
  type JsonKind,
  type SelectDecision,
  selectPlanPath,
  wantedPlanKeys,
} from './plan-paths.js';
import {
  type CompactionTools,
  compactOutputChange,
  compactResourceEntry,
  hashSecretInstanceKeys,
  REPLACE_PATH_SEGMENTS,
  safeAddress,
} from './resource-entry.js';
import {
  createSensitiveKeyTest,
  hashSide,
  isPairValueKey,
  isSecretNamedPair,
  namesSecretType,
  secretAttributesOf,
} from './sensitivity.js';
import { firstRepeatedMember, isReadMember, repeatedMemberError } from './top-level-keys.js';

export interface CompactOptions {
  hashSensitive: SensitiveHasher;
  /**
   * Values the caller knows are secret (a workspace's sensitive variables), hashed wherever a change
   * shows them, even when the configuration forgot to declare the variable `sensitive`.
   */
  knownSecrets?: readonly string[];
}

export interface PlanCompactor {
  /** Which JSON paths to capture; paths not captured or descended are never materialised. */
  selector(path: readonly PathSegment[], kind: JsonKind): SelectDecision;
  /** Receives each captured value (the path array is only valid during the call). */
  accept(path: readonly PathSegment[], value: unknown): void;
  finish(): CompactPlan;
  /** The document read so far is a message of `terraform plan -json`'s log, not a plan. */
  isStreamedLog(): boolean;
  /**
   * Whether the captured entry at `path` that opens with this address would be ignored by `accept`
   * (a prior_state resource already read from its drift entry): a reader may skip it unparsed.
   */
  skipsEntry(path: readonly PathSegment[], address: string): boolean;
}

/**
 * Streaming form of `compactPlan`: feed it the values its selector asks for, in document order, then
 * call `finish`. `compactPlan` drives the same compactor over a parsed plan (taking prior_state
 * entries whole, which is all the difference), so both reading paths share one implementation;
 * tests hold their results equal.
 */
export function createPlanCompactor(options: CompactOptions): PlanCompactor {
  const interned = new Map<string, string>();
  const tools: CompactionTools = {
    hashSensitive: options.hashSensitive,
    isSensitiveKey: createSensitiveKeyTest(),
    intern(text: string): string {
      const known = interned.get(text);
      if (known !== undefined) return known;
      interned.set(text, text);
      return text;
    },
  };
  let formatVersion: string | undefined;
  let terraformVersion: string | undefined;
  let errored = false;
  let complete = true;
  const drift: CompactChange[] = [];
  const changes: CompactChange[] = [];
  const outputChanges: CompactOutputChange[] = [];
  let deferred: DeferredChanges | undefined;
  const failedChecks: FailedCheck[] = [];
  const resources = new PriorStateResources(options.hashSensitive, tools.intern, tools.isSensitiveKey);
  const secrets = new SensitiveValues(tools.isSensitiveKey);

  // Which identifying top-level members the document has (presence only, never their values).
  const rootKeys = new Set<string>();
  // The members read so far: one given twice is rejected (top-level-keys.ts).
  const readMembers = new Set<string>();

  return {
    selector(path, kind) {
      if (path.length === 1 && typeof path[0] === 'number') throw notAnObject();
      if (path.length === 1 && IDENTIFYING_KEYS.has(path[0] as string)) rootKeys.add(path[0] as string);
      if (path.length === 1 && typeof path[0] === 'string' && isReadMember(path[0])) {
        if (readMembers.has(path[0])) throw repeatedMemberError(path[0]);
        readMembers.add(path[0]);
        if (kind !== 'scalar') checkSectionShape(path[0], kind);
      }
      if (path.length > MAX_VALUE_DEPTH) throw tooDeep();
      return selectPlanPath(path);
    },
    accept(path, value) {
      const top = path[0];
      if (top === undefined) throw notAnObject();
      if (path.length === 1 && SECTIONS.has(top as string) && value !== null) {
        // A section that arrives as a scalar: `"resource_drift": 5` would otherwise read as no drift.
        throw new PlanFormatError(
          `invalid plan: ${top} is ${describeJson(value)}, expected ${SECTIONS.get(top as string)}`,
        );
      }
      switch (top) {
        case 'format_version':
          formatVersion = checkFormatVersion(value);
          tools.formatVersion = formatVersion;
          return;
        case 'terraform_version':
          terraformVersion = typeof value === 'string' && value !== '' ? value : undefined;
          return;
        case 'errored':
          errored = flag('errored', value, false);
          return;
        case 'complete':
          // Absent in older versions and trimmed fixtures: only an explicit false means incomplete.
          complete = flag('complete', value, true);
          return;
        case 'resource_drift':
        case 'resource_changes':
          acceptResourceEntry(top, path, value, top === 'resource_drift' ? drift : changes);
          return;
        case 'deferred_changes':
          if (path.length === 2 && typeof path[1] === 'number') {
            deferred ??= { count: 0, reasons: [], addresses: [] };
            acceptDeferredChange(deferred, value);
          }
          return;
        case 'checks':
          if (path.length === 2 && typeof path[1] === 'number') {
            const failed = failedCheckOf(value);
            if (failed) failedChecks.push(failed);
          }
          return;
        case 'output_changes':
          if (path.length === 2 && typeof path[1] === 'string') {
            resources.acceptOutputChange(value);
            const output = compactOutputChange(path[1], value, tools);
            if (output) outputChanges.push(output);
          }
          return;
        case 'prior_state':
          if (path[2] === 'outputs') secrets.acceptOutput(path[3], value);
          else resources.accept(path, value);
          return;
        case 'planned_values':
          secrets.acceptOutput(path[2], value);
          return;
        case 'variables':
          secrets.acceptVariable(path[1], value);
          return;
        case 'configuration':
          if (value === true) secrets.acceptDeclaredSensitive(path[2], path[3]);
          return;
      }
    },
    isStreamedLog() {
      return rootKeys.has('@message');
    },
    skipsEntry(path, address) {
      return resources.readFromDrift(path, address);
    },
    finish() {
      assertIsPlan(formatVersion, rootKeys);
      const managedResources = resources.finish();
      const literals = [
        ...new Set([
          ...secrets.literals(),
          ...resources.secretValues(),
          ...(options.knownSecrets ?? []).filter((text) => text.length >= MIN_LITERAL_SECRET),
        ]),
      ];
      if (literals.length > 0) {
        const redact = createLiteralRedactor(literals, options.hashSensitive);
        for (const change of drift) redact.change(change);
        for (const change of changes) redact.change(change);
        for (const output of outputChanges) redact.changes(output.changes);
        for (const resource of managedResources) resource.address = redact.address(resource.address);
        if (deferred !== undefined) deferred.addresses = deferred.addresses.map(redact.address);
        for (const check of failedChecks) check.address = redact.address(check.address);
      }
      // An assertion's message interpolates live values: the secrets the plan names and any credential go.
      for (const check of failedChecks)
        check.messages = [
          ...new Set(check.messages.map((message) => redactedExcerpt(message, MAX_CHECK_MESSAGE, literals))),
        ];
      const plan: CompactPlan = {
        formatVersion: checkFormatVersion(formatVersion),
        errored,
        complete,
        drift,
        changes,
        outputChanges,
        managedResources,
      };
      if (terraformVersion !== undefined) plan.terraformVersion = terraformVersion;
      if (deferred !== undefined) plan.deferred = { ...deferred, reasons: deferred.reasons.sort() };
      if (failedChecks.length > 0) plan.failedChecks = failedChecks;
      if (literals.length > 0) SECRET_LITERALS.set(plan, literals);
      return plan;
    },
  };

  function acceptResourceEntry(
    section: string,
    path: readonly PathSegment[],
    value: unknown,
    into: CompactChange[],
  ) {
    // `"resource_drift": null` arrives as a scalar at the section path: nothing to compact.
    const index = path[1];
    if (path.length !== 2 || value === null || typeof index !== 'number') return;
    if (section === 'resource_drift') resources.acceptDrift(value);
    else resources.acceptChange(value);
    const compact = compactResourceEntry(value, section, index, tools);
    if (compact) into.push(compact);
  }
}

/** A failing assertion's message as kept (redacted first, then cut). */
const MAX_CHECK_MESSAGE = 500;
/** Terraform's kinds of checkable objects (jsonchecks): anything else is not quoted. */
const CHECK_KINDS: ReadonlySet<string> = new Set(['check', 'resource', 'output_value', 'var']);

/**
 * One element of `checks` (`{address: {kind, to_display}, status, instances: [{status, problems:
 * [{message}]}]}`), kept when its status is `fail`: its address, kind, how many instances failed and
 * their distinct messages (raw here: finish() redacts them once the plan's secrets are known).
 */
function failedCheckOf(value: unknown): FailedCheck | undefined {
  if (!isPlainObject(value) || value.status !== 'fail' || !isPlainObject(value.address)) return undefined;
  const shown = value.address.to_display;
  if (typeof shown !== 'string' || shown === '') return undefined;
  const kind =
    typeof value.address.kind === 'string' && CHECK_KINDS.has(value.address.kind)
      ? value.address.kind
      : 'check';
  const failing = (Array.isArray(value.instances) ? value.instances : []).filter(
    (instance) => isPlainObject(instance) && instance.status === 'fail',
  ) as Record<string, unknown>[];
  const messages = new Set<string>();
  for (const instance of failing)
    for (const problem of Array.isArray(instance.problems) ? instance.problems : [])
      if (isPlainObject(problem) && typeof problem.message === 'string' && problem.message !== '')
        if (messages.size < MAX_CHECK_MESSAGES) messages.add(problem.message);
  return { address: safeAddress(shown), kind, messages: [...messages], failedInstances: failing.length };
}

/** Terraform's deferral reasons are short snake_case words (jsonplan.DeferredReason*); anything else is not quoted. */
const DEFERRED_REASON = /^[a-z][a-z_]{0,39}$/;

/**
 * One `deferred_changes` element (`{reason, resource_change: {address, …}}`): only its reason and
 * address are kept, for the scan-failed reason; its values are never read.
 */
function acceptDeferredChange(deferred: DeferredChanges, value: unknown): void {
  deferred.count++;
  if (!isPlainObject(value)) return;
  const reason =
    typeof value.reason === 'string' && DEFERRED_REASON.test(value.reason) ? value.reason : 'unknown';
  if (!deferred.reasons.includes(reason)) deferred.reasons.push(reason);
  const change = value.resource_change;
  const address = isPlainObject(change) ? change.address : undefined;
  if (typeof address === 'string' && address !== '' && deferred.addresses.length < MAX_DEFERRED_ADDRESSES)
    deferred.addresses.push(safeAddress(address));
}

/**
 * The plaintext values of a plan's sensitive variables and outputs, kept outside the plan object (a
 * CompactPlan stays safe to log): callers redact them from Terraform's diagnostics with redactText.
 */
const SECRET_LITERALS = new WeakMap<CompactPlan, readonly string[]>();

export function secretLiteralsOf(plan: CompactPlan): readonly string[] {
  return SECRET_LITERALS.get(plan) ?? [];
}

/**
 * Collects values of variables declared `sensitive` (or named like a secret) and of sensitive outputs,
 * and the members named like secrets of the other variables and outputs. Terraform writes `variables` before `configuration`, so values wait until `literals()` is asked.
 */
class SensitiveValues {
  private readonly variables = new Map<string, unknown>();
  private readonly declaredSensitive = new Set<string>();
  private readonly outputs: unknown[] = [];
  /** Outputs not sensitive as a whole: only their members named like secrets count. */
  private readonly plainOutputs: unknown[] = [];

  constructor(private readonly isSensitiveKey: (name: string) => boolean) {}

  acceptVariable(name: PathSegment | undefined, value: unknown): void {
    if (typeof name === 'string' && isPlainObject(value)) this.variables.set(name, value.value);
  }

  acceptDeclaredSensitive(kind: PathSegment | undefined, name: PathSegment | undefined): void {
    if (typeof name === 'string') this.declaredSensitive.add(`${String(kind)}.${name}`);
  }

  acceptOutput(name: PathSegment | undefined, value: unknown): void {
    if (typeof name !== 'string' || !isPlainObject(value)) return;
    if (value.sensitive === true || this.isSensitiveKey(name)) this.outputs.push(value.value);
    else this.plainOutputs.push(value.value);
  }

  literals(): string[] {
    const found = new Set<string>();
    for (const [name, value] of this.variables) {
      if (this.declaredSensitive.has(`variables.${name}`) || this.isSensitiveKey(name))
        collectStrings(value, found);
      else collectNamedSecrets(value, this.isSensitiveKey, found, 0);
    }
    for (const value of this.outputs) collectStrings(value, found);
    for (const value of this.plainOutputs) collectNamedSecrets(value, this.isSensitiveKey, found, 0);
    return [...found].filter((text) => text.length >= MIN_LITERAL_SECRET);
  }
}

/**
 * The secrets inside a variable or output that is not sensitive as a whole: `db = {host, password}`,
 * `env = [{name = "API_TOKEN", value = "…"}]`. Terraform marks none of it, so a copy of the member
 * (`tags = {Pw = var.db.password}`) is as plain as the variable; the member's name says what it is.
 */
function collectNamedSecrets(
  value: unknown,
  isSensitiveKey: (name: string) => boolean,
  into: Set<string>,
  depth: number,
): void {
  if (depth > MAX_VALUE_DEPTH) return;
  if (Array.isArray(value)) {
    for (const item of value) collectNamedSecrets(item, isSensitiveKey, into, depth + 1);
    return;
  }
  if (!isPlainObject(value)) return;
  const secretPair = isSecretNamedPair(value, isSensitiveKey);
  for (const key in value) {
    const child = value[key];
    if (isSensitiveKey(key) || (secretPair && isPairValueKey(key))) collectStrings(child, into);
    else collectNamedSecrets(child, isSensitiveKey, into, depth + 1);
  }
}

function collectStrings(value: unknown, into: Set<string>): void {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') into.add(next);
    else if (Array.isArray(next)) for (const item of next) pending.push(item);
    else if (isPlainObject(next)) for (const key in next) pending.push(next[key]);
  }
}

/**
 * Hashes every change that shows a sensitive literal verbatim (an attribute Terraform did not mask,
 * e.g. through `nonsensitive()`, or a refreshed value equal to a secret), and drops such tags.
 */
function createLiteralRedactor(literals: readonly string[], hash: SensitiveHasher) {
  // The literal as written or escaped inside a JSON string (encodedForms), each of those in
  // base64 text (`base64encode(jsonencode({key = var.token}))`), and the literal percent-encoded
  // (`urlencode(var.token)` in a URL or a connection string): one search, no string decoded.
  const forms = literals.flatMap(encodedForms);
  const containsLiteral = createLiteralMatcher([
    ...forms,
    ...new Set(forms.flatMap(base64Forms)),
    ...new Set(literals.flatMap(percentForms)),
  ]);
  // Base64 wrapped at 64 or 76 columns (PEM, MIME) is searched without its line breaks too.
  const holdsLiteralText = (text: string): boolean =>
    containsLiteral(text) || (text.includes('\n') && containsLiteral(text.replace(/\r?\n/g, '')));
  const holdsLiteral = (value: unknown): boolean => {
    if (typeof value === 'string') return holdsLiteralText(value);
    if (value === null || typeof value !== 'object') return false;
    const strings = new Set<string>();
    collectStrings(value, strings);
    for (const text of strings) if (holdsLiteralText(text)) return true;
    return false;
  };
  const redactChanges = (list: CompactAttributeChange[]) => {
    for (const change of list) {
      // A secret used as a map key shows in the path: hash the key, and what it holds with it.
      const secretKey = change.segments.some(
        (segment) => typeof segment === 'string' && holdsLiteral(segment),
      );
      if (secretKey) {
        change.segments = change.segments.map((segment) =>
          typeof segment === 'string' && holdsLiteral(segment) ? hash(segment) : segment,
        );
        change.path = formatPath(change.segments);
      }
      if (change.sensitive || !(secretKey || holdsLiteral(change.before) || holdsLiteral(change.after)))
        continue;
      change.before = hashSide(change.before, hash);
      change.after = hashSide(change.after, hash);
      change.sensitive = true;
    }
  };
  // An instance key made of a secret (`for_each = toset([nonsensitive(var.token)])`) is in the address.
  const address = (text: string) => hashSecretInstanceKeys(text, holdsLiteral, hash);
  return {
    changes: redactChanges,
    address,
    change(change: CompactChange) {
      redactChanges(change.changes);
      change.address = address(change.address);
      if (change.previousAddress !== undefined) change.previousAddress = address(change.previousAddress);
      if (change.module !== undefined) change.module = address(change.module);
      const replaceSegments = REPLACE_PATH_SEGMENTS.get(change);
      if (change.replacePaths !== undefined && replaceSegments?.some((path) => path.some(holdsLiteral))) {
        change.replacePaths = replaceSegments.map((path) =>
          formatPath(
            path.map((segment) =>
              typeof segment === 'string' && holdsLiteral(segment) ? hash(segment) : segment,
            ),
          ),
        );
      }
      if (change.tags !== undefined) {
        for (const key of Object.keys(change.tags))
          if (holdsLiteral(change.tags[key]) || holdsLiteral(key)) delete change.tags[key];
      }
      if (change.identity !== undefined) {
        for (const key of Object.keys(change.identity) as IdentityAttribute[]) {
          const value = change.identity[key];
          if (value !== undefined && holdsLiteral(value)) change.identity[key] = hash(value);
        }
      }
    },
  };
}

/**
 * Whether a text contains one of the literals, in one pass over the text whatever their number (a
 * plan with thousands of SecureString parameters has thousands): literals are indexed by a hash of
 * their first MIN_LITERAL_SECRET characters, and a table of the pairs of characters they start with
 * rejects most positions of a text before any hashing (no substring is built per position).
 */
function createLiteralMatcher(literals: readonly string[]): (text: string) => boolean {
  const byPrefix = new Map<number, string[]>();
  const startsPair = new Uint8Array(65536);
  for (const literal of literals) {
    startsPair[pairAt(literal, 0)] = 1;
    const key = prefixKey(literal, 0);
    const group = byPrefix.get(key);
    if (group === undefined) byPrefix.set(key, [literal]);
    else group.push(literal);
  }
  return (text) => {
    for (let index = 0; index + MIN_LITERAL_SECRET <= text.length; index++) {
      if (startsPair[pairAt(text, index)] === 0) continue;
      const candidates = byPrefix.get(prefixKey(text, index));
      if (candidates === undefined) continue;
      for (const literal of candidates) if (text.startsWith(literal, index)) return true;
    }
    return false;
  };
}

/** The two characters at `index`, folded to 16 bits (collisions only cost a lookup). */
function pairAt(text: string, index: number): number {
  return ((text.charCodeAt(index) << 8) ^ text.charCodeAt(index + 1)) & 0xffff;
}

function prefixKey(text: string, index: number): number {
  let key = 0;
  for (let offset = 0; offset < MIN_LITERAL_SECRET; offset++)
    key = (Math.imul(key, 31) + text.charCodeAt(index + offset)) | 0;
  return key;
}

/**
 * The managed resources of prior_state (address, type, identity attributes) and the secrets its
 * resources hold, from each resource entry taken whole (both reading paths capture entries).
 */
class PriorStateResources {
  private readonly byAddress = new Map<string, ManagedResource>();

  /**
   * Strings Terraform marks sensitive that hold a secret (see collectSecretValues): in prior_state,
   * resource_drift, resource_changes and output_changes.
   */
  private readonly secrets = new Set<string>();
  /** Addresses read from their resource_drift entry (acceptDrift). */
  private readonly fromDrift = new Set<string>();

  constructor(
    private readonly hash: SensitiveHasher,
    private readonly intern: (text: string) => string,
    private readonly isSensitiveKey: (name: string) => boolean,
  ) {}

  secretValues(): string[] {
    return [...this.secrets].filter((text) => text.length >= MIN_LITERAL_SECRET);
  }

  /**
   * A resource_drift entry holds what prior_state holds for its resource: `after` is the refreshed
   * object prior_state lists (Terraform writes both from the same state), `after_sensitive` its
   * marks. Read here, its prior_state entry (written later, as large again) need not be parsed.
   */
  acceptDrift(entry: unknown): void {
    if (!isPlainObject(entry) || !isPlainObject(entry.change)) return;
    const { address, change } = entry;
    // A deposed object's drift says nothing of the current object at that address.
    if (typeof address !== 'string' || entry.deposed !== undefined || !isPlainObject(change.after)) return;
    this.read(address, entry.mode, entry.type, change.after, change.after_sensitive);
    this.fromDrift.add(address);
  }

  /**
   * The secrets a resource_changes entry masks, on either side: a planned value (a password set
   * from configuration for a resource not yet created, or a new one) is in no prior state yet, and
   * a copy of it elsewhere in the plan is as plain as one of a stored value.
   */
  acceptChange(entry: unknown): void {
    if (!isPlainObject(entry) || !isPlainObject(entry.change)) return;
    const { change } = entry;
    const type = typeof entry.type === 'string' ? entry.type : '';
    for (const [values, mask] of [
      [change.before, change.before_sensitive],
      [change.after, change.after_sensitive],
    ] as const) {
      if (isPlainObject(values)) collectSecretValues(values, mask, type, this.isSensitiveKey, this.secrets);
    }
  }

  /** The masked parts of an output_changes member's sides, as a sensitive output's value counts whole. */
  acceptOutputChange(output: unknown): void {
    if (!isPlainObject(output)) return;
    collectMasked(output.before, output.before_sensitive, true, false, this.isSensitiveKey, this.secrets, 0);
    collectMasked(output.after, output.after_sensitive, true, false, this.isSensitiveKey, this.secrets, 0);
  }

  readFromDrift(path: readonly PathSegment[], address: string): boolean {
    return this.fromDrift.has(address) && isPriorStateResourcePath(path);
  }

  /** A prior_state resource entry (ignored when its drift entry was read). */
  accept(path: readonly PathSegment[], resource: unknown): void {
    if (!isPriorStateResourcePath(path) || !isPlainObject(resource)) return;
    const address = typeof resource.address === 'string' ? resource.address : undefined;
    if (address !== undefined && this.fromDrift.has(address)) return;
    this.read(address, resource.mode, resource.type, resource.values, resource.sensitive_values);
  }

  private read(
    address: string | undefined,
    mode: unknown,
    resourceType: unknown,
    rawValues: unknown,
    rawMask: unknown,
  ): void {
    const type = typeof resourceType === 'string' ? resourceType : '';
    const values = isPlainObject(rawValues) ? rawValues : undefined;
    if (values !== undefined) collectSecretValues(values, rawMask, type, this.isSensitiveKey, this.secrets);
    // Deposed objects share their address; a workspace manages the address once.
    if (address === undefined || mode !== 'managed') return;
    const safe = safeAddress(address);
    if (this.byAddress.has(safe)) return;
    const identity = values !== undefined ? readIdentityValues(values) : {};
    // Built in a fixed order, whatever order the plan listed the attributes in.
    const kept: ManagedResource['values'] = {};
    for (const key of IDENTITY_ATTRIBUTES) {
      const value = keptIdentityValue(type, key, identity[key], rawMask, this.hash);
      if (value !== undefined) kept[key] = value;
    }
    const resource: ManagedResource = { address: safe, type: this.intern(type), values: kept };
    const companionKeys = values === undefined ? [] : companionElementKeys(type, values);
    if (companionKeys.length > 0) resource.companionKeys = companionKeys;
    const linkedParents = values === undefined ? [] : companionParents(type, values);
    if (linkedParents.length > 0) resource.linkedParents = linkedParents;
    this.byAddress.set(safe, resource);
  }

  /** By address: the same list whichever section a plan lists first, and whichever was read whole. */
  finish(): ManagedResource[] {
    return [...this.byAddress.values()].sort((a, b) =>
      a.address < b.address ? -1 : a.address > b.address ? 1 : 0,
    );
  }
}

/**
 * The identity attributes of a values object, read by name (fast on the many shapes of resource
 * objects). With `flags`, the attributes whose value is `true` (sensitive_values).
 */
function readIdentityValues(values: Record<string, unknown>): Partial<Record<IdentityAttribute, string>> {
  const found: Partial<Record<IdentityAttribute, string>> = {};
  keepIdentity(found, 'bucket', values.bucket);
  keepIdentity(found, 'id', values.id);
  keepIdentity(found, 'name', values.name);
  keepIdentity(found, 'role', values.role);
  keepIdentity(found, 'security_group_id', values.security_group_id);
  keepIdentity(found, 'route_table_id', values.route_table_id);
  keepIdentity(found, 'network_acl_id', values.network_acl_id);
  keepIdentity(found, 'type', values.type);
  keepIdentity(found, 'cidr_ipv4', values.cidr_ipv4);
  keepIdentity(found, 'cidr_ipv6', values.cidr_ipv6);
  keepIdentity(found, 'arn', values.arn);
  keepIdentity(found, 'queue_url', values.queue_url);
  keepIdentity(found, 'key_id', values.key_id);
  return found;
}

function keepIdentity(
  found: Partial<Record<IdentityAttribute, string>>,
  key: IdentityAttribute,
  value: unknown,
): void {
  if (typeof value === 'string') found[key] = value;
}

/**
 * The strings of a prior_state resource (managed or data) that Terraform marks sensitive and that
 * hold a secret: under a secret-looking name (`secret_string`, `password`, `master_password`), in an
 * attribute its type keeps a secret in (a SecureString's `value`), or shaped like a credential. A
 * configuration that copies one elsewhere with `nonsensitive()` (a tag, another resource, a check's
 * message) shows it in plaintext there; as a literal it is hashed wherever it reappears. A type named
 * as a secret (`random_password`'s `result`, `kubernetes_secret_v1`'s `data`) counts every masked
 * string of at least MIN_TYPE_SECRET characters. Other masked values that are not secrets by name or
 * type (a String parameter's `value`, which the provider masks too) are left out: they would hash
 * every ARN or region they appear in.
 */
function collectSecretValues(
  values: Record<string, unknown>,
  mask: unknown,
  type: string,
  isSensitiveKey: (name: string) => boolean,
  into: Set<string>,
): void {
  if (mask !== true && !isPlainObject(mask)) return;
  const secretAttributes = secretAttributesOf(type, values, values);
  const secretType = namesSecretType(type);
  // A mask `true` (the whole object sensitive) covers every attribute; otherwise the mask names them.
  for (const key in mask === true ? values : mask) {
    const masked = childMask(mask, key);
    if (masked !== true && (typeof masked !== 'object' || masked === null)) continue;
    const bySecretName = isSensitiveKey(key) || secretAttributes?.has(key) === true;
    collectMasked(values[key], masked, bySecretName, secretType, isSensitiveKey, into, 0);
  }
}

/**
 * Masked strings of a secret-named type shorter than this are not collected: a Kubernetes Secret's
 * `data` also holds `true`, `prod` or a port, and those would hash every value they appear in.
 */
const MIN_TYPE_SECRET = 8;

function collectMasked(
  value: unknown,
  mask: unknown,
  secret: boolean,
  secretType: boolean,
  isSensitiveKey: (name: string) => boolean,
  into: Set<string>,
  depth: number,
): void {
  if (value === null || value === undefined || mask === false || depth > MAX_VALUE_DEPTH) return;
  if (mask === true) {
    const strings = new Set<string>();
    collectStrings(value, strings);
    for (const text of strings)
      if (secret || (secretType && text.length >= MIN_TYPE_SECRET) || containsCredential(text))
        into.add(text);
    return;
  }
  if (typeof mask !== 'object' || mask === null) return;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++)
      collectMasked(
        value[index],
        childMask(mask, index),
        secret,
        secretType,
        isSensitiveKey,
        into,
        depth + 1,
      );
  } else if (isPlainObject(value)) {
    for (const key in value)
      collectMasked(
        value[key],
        childMask(mask, key),
        secret || isSensitiveKey(key),
        secretType,
        isSensitiveKey,
        into,
        depth + 1,
      );
  }
}

function notAnObject(): PlanFormatError {
  return new PlanFormatError('plan is not a JSON object');
}

function tooDeep(): PlanFormatError {
  return new PlanFormatError(
    `invalid plan: it nests deeper than ${MAX_VALUE_DEPTH} levels, driftwatch's limit`,
  );
}

/** Plan sections and the JSON type each must have (null is Terraform's "none"). */
const SECTIONS: ReadonlyMap<string, string> = new Map([
  ['resource_drift', 'a list'],
  ['resource_changes', 'a list'],
  ['output_changes', 'an object'],
]);

/** Members that only a plan has: a document with none of them is not a plan, whatever else it is. */
const PLAN_KEYS: readonly string[] = [
  'planned_values',
  'resource_changes',
  'resource_drift',
  'prior_state',
  'configuration',
  'output_changes',
];
/**
 * `lineage` and `serial`: a state file; `values` without plan members: `terraform show -json` of a
 * state; `@message`: a line of the log `terraform plan -json` streams.
 */
const IDENTIFYING_KEYS: ReadonlySet<string> = new Set([
  ...PLAN_KEYS,
  'lineage',
  'serial',
  'values',
  '@message',
]);

const SHOW_PLAN = 'run `terraform show -json <planfile>` and pass its output';

/**
 * `terraform plan -json | driftwatch evaluate-plan -` is the natural first try, and it gives a log of
 * one JSON message per line, not the plan: say so instead of "not JSON at byte 168".
 */
export function streamedLogError(): PlanFormatError {
  return new PlanFormatError(
    `this is the log that \`terraform plan -json\` streams (one JSON message per line), not a plan: save the plan with \`terraform plan -out plan.tfplan\`, then ${SHOW_PLAN}`,
  );
}

/**
 * A document that is valid JSON but not a plan must fail loudly: read as a plan it has no drift, and
 * "no findings" from a state file is exactly the wrong answer.
 */
function assertIsPlan(formatVersion: string | undefined, rootKeys: ReadonlySet<string>): void {
  if (PLAN_KEYS.some((key) => rootKeys.has(key))) return;
  if (rootKeys.has('@message')) throw streamedLogError();
  if (rootKeys.has('lineage') || rootKeys.has('serial'))
    throw new PlanFormatError(`this is a Terraform state file, not a plan: ${SHOW_PLAN}`);
  if (formatVersion !== undefined && rootKeys.has('values'))
    throw new PlanFormatError(
      `this is \`terraform show -json\` of a state (no plan file given), not a plan: ${SHOW_PLAN}`,
    );
  if (formatVersion === undefined)
    throw new PlanFormatError(
      `not a Terraform plan: no format_version, planned_values, resource_changes or resource_drift; ${SHOW_PLAN}`,
    );
  throw new PlanFormatError(
    `not a Terraform plan: format_version ${formatVersion} but no planned_values, resource_changes or resource_drift; ${SHOW_PLAN}`,
  );
}

/**
 * A section that opens as the wrong container: `"resource_drift": {}` must not read as no drift
 * (scalars are named when they are accepted). Checked as the section opens, so an empty one counts.
 */
function checkSectionShape(section: PathSegment | undefined, kind: 'object' | 'array'): void {
  const expected = typeof section === 'string' ? SECTIONS.get(section) : undefined;
  if (expected === undefined) return;
  const isList = expected === 'a list';
  if (isList === (kind === 'array')) return;
  throw new PlanFormatError(
    `invalid plan: ${section} is ${isList ? 'an object' : 'a list'}, expected ${expected}`,
  );
}

/**
 * `errored` and `complete` as Terraform writes them (booleans; null as absent). `"errored": "true"`
 * must not read as a clean plan: an errored plan's drift is incomplete, and saying so is the point.
 */
function flag(name: string, value: unknown, absent: boolean): boolean {
  if (typeof value === 'boolean') return value;
  if (value === null || value === undefined) return absent;
  throw new PlanFormatError(`invalid plan: ${name} is ${describeJson(value)}, expected true or false`);
}

/**
 * Compacts a plan given as parsed JSON or as JSON text. Throws PlanFormatError with the reason
 * (`plan is empty`, `plan is not JSON: …`, `unsupported format_version 2.0`...).
 */
export function compactPlan(raw: unknown, options: CompactOptions): CompactPlan {
  const owned = typeof raw === 'string';
  const plan = owned ? parsePlanText(raw) : raw;
  if (!isPlainObject(plan)) throw notAnObject();
  // JSON.parse kept the last of a repeated member; the streaming reader rejects it, and so does this.
  const repeated = owned ? firstRepeatedMember(raw) : undefined;
  if (repeated !== undefined) throw repeatedMemberError(repeated);
  const compactor = createPlanCompactor(options);
  // A plan parsed here is ours: let go of each entry once compacted, so the garbage collector does
  // not trace hundreds of MiB of plan it will free anyway (a caller's object is left untouched).
  walkSelected(plan, compactor.selector, compactor.accept, wantedPlanKeys, [], owned);
  return compactor.finish();
}

export function parsePlanText(text: string): unknown {
  if (/^\s*$/.test(text)) throw new PlanFormatError('plan is empty');
  try {
    return JSON.parse(text);
  } catch (error) {
    if (startsWithLogMessage(text)) throw streamedLogError();
    throw new PlanFormatError(`plan is not JSON: ${jsonParseReason(error)}`, { cause: error });
  }
}

function startsWithLogMessage(text: string): boolean {
  const firstLine = text.trimStart().split('\n', 1)[0] ?? '';
  try {
    const message: unknown = JSON.parse(firstLine);
    return isPlainObject(message) && Object.hasOwn(message, '@message');
  } catch {
    return false;
  }
}

/**
 * Walks a parsed JSON value the way `createJsonSelector` walks bytes: ask `select` at each node,
 * hand captured values (and scalars met while descending) to `onValue`.
 */
export function walkSelected(
  value: unknown,
  select: (path: readonly PathSegment[], kind: JsonKind) => SelectDecision,
  onValue: (path: readonly PathSegment[], value: unknown) => void,
  wantedKeys: (path: readonly PathSegment[]) => readonly string[] | undefined = () => undefined,
  path: PathSegment[] = [],
  release = false,
): void {
  // The walk recurses per level it descends (prior_state modules nest in modules): bounded here.
  if (path.length > MAX_VALUE_DEPTH) throw tooDeep();
  const decision = select(path, jsonKindOf(value));
  if (decision === 'skip') return;
  if (decision === 'capture' || typeof value !== 'object' || value === null) {
    onValue(path, value);
    return;
  }
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      path.push(index);
      walkSelected(value[index], select, onValue, wantedKeys, path, release);
      path.pop();
      if (release) value[index] = null;
    }
    return;
  }
  const object = value as Record<string, unknown>;
  const keys = wantedKeys(path);
  if (release && keys !== undefined) {
    for (const key in object) if (!keys.includes(key)) object[key] = null;
  }
  if (keys === undefined) {
    for (const key in object) {
      path.push(key);
      walkSelected(object[key], select, onValue, wantedKeys, path, release);
      path.pop();
    }
    return;
  }
  for (const key of keys) {
    if (!Object.hasOwn(object, key)) continue;
    path.push(key);
    walkSelected(object[key], select, onValue, wantedKeys, path, release);
    path.pop();
  }
}

function jsonKindOf(value: unknown): JsonKind {
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' && value !== null ? 'object' : 'scalar';
}
