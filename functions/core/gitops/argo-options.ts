import type { ArgoApplication } from './argo-api.js';
import { type KubeObject, stringMap } from './kube-object.js';

/**
 * Argo CD's own comparison and sync options, read as Argo CD reads them, so driftwatch does not
 * second-guess them: `argocd.argoproj.io/compare-options` and `argocd.argoproj.io/sync-options` on an
 * object (comma-separated, white space trimmed: docs/user-guide/sync-options.md), the application's
 * `spec.syncPolicy.syncOptions`, and `spec.syncPolicy.automated` (with Argo CD 3.x's `enabled`).
 */

export const COMPARE_OPTIONS_ANNOTATION = 'argocd.argoproj.io/compare-options';
export const SYNC_OPTIONS_ANNOTATION = 'argocd.argoproj.io/sync-options';

/** `Prune=false,ServerSideApply=true` → `['Prune=false', 'ServerSideApply=true']`. */
function options(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((option) => option.trim())
    .filter((option) => option !== '');
}

/** The value of `Name=value` among options, or undefined (Argo CD's `HasAnnotationOption`). */
function optionValue(list: readonly string[], name: string): string | undefined {
  for (const option of list) {
    const [key, value] = option.split('=', 2);
    if (key?.trim() === name) return value?.trim() ?? '';
  }
  return undefined;
}

/** `compare-options: IgnoreExtraneous`: an extraneous object does not make its application OutOfSync. */
export function ignoresExtraneous(object: KubeObject | undefined): boolean {
  if (object === undefined) return false;
  return options(stringMap(object, 'annotations')[COMPARE_OPTIONS_ANNOTATION]).includes('IgnoreExtraneous');
}

export interface AutomatedSync {
  /** `automated` is set and not `enabled: false` (Argo CD 3.x can keep the block but switch it off). */
  enabled: boolean;
  prune: boolean;
  selfHeal: boolean;
}

export function automatedSync(application: ArgoApplication): AutomatedSync {
  const automated = application.spec?.syncPolicy?.automated ?? undefined;
  const enabled = automated !== undefined && automated.enabled !== false;
  return {
    enabled,
    prune: enabled && automated?.prune === true,
    selfHeal: enabled && automated?.selfHeal === true,
  };
}

/** Why Argo CD will not prune an object on its own, or undefined when automated sync prunes it. */
export type PruneHold =
  | { by: 'annotation' | 'application'; option: 'Prune=false' | 'Prune=confirm' }
  | { by: 'sync-policy'; option: 'no automated prune' };

/**
 * An object's `Prune=…` sync option overrides the application's (sync-options.md: "setting a Prune
 * sync option on the resource will always override a Prune sync policy defined in the
 * Application"); then the application's `syncOptions`; then `automated.prune`.
 */
export function pruneHold(application: ArgoApplication, live: KubeObject | undefined): PruneHold | undefined {
  const own = live
    ? optionValue(options(stringMap(live, 'annotations')[SYNC_OPTIONS_ANNOTATION]), 'Prune')
    : undefined;
  if (own === 'false' || own === 'confirm') return { by: 'annotation', option: `Prune=${own}` };
  if (own !== 'true') {
    const applicationOption = optionValue(applicationSyncOptions(application), 'Prune');
    if (applicationOption === 'false' || applicationOption === 'confirm')
      return { by: 'application', option: `Prune=${applicationOption}` };
  }
  return automatedSync(application).prune ? undefined : { by: 'sync-policy', option: 'no automated prune' };
}

/** Why the object stays, in a finding's words (both modes say it the same way). */
export function pruneHoldReason(hold: PruneHold, app: string): string {
  switch (hold.by) {
    case 'annotation':
      return `its annotation argocd.argoproj.io/sync-options: ${hold.option} keeps Argo CD from pruning it${hold.option === 'Prune=confirm' ? ' until someone confirms' : ''}`;
    case 'application':
      return `application ${app}'s syncOptions (${hold.option}) keep Argo CD from pruning it`;
    case 'sync-policy':
      return `application ${app} does not prune automatically (syncPolicy.automated.prune is not true, or automated sync is disabled)`;
  }
}

function applicationSyncOptions(application: ArgoApplication): string[] {
  const list = application.spec?.syncPolicy?.syncOptions ?? [];
  return list.flatMap((option) => options(option));
}
