import { nonEmptyString } from '../terraform/json-values.js';
import { type KubeObject, metadataOf, stringMap } from './kube-object.js';

/** Argo CD's sync hook annotation (PreSync, Sync, PostSync, SyncFail, PreDelete, PostDelete, Skip). */
export const ARGO_HOOK_ANNOTATION = 'argocd.argoproj.io/hook';
/** Helm's hook annotation (pre-install, post-upgrade, test...); Argo CD maps it to its own hooks. */
export const HELM_HOOK_ANNOTATION = 'helm.sh/hook';

/** A rendered object that is not expected to exist in the cluster, and why. */
export interface SkippedObject {
  kind: string;
  /** metadata.name, or `<generateName>*` for an object the server names. */
  name: string;
  namespace?: string;
  reason: string;
}

/**
 * A sync hook (Argo CD's or Helm's annotation): a live one is left over by its delete policy (e.g.
 * BeforeHookCreation), which Argo CD never prunes nor reports, so it is never extraneous either.
 */
export function isHook(object: KubeObject): boolean {
  const annotations = stringMap(object, 'annotations');
  return annotations[ARGO_HOOK_ANNOTATION] !== undefined || annotations[HELM_HOOK_ANNOTATION] !== undefined;
}

/**
 * Why a rendered object is not compared with the cluster, or undefined when it is:
 * - a hook (Argo CD or Helm) runs during a sync and is deleted by its delete policy, so its absence
 *   is not drift (Argo CD excludes hooks from the comparison too);
 * - an object with `generateName` and no `name` gets a new name on every apply: there is no one
 *   live object to read.
 */
export function skipReason(object: KubeObject): string | undefined {
  const annotations = stringMap(object, 'annotations');
  const argoHook = annotations[ARGO_HOOK_ANNOTATION];
  if (argoHook !== undefined) return `Argo CD hook (${ARGO_HOOK_ANNOTATION}: ${argoHook})`;
  const helmHook = annotations[HELM_HOOK_ANNOTATION];
  if (helmHook !== undefined) return `Helm hook (${HELM_HOOK_ANNOTATION}: ${helmHook})`;
  const metadata = metadataOf(object);
  if (nonEmptyString(metadata.name) === undefined && nonEmptyString(metadata.generateName) !== undefined)
    return 'generateName without a name: the server names each instance, there is no one object to read';
  return undefined;
}

/** The description of a skipped object for the scan's evidence (kind and name only, no content). */
export function describeSkipped(object: KubeObject, reason: string): SkippedObject {
  const metadata = metadataOf(object);
  const name = nonEmptyString(metadata.name) ?? `${nonEmptyString(metadata.generateName) ?? '(unnamed)'}*`;
  const namespace = nonEmptyString(metadata.namespace);
  return {
    kind: nonEmptyString(object.kind) ?? '(no kind)',
    name,
    ...(namespace === undefined ? {} : { namespace }),
    reason,
  };
}
