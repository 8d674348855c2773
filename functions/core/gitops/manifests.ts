import { parseAllDocuments, type ScalarTag, type Tags } from 'yaml';
import { describeSkipped, type SkippedObject, skipReason } from './hooks.js';
import { identityOf, isPlainObject, type KubeObject } from './kube-object.js';

export class ManifestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ManifestError';
  }
}

/**
 * YAML's integers as kubectl, Helm and Argo CD read manifests: with sigs.k8s.io/yaml (go-yaml), which
 * keeps YAML 1.1's octal integers, so a plain `0644` is 420. YAML 1.2's core schema, this parser's
 * default, reads it as decimal 644: a volume's `defaultMode: 0644` (what charts and kustomize bases
 * write for ConfigMap and Secret volumes) would be drift against the live 420 in the compared-field
 * methods, and a dry-run the server refuses as invalid (644 > 0777). `0o644` and `0x1a4` read the
 * same in both; a digit 8 or 9 makes no octal number (`08` is 8, as go-yaml reads it).
 */
const OCTAL_AS_KUBERNETES_READS_IT: ScalarTag = {
  tag: 'tag:yaml.org,2002:int',
  default: true,
  // For reading only: written back (a Helm render with its namespace set), the value is a plain integer.
  identify: () => false,
  test: /^[-+]?0[0-7]+$/,
  resolve: (text) => (text.startsWith('-') ? -1 : 1) * Number.parseInt(text.replace(/^[-+]/, ''), 8),
};

/** Options for `parseAllDocuments` of a render, wherever it is read (see above). */
export const KUBERNETES_YAML = {
  customTags: (tags: Tags): Tags => [OCTAL_AS_KUBERNETES_READS_IT, ...tags],
} as const;

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
  for (const [index, document] of parseAllDocuments(text, KUBERNETES_YAML).entries()) {
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
