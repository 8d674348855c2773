import type { FindingDraft } from '../findings/model.js';
import type { SensitiveHasher } from '../redaction/secrets.js';
import { listPaths } from '../terraform/remediation.js';
import { type ClusterFindingBuilder, clusterRemediation } from './cluster-findings.js';
import {
  describeObject,
  identityOf,
  type KubeObject,
  type ObjectIdentity,
  stringMap,
  trackingApplication,
} from './kube-object.js';
import { normalizeObject } from './normalize.js';
import { diffKubeObjects } from './object-diff.js';
import type { LiveObjectResult } from './ports.js';
import type { TrackedObject } from './tracked-object.js';

/**
 * Direct mode (no Argo CD): a rendered manifest versus the live object from the Kubernetes API.
 * Only the fields the manifest sets are compared, after normalisation; the defaults the API server
 * fills in are not drift.
 */
export function directObjectFindings(
  desired: KubeObject,
  live: LiveObjectResult,
  context: { builder: ClusterFindingBuilder; hashSensitive: SensitiveHasher; source: string },
): { drafts: FindingDraft[]; tracked: TrackedObject } {
  const { builder } = context;
  const declared = identityOf(desired)!;
  const liveObject = live.found ? live.object : undefined;
  // The live object knows its namespace even when the manifest left it to the context's default.
  const identity: ObjectIdentity = (liveObject && identityOf(liveObject)) || declared;
  const app = trackingApplication(liveObject ?? desired);
  const tracked: TrackedObject = {
    identity,
    labels: stringMap(liveObject ?? desired, 'labels'),
    annotations: stringMap(liveObject ?? desired, 'annotations'),
    source: 'manifests',
    ...(app === undefined ? {} : { app }),
  };
  const object = describeObject(identity);
  const cluster = builder.cluster.id;
  if (!live.found) {
    const notServed = live.reason === 'kind-not-served';
    const draft = builder.finding({
      ruleId: 'cluster.missing',
      app,
      identity,
      drift: { action: 'delete', changes: [] },
      title: `${object} is missing from cluster ${cluster}`,
      detail: notServed
        ? `${object} is declared in ${context.source}, but cluster ${cluster} does not serve its kind (${String(desired.apiVersion)} ${identity.kind}): is its CRD installed?`
        : `${object} is declared in ${context.source} but does not exist in cluster ${cluster}.`,
      evidence: { source: context.source, reason: live.reason },
      remediation: clusterRemediation.missing({ app }, object),
    });
    return { drafts: [draft], tracked };
  }

  const changes = diffKubeObjects(normalizeObject(desired), normalizeObject(live.object), {
    mode: 'declared',
    hashSensitive: context.hashSensitive,
  });
  if (changes.length === 0) return { drafts: [], tracked };
  const paths = changes.map((change) => change.path);
  const draft = builder.finding({
    ruleId: 'cluster.drift',
    app,
    identity,
    drift: { action: 'update', changes },
    title: `${object} in cluster ${cluster} differs from its manifest: ${listPaths(paths, 3)}`,
    detail: `The live ${object} differs from ${context.source} in ${changes.length} declared field${changes.length === 1 ? '' : 's'}.`,
    evidence: { source: context.source, compared: 'fields the manifest sets' },
    remediation: clusterRemediation.drift({ app, source: context.source }, paths),
  });
  return { drafts: [draft], tracked };
}
