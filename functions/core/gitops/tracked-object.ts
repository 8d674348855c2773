import type { ObjectIdentity } from './kube-object.js';

/** An object the GitOps side declares (an Argo CD application's resource, or a rendered manifest). */
export interface TrackedObject {
  /** The Argo CD application that manages it, when known. */
  app?: string;
  identity: ObjectIdentity;
  /** Live labels and annotations (desired ones when the object is not live), for Helm release matching. */
  labels: Record<string, string>;
  annotations: Record<string, string>;
  source: 'argocd' | 'manifests';
}
