import { parseAllDocuments } from 'yaml';
import { identityOf, isPlainObject, type KubeObject } from './kube-object.js';

export class ManifestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ManifestError';
  }
}

/**
 * The objects of a multi-document YAML render (`kubectl kustomize`, `helm template`, CI's output).
 * `kind: List` documents are expanded; empty documents are skipped; a document that is not a
 * Kubernetes object (no apiVersion, kind or metadata.name) makes the whole render invalid, since
 * silently skipping it would hide its object's drift.
 */
export function parseManifests(text: string): KubeObject[] {
  const objects: KubeObject[] = [];
  for (const [index, document] of parseAllDocuments(text).entries()) {
    if (!('errors' in document)) continue;
    const problem = document.errors[0];
    if (problem !== undefined)
      throw new ManifestError(`document ${index + 1}: YAML syntax: ${problem.message.split('\n')[0]}`);
    const value: unknown = document.toJS();
    if (value === null || value === undefined) continue;
    for (const object of expandLists(value)) {
      if (identityOf(object) === undefined)
        throw new ManifestError(
          `document ${index + 1} is not a Kubernetes object (apiVersion, kind and metadata.name)`,
        );
      objects.push(object);
    }
  }
  return objects;
}

function expandLists(value: unknown): KubeObject[] {
  if (!isPlainObject(value)) throw new ManifestError('a document is not a mapping');
  if (typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items))
    return value.items.flatMap(expandLists);
  return [value];
}
