import { SENSITIVE_MARKER } from '../redaction/secrets.js';
import type { PathSegment } from '../terraform/plan-model.js';

/**
 * A finding's change path back into segments: the inverse of `formatPath`
 * (functions/core/terraform/attribute-path.ts). `ingress[0].cidr_blocks[1]` →
 * `['ingress', 0, 'cidr_blocks', 1]`; `tags["kubernetes.io/role"]` → `['tags', 'kubernetes.io/role']`;
 * `''` → `[]` (the whole value). Undefined for text formatPath cannot have written.
 */
export function parseChangePath(path: string): PathSegment[] | undefined {
  const segments: PathSegment[] = [];
  let index = 0;
  while (index < path.length) {
    const char = path[index];
    if (char === '[') {
      if (path[index + 1] === '"') {
        const end = closingQuote(path, index + 2);
        if (end < 0 || path[end + 1] !== ']') return undefined;
        let key: unknown;
        try {
          key = JSON.parse(path.slice(index + 1, end + 1));
        } catch {
          return undefined;
        }
        if (typeof key !== 'string') return undefined;
        segments.push(key);
        index = end + 2;
        continue;
      }
      const match = /^\[(\d+)\]/.exec(path.slice(index));
      if (!match) return undefined;
      segments.push(Number(match[1]));
      index += match[0].length;
      continue;
    }
    if (char === '.') {
      if (segments.length === 0) return undefined;
      index++;
    } else if (segments.length > 0) return undefined;
    const match = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(path.slice(index));
    if (!match) return undefined;
    segments.push(match[0]);
    index += match[0].length;
  }
  return segments;
}

/** The index of the `"` that ends a JSON string whose content starts at `from`, or -1. */
function closingQuote(text: string, from: number): number {
  for (let index = from; index < text.length; index++) {
    if (text[index] === '\\') index++;
    else if (text[index] === '"') return index;
  }
  return -1;
}

/** A redacted value (`(sensitive:1a2b3c4d)`): the scan hashed it, the value is not known here. */
export function isRedacted(value: unknown): boolean {
  return typeof value === 'string' && SENSITIVE_MARKER.test(value);
}

/**
 * Attributes whose string value is a JSON document: the scan diffs inside the document
 * (`policy.Statement[0].Action`), so such a path does not name an HCL attribute or block.
 */
const JSON_DOCUMENT_ATTRIBUTES: ReadonlySet<string> = new Set([
  'policy',
  'assume_role_policy',
  'access_policies',
  'container_definitions',
  'event_pattern',
  'redrive_policy',
  'redrive_allow_policy',
  'template_body',
  'task_role_policy',
  'resource_policy',
  'delivery_policy',
  'key_policy',
]);

/**
 * Where a path enters a JSON document held in a string attribute: the index of that attribute's
 * segment, when segments follow it (`['policy', 'Statement', 0, 'Action']` → 0). The plan's JSON
 * does not say which strings hold documents; these names are the attributes of the AWS provider
 * (and others) that do, plus any `*_policy`.
 */
export function jsonDocumentIndex(segments: readonly PathSegment[]): number | undefined {
  for (let index = 0; index < segments.length - 1; index++) {
    const segment = segments[index];
    if (typeof segment !== 'string') continue;
    if (JSON_DOCUMENT_ATTRIBUTES.has(segment) || segment.endsWith('_policy')) return index;
  }
  return undefined;
}
