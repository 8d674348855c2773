import { escapeInvisible, limitText, visibleJson } from '../text/sanitize.js';
import type { PathSegment } from './yaml-source.js';

export const DEFAULT_REGISTRY_FILE_NAME = 'driftwatch.yaml';

export interface RegistryProblem {
  /** Dotted path of the offending node, e.g. `workspaces[1].backend.bucket`; '' for the whole document. */
  path: string;
  /** 1-based line and column of the offending node (for a missing key: of the mapping that lacks it). */
  line?: number;
  column?: number;
  message: string;
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
 * A key or name from the file, quoted as it reads: invisible characters (escape sequences, zero-width
 * spaces, line breaks) as `\\uXXXX`, so that `owner\\u200b` does not read as the key `owner`, nor a
 * stripped escape sequence as another key; cut when very long.
 */
export function quotedName(name: string): string {
  return `'${limitText(escapeInvisible(name), SHOWN_KEY_LENGTH)}'`;
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
    else text += `[${visibleJson(limitText(String(segment), SHOWN_KEY_LENGTH))}]`;
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
