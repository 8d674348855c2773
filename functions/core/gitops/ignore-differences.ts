import type { AttributeChange } from '../findings/model.js';
import type { activeIgnoreRules } from '../terraform/noise.js';
import { objectAddress } from './cluster-rules.js';
import type { ObjectIdentity } from './kube-object.js';

export type ActiveIgnoreRule = ReturnType<typeof activeIgnoreRules>[number];

/**
 * The registry's `policies.ignore` rules applied to direct-mode drift, as Terraform findings apply
 * them (terraform/noise.ts): `address` globs the object as severity overrides do (`Kind/namespace/name`,
 * `Kind/name` when cluster-scoped), `path` globs the change's path (`spec.replicas`,
 * `metadata.annotations.*`); a path also covers what is under it. An expired rule (`until`) hides
 * nothing. Argo CD mode needs none of this: Argo CD applied the application's ignoreDifferences.
 */
export function withoutIgnoredChanges(
  changes: readonly AttributeChange[],
  identity: ObjectIdentity,
  rules: readonly ActiveIgnoreRule[],
): { kept: AttributeChange[]; ignored: { path: string; reason: string }[] } {
  const address = objectAddress(identity);
  const applicable = rules.filter((rule) => rule.matchesAddress(address));
  if (applicable.length === 0) return { kept: [...changes], ignored: [] };
  const kept: AttributeChange[] = [];
  const ignored: { path: string; reason: string }[] = [];
  for (const change of changes) {
    const paths = [...ancestorsOf(change.path), change.path];
    const rule = applicable.find((candidate) => paths.some((path) => candidate.matchesPath(path)));
    if (rule === undefined) kept.push(change);
    else ignored.push({ path: change.path, reason: rule.reason });
  }
  return { kept, ignored };
}

/** `spec.template.spec.containers[0].image` → `spec`, `spec.template`, …, `…containers`, `…containers[0]`. */
export function ancestorsOf(path: string): string[] {
  const result: string[] = [];
  let depth = 0;
  let quoted = false;
  for (let index = 0; index < path.length; index++) {
    const char = path[index];
    if (quoted) {
      if (char === '\\') index++;
      else if (char === '"') quoted = false;
      continue;
    }
    if (char === '"') quoted = true;
    else if (char === '[') {
      if (depth === 0 && index > 0) result.push(path.slice(0, index));
      depth++;
    } else if (char === ']') depth--;
    else if (char === '.' && depth === 0) result.push(path.slice(0, index));
  }
  return result;
}
