import type { JsonValue } from '../findings/model.js';
import { isPlainObject, type KubeObject } from './kube-object.js';

/**
 * Noise removal before two versions of an object are compared (gitops-engine does the same): what
 * the API server writes for its own bookkeeping is never drift, and one annotation can hold a
 * Secret's plaintext.
 */

/** Metadata the API server owns. */
const SERVER_METADATA = [
  'managedFields',
  'resourceVersion',
  'uid',
  'generation',
  'creationTimestamp',
  'selfLink',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
] as const;

/**
 * Annotations that are bookkeeping, not declared state. `last-applied-configuration` also holds the
 * whole previous manifest, Secret data included, in plain text.
 */
const BOOKKEEPING_ANNOTATIONS = [
  'kubectl.kubernetes.io/last-applied-configuration',
  'deployment.kubernetes.io/revision',
] as const;

/**
 * A copy without status, server metadata and bookkeeping annotations; Secret stringData folded into
 * data, and base64 data in the form the server answers.
 */
export function normalizeObject(object: KubeObject): KubeObject {
  const { status: _status, ...rest } = object;
  const normalized: KubeObject = { ...rest };
  if (isPlainObject(object.metadata)) {
    const metadata: KubeObject = { ...object.metadata };
    for (const key of SERVER_METADATA) delete metadata[key];
    for (const key of ['annotations', 'labels'] as const) {
      const map = metadata[key];
      if (!isPlainObject(map)) continue;
      const kept: KubeObject = { ...map };
      if (key === 'annotations') for (const name of BOOKKEEPING_ANNOTATIONS) delete kept[name];
      // An empty map and no map are the same declaration.
      if (Object.keys(kept).length === 0) delete metadata[key];
      else metadata[key] = kept;
    }
    normalized.metadata = metadata;
  }
  if (isSecret(object)) {
    foldStringData(normalized);
    canonicalBase64(normalized, 'data');
  }
  if (isConfigMap(object)) canonicalBase64(normalized, 'binaryData');
  return normalized;
}

function isConfigMap(object: KubeObject): boolean {
  return object.kind === 'ConfigMap' && (object.apiVersion === 'v1' || object.apiVersion === undefined);
}

/** Standard base64 with its padding, as Go's decoder takes it once line breaks are skipped. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * A Secret's `data` and a ConfigMap's `binaryData` are bytes: the server decodes the manifest's
 * base64 (Go's decoder skips `\r` and `\n`, so `base64`'s 76-column lines pasted into a block
 * scalar are accepted) and answers it re-encoded on one line. Each value that decodes is compared
 * in that form; one that does not is left as written (the server would refuse it).
 */
function canonicalBase64(object: KubeObject, field: 'data' | 'binaryData'): void {
  const map = object[field];
  if (!isPlainObject(map)) return;
  const canonical: KubeObject = {};
  for (const [key, value] of Object.entries(map)) {
    const text = typeof value === 'string' ? value.replace(/[\r\n]/g, '') : undefined;
    canonical[key] =
      text !== undefined && BASE64.test(text) ? Buffer.from(text, 'base64').toString('base64') : value;
  }
  object[field] = canonical;
}

export function isSecret(object: KubeObject): boolean {
  return object.kind === 'Secret' && (object.apiVersion === 'v1' || object.apiVersion === undefined);
}

/** The API server stores `stringData` as base64 `data`; compare like with like. */
function foldStringData(secret: KubeObject): void {
  const stringData = secret.stringData;
  if (!isPlainObject(stringData)) return;
  const data: KubeObject = isPlainObject(secret.data) ? { ...secret.data } : {};
  for (const [key, value] of Object.entries(stringData)) {
    if (typeof value === 'string') data[key] = base64(value);
  }
  secret.data = data;
  delete secret.stringData;
}

function base64(value: string): JsonValue {
  return Buffer.from(value, 'utf8').toString('base64');
}

/** Parses a state string of Argo CD's API: JSON of an object, or "null"/"" when the object is absent. */
export function parseStateString(state: string | undefined): KubeObject | undefined {
  if (state === undefined || state === '' || state === 'null') return undefined;
  const parsed: unknown = JSON.parse(state);
  return isPlainObject(parsed) ? parsed : undefined;
}
