import { parseAllDocuments } from 'yaml';
import { describeSkipped, type SkippedObject, skipReason } from './hooks.js';
import { identityOf, isPlainObject, type KubeObject } from './kube-object.js';

export class ManifestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ManifestError';
  }
}

/** The objects to compare with the cluster, and those a render holds that are not expected to exist. */
export interface ParsedRender {
  objects: KubeObject[];
  skipped: SkippedObject[];
}

/** The objects of a render to compare with the cluster (hooks and generateName objects left out). */
export function parseManifests(text: string): KubeObject[] {
  return parseRender(text).objects;
}

/**
 * The objects of a multi-document YAML render (`kubectl kustomize`, `helm template`, CI's output).
 * `kind: List` documents are expanded; empty documents are skipped; hooks and generateName objects
 * are set apart with the reason (see hooks.ts); a document that is not a Kubernetes object (no
 * apiVersion, kind or metadata.name) makes the whole render invalid, since silently skipping it
 * would hide its object's drift.
 */
export function parseRender(text: string): ParsedRender {
  const objects: KubeObject[] = [];
  const skipped: SkippedObject[] = [];
  for (const [index, document] of parseAllDocuments(text).entries()) {
    if (!('errors' in document)) continue;
    const problem = document.errors[0];
    if (problem !== undefined)
      throw new ManifestError(`document ${index + 1}: YAML syntax: ${problem.message.split('\n')[0]}`);
    const value: unknown = document.toJS();
    if (value === null || value === undefined) continue;
    for (const object of expandLists(value)) {
      const skip = skipReason(object);
      if (skip !== undefined) {
        skipped.push(describeSkipped(object, skip));
        continue;
      }
      if (identityOf(object) === undefined)
        throw new ManifestError(
          `document ${index + 1} is not a Kubernetes object (apiVersion, kind and metadata.name)`,
        );
      objects.push(object);
    }
  }
  return { objects, skipped };
}

function expandLists(value: unknown): KubeObject[] {
  if (!isPlainObject(value)) throw new ManifestError('a document is not a mapping');
  if (typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items))
    return value.items.flatMap(expandLists);
  return [value];
}
