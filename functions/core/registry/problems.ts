import { unicodeEscape } from '../text/sanitize.js';
import type { PathSegment } from './yaml-source.js';

export const DEFAULT_REGISTRY_FILE_NAME = 'driftwatch.yaml';

export interface RegistryProblem {
  /** Dotted path of the offending node, e.g. `workspaces[1].backend.bucket`; '' for the whole document. */
  path: string;
  /** 1-based line and column of the offending node (for a missing key: of the mapping that lacks it). */
  line?: number;
  column?: number;
  message: string;
  /** For an unknown key: the known key it most likely meant (`ownr` → `owner`); parseRegistry's own. */
  meant?: string;
}

/** Every problem found in a registry, not just the first: fixing them one run at a time is tedious. */
export class RegistryError extends Error {
  override readonly name = 'RegistryError';

  constructor(
    readonly problems: RegistryProblem[],
    readonly fileName: string = DEFAULT_REGISTRY_FILE_NAME,
  ) {
    super(problems.map((problem) => formatProblem(problem, fileName)).join('\n'));
  }
}

/** `driftwatch.yaml:14:7 workspaces[1].backend.bucket: required`, the shape editors and CI annotate. */
export function formatProblem(
  problem: RegistryProblem,
  fileName: string = DEFAULT_REGISTRY_FILE_NAME,
): string {
  const location =
    problem.line === undefined ? fileName : `${fileName}:${problem.line}:${problem.column ?? 1}`;
  return `${location} ${problem.path === '' ? '(root)' : problem.path}: ${problem.message}`;
}

const PLAIN_KEY = /^[A-Za-z_$][\w$-]*$/;
/** Characters of one key shown in a path or a message: a key 100,000 characters long is still one line. */
const SHOWN_KEY_LENGTH = 64;

/**
 * A key or name from the file, quoted as it reads: every character outside printable ASCII as
 * `\\uXXXX`, so that `owner\\u200b` (a zero-width space) or `own\\u0435r` (a Cyrillic e) does not
 * read as the key `owner`, nor a stripped escape sequence as another key; cut when very long. Every
 * key and name the registry defines is ASCII, so nothing that is right is made harder to read.
 */
export function quotedName(name: string): string {
  return `'${asciiText(name, (cut) => cut)}'`;
}

/** At most SHOWN_KEY_LENGTH characters of `text`, written by `write`, then in ASCII, then '…' if cut. */
function asciiText(text: string, write: (cut: string) => string): string {
  const cut = text.length > SHOWN_KEY_LENGTH ? text.slice(0, SHOWN_KEY_LENGTH - 1) : text;
  return `${write(cut).replace(/[^\x20-\x7e]/g, unicodeEscape)}${cut === text ? '' : '…'}`;
}

/** Levels of a path shown at each end; the ones between are counted (a path 5,000 levels deep is one line). */
const SHOWN_LEVELS = 8;

/** `['workspaces', 1, 'backend', 'bucket']` -> `workspaces[1].backend.bucket`; odd keys are quoted. */
export function formatPath(path: readonly PropertyKey[]): string {
  if (path.length > 2 * SHOWN_LEVELS) {
    const hidden = path.length - 2 * SHOWN_LEVELS;
    return `${formatPath(path.slice(0, SHOWN_LEVELS))}…(${hidden} levels)…${formatPath(path.slice(-SHOWN_LEVELS)).replace(/^(?!\[)/, '.')}`;
  }
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (typeof segment === 'string' && PLAIN_KEY.test(segment) && segment.length <= SHOWN_KEY_LENGTH)
      text += text === '' ? segment : `.${segment}`;
    // JSON, written in ASCII (as quotedName writes names): a look-alike or invisible character shows.
    else text += `["${asciiText(String(segment), (cut) => JSON.stringify(cut).slice(1, -1))}"]`;
  }
  return text;
}

/** Sorted by position so the report reads top to bottom like the file. */
export function sortByPosition(problems: RegistryProblem[]): RegistryProblem[] {
  return [...problems].sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
}

export function toPathSegments(path: readonly PropertyKey[]): PathSegment[] {
  return path.map((segment) => (typeof segment === 'number' ? segment : String(segment)));
}
