import type { PathSegment } from './plan-model.js';

/** Terraform identifiers (attribute names, most tag keys) print bare; anything else is quoted. */
export function isIdentifier(text: string): boolean {
  if (text.length === 0) return false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const letter = (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || code === 0x5f;
    if (letter) continue;
    if (index > 0 && ((code >= 0x30 && code <= 0x39) || code === 0x2d)) continue;
    return false;
  }
  return true;
}

/**
 * `['ingress', 0, 'cidr_blocks', 1]` → `ingress[0].cidr_blocks[1]`;
 * `['tags', 'kubernetes.io/role']` → `tags["kubernetes.io/role"]`; `[]` → `''`.
 */
export function formatPath(segments: readonly PathSegment[]): string {
  let path = '';
  for (const segment of segments) {
    if (typeof segment === 'number') path += `[${segment}]`;
    else if (isIdentifier(segment)) path += path === '' ? segment : `.${segment}`;
    else path += `[${JSON.stringify(segment)}]`;
  }
  return path;
}
