import type { AttributeChange, FindingDraft, JsonValue } from '../findings/model.js';
import {
  argumentsHoldCredential,
  containsCredential,
  isSecretOption,
  isSensitiveName,
  redactText,
  SENSITIVE_MARKER,
  type SensitiveHasher,
  secretCommandMembers,
} from '../redaction/secrets.js';
import { isPlainObject } from './kube-object.js';

/**
 * The last pass every cluster finding goes through before it leaves the scan (DESIGN.md principle
 * 7), whichever rule built it: the same value-pattern redaction as Terraform findings (URLs with
 * passwords, bearer and basic credentials, connection strings, PEM keys, cloud and SaaS tokens).
 * Object values can reach a finding from many places (an env value, ConfigMap data, an annotation,
 * a whole added block, an Argo CD health or condition message); doing it here, once, means a new
 * path cannot forget it.
 *
 * - In `drift.changes`, a string that holds a credential is replaced by its salted hash and the
 *   change is marked sensitive (so "it changed" stays visible); the value of a
 *   `kubectl.kubernetes.io/last-applied-configuration` annotation (a plaintext copy of the whole
 *   object, Secret data included) is hashed wherever it appears.
 * - A secret given on a command line (a container's `args` or `command`) is hashed too: the
 *   argument after a flag whose name looks secret (`["--db-password", "x"]`), a list that gives a
 *   tool its password (`["mysql", "-pS3cret"]`), and a string that passes one (`sh -c "app
 *   --api-key x"`); `--db-password=x` and `mysql -pS3cret` are value rules' already.
 * - Every other text (title, detail, evidence, remediation) has its credentials replaced by
 *   `(redacted)`.
 */

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

export function redactClusterFinding(draft: FindingDraft, hashSensitive: SensitiveHasher): FindingDraft {
  const redacted: FindingDraft = {
    ...draft,
    title: redactText(draft.title),
    detail: redactText(draft.detail),
    evidence: redactTexts(draft.evidence) as Record<string, unknown>,
    remediation: {
      ...draft.remediation,
      summary: redactText(draft.remediation.summary),
      steps: draft.remediation.steps.map((step) => redactText(step)),
    },
  };
  if (draft.drift)
    redacted.drift = {
      ...draft.drift,
      changes: draft.drift.changes.map((change) => redactChange(change, hashSensitive)),
    };
  return redacted;
}

function redactChange(change: AttributeChange, hash: SensitiveHasher): AttributeChange {
  const count = { hashed: 0 };
  const wholeCopy = change.path.endsWith(`["${LAST_APPLIED}"]`);
  const before = wholeCopy
    ? hashValue(change.before, hash, count)
    : hashCredentials(change.before, hash, count);
  const after = wholeCopy ? hashValue(change.after, hash, count) : hashCredentials(change.after, hash, count);
  if (count.hashed === 0) return change;
  return { ...change, before, after, sensitive: true };
}

function hashValue(value: JsonValue, hash: SensitiveHasher, count: { hashed: number }): JsonValue {
  if (value === null || (typeof value === 'string' && SENSITIVE_MARKER.test(value))) return value;
  count.hashed++;
  return hash(value);
}

function hashCredentials(value: JsonValue, hash: SensitiveHasher, count: { hashed: number }): JsonValue {
  if (typeof value === 'string') {
    if (SENSITIVE_MARKER.test(value) || !(containsCredential(value) || passesSecretFlag(value))) return value;
    count.hashed++;
    return hash(value);
  }
  // `["mysql", "-uroot", "-pS3cret"]`: the password of a tool's short option, the list whole.
  if (Array.isArray(value) && argumentsHoldCredential(value)) return hashValue(value, hash, count);
  if (Array.isArray(value))
    return value.map((element, index) =>
      index > 0 && isSecretOption(value[index - 1])
        ? hashValue(element, hash, count)
        : hashCredentials(element, hash, count),
    );
  if (!isPlainObject(value)) return value;
  // `command: ["mysql"]` with `args: ["-pS3cret"]`: the two lists together are the command line.
  const secretCommand = secretCommandMembers(value);
  const result: Record<string, JsonValue> = {};
  for (const [key, child] of Object.entries(value))
    result[key] =
      key === LAST_APPLIED || secretCommand.has(key)
        ? hashValue(child, hash, count)
        : hashCredentials(child, hash, count);
  return result;
}

function redactTexts(value: unknown): unknown {
  if (typeof value === 'string') return redactText(value);
  if (Array.isArray(value)) return value.map(redactTexts);
  if (value === null || typeof value !== 'object') return value;
  const result: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value))
    result[key] = key === LAST_APPLIED ? '(redacted)' : redactTexts(child);
  return result;
}

/**
 * A flag followed by a value inside one string (`app --api-key x`, `app -token x`), as `sh -c` runs
 * it. Flags that name what they hold (`--token-file`, `--secret-name`) are not secret: secret-names.ts
 * decides.
 */
const INLINE_FLAG = /(?:^|\s)--?(?<name>[A-Za-z][A-Za-z0-9_.-]*)[ \t]+(?=\S)/g;

function passesSecretFlag(text: string): boolean {
  for (const match of text.matchAll(INLINE_FLAG)) if (isSensitiveName(match.groups?.name ?? '')) return true;
  return false;
}
