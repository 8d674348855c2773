import type { AttributeChange } from '../findings/model.js';
import { redactText, type SensitiveHasher } from '../redaction/secrets.js';
import { type ClusterComparison, DEFAULT_FIELD_MANAGER } from '../registry/model.js';
import { isPlainObject, type KubeObject } from './kube-object.js';
import {
  type AppliedFields,
  appliedFieldsOf,
  replicasOwnedByAutoscaler,
  withoutRemovedFields,
} from './managed-fields.js';
import { normalizeObject } from './normalize.js';
import { diffKubeObjects } from './object-diff.js';
import { createSchemaView, type SchemaView } from './openapi-normalizer.js';
import type { KubernetesApi, LiveObjectRequest } from './ports.js';

/**
 * What direct mode compares a live object with, and how it got it (the finding's `comparison`):
 * - `server-side-dry-run`: the API server's answer to a dry-run apply of the manifest, as
 *   `kubectl diff --server-side` and Argo CD's server-side diff use it. The server filled its
 *   defaults, canonicalised quantities, merged lists by key and folded `stringData`, so what still
 *   differs from the live object is what an apply would change. `predicted` is the answer as
 *   the server sent it, `managedFields` included (who owns what, for removed-field checks);
 * - `openapi-normalised`: the manifest read with the cluster's OpenAPI schema of its kind
 *   (openapi-normalizer.ts), compared on the fields it declares;
 * - `declared-fields`: the fields the manifest declares, with name tables instead of a schema.
 * `fallback` says why a better method was not used for this object.
 */
export type DirectComparison =
  | { method: 'server-side-dry-run'; predicted: KubeObject; fieldManager?: string }
  | { method: 'openapi-normalised'; schema: SchemaView; fallback?: string; fieldManager?: string }
  | { method: 'declared-fields'; fallback?: string; fieldManager?: string };

export type ComparisonMethod = DirectComparison['method'];

/** The dry-run answered that applying would create the object: it does not exist. */
export interface DryRunCreates {
  method: 'server-side-dry-run';
  created: true;
}

export interface ComparisonOptions {
  comparison: ClusterComparison;
  fieldManager: string;
}

/**
 * Chooses and runs the comparison of one object that exists: the configured method, falling back
 * per object (a dry-run the server refuses for this kind or because of a webhook; a kind the
 * OpenAPI document does not describe). Errors other than refusals propagate: they fail the object.
 */
export async function desiredStateOf(
  api: KubernetesApi,
  request: LiveObjectRequest,
  manifest: KubeObject,
  options: ComparisonOptions,
): Promise<DirectComparison | DryRunCreates> {
  let fallback: string | undefined;
  if (options.comparison === 'server-dry-run') {
    const result = await api.dryRunApply(request, manifest, options.fieldManager);
    if (result.outcome === 'applied')
      return result.created
        ? { method: 'server-side-dry-run', created: true }
        : { method: 'server-side-dry-run', predicted: result.object, fieldManager: options.fieldManager };
    // The server's message may quote the manifest: value patterns are redacted, length bounded.
    fallback = `server-side dry-run refused (${result.status}): ${redactText(result.reason).slice(0, 200)}`;
  }
  if (options.comparison !== 'declared') {
    const document = await api.openApiDocument(request.apiVersion);
    const schema =
      document === undefined ? undefined : createSchemaView(document, request.apiVersion, request.kind);
    if (schema !== undefined)
      return {
        method: 'openapi-normalised',
        schema,
        fieldManager: options.fieldManager,
        ...(fallback ? { fallback } : {}),
      };
    const why =
      document === undefined
        ? 'the server publishes no OpenAPI v3 document'
        : `the OpenAPI v3 document does not describe ${request.apiVersion} ${request.kind}`;
    fallback = fallback ? `${fallback}; ${why}` : why;
  }
  return { method: 'declared-fields', fieldManager: options.fieldManager, ...(fallback ? { fallback } : {}) };
}

/** Field changes between what Git would make of the object and the live object (`before` = Git). */
export function comparisonChanges(
  comparison: DirectComparison,
  manifest: KubeObject,
  live: KubeObject,
  hashSensitive: SensitiveHasher,
): AttributeChange[] {
  const changes = methodChanges(comparison, asServerScopes(manifest, live), live, hashSensitive);
  // The autoscaler's replica count is not drift, whatever Git says (managed-fields.ts).
  if (!replicasOwnedByAutoscaler(live)) return changes;
  return changes.filter((change) => change.path !== 'spec.replicas');
}

/**
 * The manifest without a namespace when the live object has none: it is cluster-scoped, and the API
 * server (so `kubectl apply` and Argo CD) ignores a namespace set on such an object. Charts write one
 * on their ClusterRoles, and a Helm render gets the release namespace on every object without one.
 * A namespaced object is read in the manifest's namespace, so its namespace never differs.
 */
function asServerScopes(manifest: KubeObject, live: KubeObject): KubeObject {
  const metadata = isPlainObject(manifest.metadata) ? manifest.metadata : undefined;
  if (metadata?.namespace === undefined) return manifest;
  if (isPlainObject(live.metadata) && live.metadata.namespace) return manifest;
  const { namespace: _ignored, ...rest } = metadata;
  return { ...manifest, metadata: rest };
}

function methodChanges(
  comparison: DirectComparison,
  manifest: KubeObject,
  live: KubeObject,
  hashSensitive: SensitiveHasher,
): AttributeChange[] {
  switch (comparison.method) {
    case 'server-side-dry-run': {
      // Both sides come from the same server; what it always rewrites (managedFields,
      // resourceVersion, generation, status...) is dropped by normalizeObject.
      const changes = diffKubeObjects(normalizeObject(comparison.predicted), normalizeObject(live), {
        mode: 'full',
        hashSensitive,
      });
      return [...changes, ...clientSideApplyRemovals(comparison, manifest, live, changes, hashSensitive)];
    }
    case 'openapi-normalised':
      return [
        ...diffKubeObjects(
          normalizeObject(comparison.schema.prepareDesired(manifest)),
          normalizeObject(live),
          { mode: 'declared', hashSensitive, schema: comparison.schema },
        ),
        ...removedFieldChanges(manifest, live, comparison.fieldManager, hashSensitive),
      ];
    case 'declared-fields':
      return [
        ...diffKubeObjects(normalizeObject(manifest), normalizeObject(live), {
          mode: 'declared',
          hashSensitive,
        }),
        ...removedFieldChanges(manifest, live, comparison.fieldManager, hashSensitive),
      ];
  }
}

/**
 * The dry-run drops what the applier's `Apply` entry alone owned. An object applied client-side
 * records its applier only in `last-applied-configuration`; its fields belong to an `Update` entry
 * (`kubectl-client-side-apply`) that a dry-run apply leaves in place, so the answer still has what
 * Git removed. A real `kubectl apply --server-side` first hands that entry's fields to its own
 * manager (client-go csaupgrade) and then removes them, and Argo CD's diff reads the annotation:
 * the removals come from the annotation here too, once each.
 */
function clientSideApplyRemovals(
  comparison: { fieldManager?: string },
  manifest: KubeObject,
  live: KubeObject,
  found: readonly AttributeChange[],
  hashSensitive: SensitiveHasher,
): AttributeChange[] {
  const applied = appliedFieldsOf(live, comparison.fieldManager ?? DEFAULT_FIELD_MANAGER);
  if (applied?.source !== 'last-applied-configuration') return [];
  const paths = new Set(found.map((change) => change.path));
  return changesRemovedFrom(applied, manifest, live, hashSensitive).filter(
    (change) => !paths.has(change.path),
  );
}

/**
 * Declared-field comparisons see only what the manifest sets: the fields the applier set earlier
 * and Git has since removed are added here (managed-fields.ts), `before` null as in Git. The
 * dry-run needs this only after a client-side apply (clientSideApplyRemovals).
 */
export function removedFieldChanges(
  manifest: KubeObject,
  live: KubeObject,
  fieldManager: string | undefined,
  hashSensitive: SensitiveHasher,
): AttributeChange[] {
  const applied = appliedFieldsOf(live, fieldManager ?? DEFAULT_FIELD_MANAGER);
  if (applied === undefined) return [];
  return changesRemovedFrom(applied, manifest, live, hashSensitive);
}

/** The changes for the fields `applied` holds that the manifest no longer sets. */
function changesRemovedFrom(
  applied: AppliedFields,
  manifest: KubeObject,
  live: KubeObject,
  hashSensitive: SensitiveHasher,
): AttributeChange[] {
  const { pruned, removed } = withoutRemovedFields(live, manifest, applied);
  if (removed === 0) return [];
  return diffKubeObjects(normalizeObject(pruned), normalizeObject(live), { mode: 'full', hashSensitive });
}
