import { parseJsonObject } from './json-body.js';

/**
 * The few facts driftwatch takes from a state object: its format, lineage and serial. State holds
 * secrets in plaintext, so nothing else is kept, and no failure reason ever quotes the content.
 */
export interface StateHeader {
  version: 4;
  serial: number;
  lineage: string;
  terraformVersion?: string;
}

const LINEAGE = /^[A-Za-z0-9-]{1,64}$/;
const VERSION = /^\d+\.\d+\.\d+[\w.+-]{0,40}$/;

export type ParsedState =
  | { ok: true; header: StateHeader }
  /** OpenTofu's state encryption: valid state whose lineage and serial only its key can read. */
  | { ok: true; encrypted: true }
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
  if (state.version !== 4) {
    if (state.version !== undefined && typeof state.version !== 'number') {
      // Named by its JSON type, never quoted (state holds secrets): `"4"` is not the number 4.
      const type =
        state.version === null ? 'null' : Array.isArray(state.version) ? 'array' : typeof state.version;
      return { ok: false, reason: `state format version is a JSON ${type}, expected the number 4` };
    }
    const version = state.version === undefined ? 'missing' : String(state.version);
    // Formats 1-3 are Terraform's own, from 0.11 and before: not a broken object, an old one.
    const legacy =
      state.version === 1 || state.version === 2 || state.version === 3
        ? ' (written by Terraform 0.11 or older; Terraform 0.12 and later upgrade it at their next apply)'
        : '';
    return { ok: false, reason: `state format version ${version}, expected 4${legacy}` };
  }
  // Lineage and version end up in findings: accept only what they look like, never free text.
  if (typeof state.lineage !== 'string' || !LINEAGE.test(state.lineage))
    return { ok: false, reason: 'no lineage, or a lineage that is not an id' };
  if (!Number.isSafeInteger(state.serial) || (state.serial as number) < 0)
    return { ok: false, reason: 'serial is not a non-negative integer' };
  if (!Array.isArray(state.resources)) return { ok: false, reason: 'resources is not a list' };
  const header: StateHeader = { version: 4, serial: state.serial as number, lineage: state.lineage };
  if (typeof state.terraform_version === 'string' && VERSION.test(state.terraform_version))
    header.terraformVersion = state.terraform_version;
  return { ok: true, header };
}
