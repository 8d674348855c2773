import type { KubeObject, ObjectIdentity } from './kube-object.js';
import { stringMap } from './kube-object.js';
import { type Applier, type ArgoTracking, applierOf } from './tracking.js';

/** An object the GitOps side declares (an Argo CD application's resource, or a rendered manifest). */
export interface TrackedObject {
  /**
   * The Argo CD application that manages it: from Argo CD itself in Argo CD mode; in direct mode only
   * when the instance's tracking method proves it (never from the Helm-set instance label alone).
   */
  app?: string;
  identity: ObjectIdentity;
  /** Live labels and annotations (desired ones when the object is not live), for Helm release matching. */
  labels: Record<string, string>;
  annotations: Record<string, string>;
  source: 'argocd' | 'manifests';
  /**
   * What git declares for it (Argo CD's `targetState`, or the rendered manifest): the fields the
   * GitOps side writes, matched against the fields a Terraform patch resource claims. Undefined when
   * only the application's status was read.
   */
  declared?: KubeObject;
  /** Direct mode: who applies the live object (managedFields, Helm annotations, last-applied). */
  applier?: Applier;
}

/**
 * A rendered manifest and its live object as a tracked object (direct mode). The application is
 * Argo CD's only when the live object's tracking proves it; the applier says who writes it anyway.
 */
export function trackedManifestObject(
  identity: ObjectIdentity,
  desired: KubeObject,
  live: KubeObject | undefined,
  tracking: ArgoTracking,
): TrackedObject {
  const object = live ?? desired;
  const applier = live === undefined ? undefined : applierOf(live, identity, tracking);
  return {
    identity,
    labels: stringMap(object, 'labels'),
    annotations: stringMap(object, 'annotations'),
    source: 'manifests',
    declared: desired,
    ...(applier?.type === 'argocd' ? { app: applier.app } : {}),
    ...(applier === undefined ? {} : { applier }),
  };
}
