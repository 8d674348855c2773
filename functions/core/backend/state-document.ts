import { createJsonSelector } from '../terraform/json-selector.js';
import { PlanFormatError } from '../terraform/plan-error.js';
import { byteSize } from '../text/byte-size.js';
import { notJsonBecause, parseJsonObject } from './json-body.js';

/**
 * The few facts driftwatch takes from a state object: its format, lineage and serial. State holds
 * secrets in plaintext, so nothing else is kept, and no failure reason ever quotes the content.
 */
export interface StateHeader {
  /** 4, or 1-3 for a state Terraform 0.11 or older wrote (1.x still reads and upgrades those). */
  version: number;
  serial: number;
  lineage: string;
  terraformVersion?: string;
  /**
   * How many resources the state holds, when it was read whole (a small state; never for one read in
   * part): a workspace deleted and created again replaces a state that holds none.
   */
  resources?: number;
}

const LINEAGE = /^[A-Za-z0-9-]{1,64}$/;
const VERSION = /^\d+\.\d+\.\d+[\w.+-]{0,40}$/;

export type ParsedState =
  | { ok: true; header: StateHeader }
  /** OpenTofu's state encryption: valid state whose lineage and serial only its key can read. */
  | { ok: true; encrypted: true }
  /** Formats 1-3 (Terraform 0.11 and older) without a usable lineage or serial: state, header not read. */
  | { ok: false; legacy: true; reason: string }
  | { ok: false; reason: string };

/**
 * OpenTofu (1.7+) with an `encryption` block writes `{"meta":{…},"encrypted_data":"<base64>",
 * "encryption_version":"v0"}`: a state whose content only its key can read.
 */
export function isEncryptedState(state: Record<string, unknown>): boolean {
  return typeof state.encrypted_data === 'string' && typeof state.encryption_version === 'string';
}

export function parseStateHeader(body: string): ParsedState {
  const parsed = parseJsonObject(body, 'the state');
  if (!parsed.ok) return parsed;
  const state = parsed.value;
  // State, not a broken object to restore.
  if (isEncryptedState(state)) return { ok: true, encrypted: true };
  const header = headerOf(state);
  if (!header.ok) return header;
  // Formats 1-3 keep their resources under `modules`, each module's in a map.
  if (state.version === 4 && !Array.isArray(state.resources))
    return { ok: false, reason: 'resources is not a list' };
  if (header.ok && 'header' in header && Array.isArray(state.resources))
    header.header.resources = state.resources.length;
  return header;
}

/**
 * Formats 1-3 are Terraform's own, from 0.11 and before, with lineage and serial where format 4 has
 * them: Terraform 1.x still reads them (and writes format 4 at the next apply), so they are state,
 * not a broken object whose last good version should be restored.
 */
const LEGACY_VERSIONS: ReadonlySet<unknown> = new Set([1, 2, 3]);

export function isLegacyStateVersion(version: unknown): version is 1 | 2 | 3 {
  return LEGACY_VERSIONS.has(version);
}

/** A JSON value named by its type (`null`, `array`, `string`…), never quoted: state holds secrets. */
export function jsonTypeName(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}
const LEGACY_NOTE =
  'written by Terraform 0.11 or older; Terraform 0.12 and later read it and write format 4 at their next apply';

/** The header fields, judged one by one: the format version first, so an old state says so. */
function headerOf(state: Record<string, unknown>): ParsedState {
  const legacy = isLegacyStateVersion(state.version);
  if (state.version !== 4 && !legacy) {
    if (state.version !== undefined && typeof state.version !== 'number') {
      // Named by its JSON type, never quoted (state holds secrets): `"4"` is not the number 4.
      return {
        ok: false,
        reason: `state format version is a JSON ${jsonTypeName(state.version)}, expected the number 4`,
      };
    }
    const version = state.version === undefined ? 'missing' : String(state.version);
    return { ok: false, reason: `state format version ${version}, expected 4` };
  }
  // An old state without a usable lineage or serial is still state: what was not read is said, no alert.
  const notRead = (what: string): ParsedState =>
    legacy
      ? {
          ok: false,
          legacy: true,
          reason: `${what}, in state format ${String(state.version)} (${LEGACY_NOTE})`,
        }
      : { ok: false, reason: what };
  // Lineage and version end up in findings: accept only what they look like, never free text.
  if (typeof state.lineage !== 'string' || !LINEAGE.test(state.lineage))
    return notRead('no lineage, or a lineage that is not an id');
  if (!Number.isSafeInteger(state.serial) || (state.serial as number) < 0)
    return notRead('serial is not a non-negative integer');
  const header: StateHeader = {
    version: state.version as number,
    serial: state.serial as number,
    lineage: state.lineage,
  };
  if (typeof state.terraform_version === 'string' && VERSION.test(state.terraform_version))
    header.terraformVersion = state.terraform_version;
  return { ok: true, header };
}

/** What the first bytes of a state say, when the object is longer than they are. */
export type ParsedStatePrefix =
  | ParsedState
  /** The prefix ended before the header did: read more, or give `reason`. */
  | { ok: false; incomplete: true; missing: string[]; reason: string };

const HEADER_FIELDS = ['version', 'terraform_version', 'serial', 'lineage'] as const;
const REQUIRED_FIELDS = ['version', 'serial', 'lineage'] as const;

/**
 * The header of a state from its first bytes (`prefix`, a bounded Range read of an object of
 * `totalBytes`). Terraform and OpenTofu write `version`, `terraform_version`, `serial` and
 * `lineage` first, before `outputs` and `resources`, so a few hundred bytes hold them whatever the
 * size of the state. The top-level members are scanned in order; nested values (outputs,
 * resources) are skipped without being built, and the scan stops as soon as the header is known.
 * A state whose members come in another order (hand-written, sorted by `jq -S`) has its header
 * further on: `incomplete` names the fields not seen, and nothing is guessed.
 * When the prefix is the whole object, it is parsed whole (parseStateHeader).
 */
export function parseStatePrefix(prefix: string, totalBytes: number, complete: boolean): ParsedStatePrefix {
  if (complete) return parseStateHeader(prefix);
  const scan = scanTopLevel(prefix);
  if (scan.notObject) {
    if (/^\s*[[\]"\d-]/.test(prefix)) return { ok: false, reason: 'the state is not a JSON object' };
    return { ok: false, reason: `the state ${notJsonBecause(prefix, totalBytes)}` };
  }
  if (scan.syntaxError) return { ok: false, reason: `the state is not JSON (${totalBytes} bytes)` };
  const fields = scan.fields;
  // OpenTofu's encrypted state: `meta`, then `encrypted_data` (all of the state, base64), then
  // `encryption_version` past the end of any prefix.
  if (scan.encryptedData) return { ok: true, encrypted: true };
  // A wrong version is its own reason at once; formats 1-3 have lineage and serial where 4 has them.
  if ('version' in fields && fields.version !== 4 && !isLegacyStateVersion(fields.version))
    return headerOf(fields);
  const missing = REQUIRED_FIELDS.filter((field) => !(field in fields));
  if (missing.length === 0) {
    const header = headerOf(fields);
    if (!header.ok) return header;
    if ('resources' in fields && fields.resources !== RESOURCES_LIST)
      return { ok: false, reason: 'resources is not a list' };
    return header;
  }
  if (scan.ended || (isLegacyStateVersion(fields.version) && 'modules' in fields))
    // The whole object was scanned (it fits in the prefix after all), or an old format's header was
    // passed: the fields are absent.
    return headerOf(fields);
  return {
    ok: false,
    incomplete: true,
    missing: [...missing],
    reason: `the state header (${missing.join(', ')}) is not within its first ${byteSize(prefix.length)}: its members are not in the order Terraform writes them (version, terraform_version, serial, lineage first), so its lineage and serial were not read`,
  };
}

/** Stands for the value of `resources` when it is an array (its content is never built). */
const RESOURCES_LIST = Symbol('resources list');

interface TopLevelScan {
  /** Header fields seen, with their values as parsed (the first of a member given twice). */
  fields: Record<string, unknown>;
  encryptedData: boolean;
  /** The first character is not `{`. */
  notObject: boolean;
  syntaxError: boolean;
  /** The closing `}` of the object was reached. */
  ended: boolean;
}

/** Thrown from the selector's callbacks once the header is known: the rest is not read. */
const HEADER_READ = Symbol('header read');

/**
 * One pass over the top-level members of a JSON object, as far as the text goes, through the plan
 * reader's selective JSON reader: header fields are captured, every other value is skipped without
 * being built (memory stays that of the text). Stops at the end of the text, or when all header
 * fields (or OpenTofu's encrypted data) are known.
 */
function scanTopLevel(text: string): TopLevelScan {
  const scan: TopLevelScan = {
    fields: {},
    encryptedData: false,
    notObject: false,
    syntaxError: false,
    ended: false,
  };
  // JSON's whitespace only (`\s` would take a byte order mark for it).
  if (!/^[ \t\r\n]*\{/.test(text)) {
    scan.notObject = true;
    return scan;
  }
  const fields = scan.fields;
  const selector = createJsonSelector(
    (path, kind) => {
      if (path.length === 0) return 'descend';
      const key = path[0];
      if (path.length !== 1 || typeof key !== 'string') return 'skip';
      if (key === 'encrypted_data' && kind === 'scalar') {
        scan.encryptedData = true;
        throw HEADER_READ;
      }
      if (key === 'resources' && !(key in fields))
        fields.resources = kind === 'array' ? RESOURCES_LIST : kind;
      // Formats 1-3 write `modules` after their header: reached, a field not seen is absent.
      if (key === 'modules' && !(key in fields)) fields.modules = kind;
      // The first of a member given twice counts.
      return (HEADER_FIELDS as readonly string[]).includes(key) && !(key in fields) ? 'capture' : 'skip';
    },
    (path, value) => {
      fields[path[0] as string] = value;
      if (HEADER_FIELDS.every((field) => field in fields)) throw HEADER_READ;
    },
  );
  try {
    selector.write(Buffer.from(text, 'utf8'));
  } catch (error) {
    if (error === HEADER_READ) return scan;
    if (error instanceof PlanFormatError) return { ...scan, syntaxError: true };
    throw error;
  }
  // The text may be the whole object after all (its end within the prefix). Only asked when it ends
  // with a brace: end() would take a number the next bytes continue (`"serial": 1` of 12) as whole.
  if (/\}[ \t\r\n]*$/.test(text)) {
    try {
      selector.end();
      scan.ended = true;
    } catch (error) {
      if (!(error instanceof PlanFormatError)) throw error;
    }
  }
  return scan;
}
