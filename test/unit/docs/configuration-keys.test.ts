import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registrySchema } from '../../../functions/core/registry/schema.js';
import { REPO_ROOT } from '../../helpers/integration.js';

/**
 * Every key the registry accepts is in the configuration reference (docs/configuration.md), so a
 * key added to the schema cannot stay a secret of the code (`requireKms`, a workspace's own lock
 * thresholds and `suppressions.maxDuration` were accepted for months and listed nowhere there).
 */

/** The key paths of a zod schema: `workspaces[].backend.bucket`, `policies.noise.*`. */
function schemaKeys(schema: unknown, path = '', keys: string[] = []): string[] {
  const def = (schema as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
  if (!def) return keys;
  const at = (key: string) => (path ? `${path}.${key}` : key);
  switch (def.type) {
    case 'object':
      for (const [key, value] of Object.entries(def.shape as Record<string, unknown>)) {
        keys.push(at(key));
        schemaKeys(value, at(key), keys);
      }
      break;
    case 'optional':
    case 'default':
    case 'prefault':
    case 'nullable':
    case 'readonly':
      schemaKeys(def.innerType, path, keys);
      break;
    case 'array':
      schemaKeys(def.element, `${path}[]`, keys);
      break;
    case 'pipe':
      schemaKeys(def.in, path, keys);
      break;
    case 'union':
      for (const option of def.options as unknown[]) schemaKeys(option, path, keys);
      break;
    case 'record':
      schemaKeys(def.valueType, at('*'), keys);
      break;
  }
  return [...new Set(keys)];
}

/**
 * The keys the reference lists, each with its item's text: one list item per key or group of keys,
 * `- \`workspaces[].id\`, \`.owner\` (…): …` (a leading dot continues the previous key's parent) or
 * `- \`locks.staleAfter.plan/apply/default\` (…)`.
 */
function referenceKeys(markdown: string): Map<string, string> {
  const keys = new Map<string, string>();
  for (const item of markdown.split(/\n(?=- )/)) {
    const head = /^- ((?:`[^`]+`(?:, )?)+)/.exec(item);
    if (!head) continue;
    let parent = '';
    for (const [, token] of head[1]!.matchAll(/`([^`]+)`/g)) {
      const full = (token!.startsWith('.') ? `${parent}${token}` : token!).replace(/\[\]$/, '');
      if (!token!.startsWith('.')) parent = full.slice(0, full.lastIndexOf('.'));
      const alternatives = /^(.*\.)([^.]*\/[^.]*)$/.exec(full);
      if (alternatives)
        for (const part of alternatives[2]!.split('/')) keys.set(`${alternatives[1]}${part}`, item);
      else keys.set(full, item);
    }
  }
  return keys;
}

/**
 * Schema keys the reference does not cover: listed themselves, under a `.*` key, or named in the
 * shape of a listed ancestor (`clusters[].kubernetes.eks` (`{cluster, region, …}`)). A workspace's
 * `moduleSources` and `registries` are "as at the top level": the top-level keys cover them.
 */
function undocumented(schemaPaths: readonly string[], reference: Map<string, string>): string[] {
  const lastKey = (path: string) => path.replace(/\[\]/g, '').split('.').at(-1)!;
  const covered = (path: string): boolean => {
    const topLevelEquivalent = /^workspaces\[\]\.((moduleSources|registries)\b.*)$/.exec(path)?.[1];
    if (topLevelEquivalent && covered(topLevelEquivalent)) return true;
    if (reference.has(path)) return true;
    for (const [key, item] of reference) {
      if (key.endsWith('.*') && path.startsWith(key.slice(0, -1))) return true;
      const below = path.startsWith(`${key}.`) || path.startsWith(`${key}[]`);
      const shape = item.slice(item.indexOf('('));
      if (below && new RegExp(`\\b${lastKey(path)}\\b`).test(shape)) return true;
    }
    // A key whose own keys are listed (`owners` by `owners.fallback`…) needs no line of its own.
    return [...reference.keys()].some((key) => key.startsWith(`${path}.`) || key.startsWith(`${path}[]`));
  };
  return schemaPaths.filter((path) => !covered(path));
}

describe('the configuration reference', () => {
  const reference = readFileSync(join(REPO_ROOT, 'docs', 'configuration.md'), 'utf8');
  const paths = schemaKeys(registrySchema);

  it('lists every key the registry accepts', () => {
    expect(undocumented(paths, referenceKeys(reference))).toEqual([]);
  });

  it('is read key by key: the schema walk finds nested keys, and a key left out is reported', () => {
    expect(paths).toEqual(
      expect.arrayContaining([
        'workspaces[].backend.requireKms',
        'policies.noise.equivalentProtocols',
        'clusters[].kubernetes.eks.roleArn',
        'workspaces[].sensitiveVars.*.secretsManager',
      ]),
    );
    const without = reference.replace(/^- `policies\.backend\.requireKms`.*\n(?: {2}.*\n)*/m, '');
    expect(without).not.toBe(reference);
    expect(undocumented(paths, referenceKeys(without))).toEqual([
      'policies.backend',
      'policies.backend.requireKms',
    ]);
  });
});
