/**
 * parseRegistry: driftwatch.yaml text in, a validated Registry out, or a RegistryError listing
 * every problem with its path, line and column. Pure: the caller reads the file.
 */
import type { YAMLError } from 'yaml';
import { describeIssue, describeValue, problemFromIssue } from './issues.js';
import { firstLookAlike } from './look-alike.js';
import type { Registry } from './model.js';
import {
  DEFAULT_REGISTRY_FILE_NAME,
  formatPath,
  quotedName,
  RegistryError,
  type RegistryProblem,
  sortByPosition,
} from './problems.js';
import { checkReferences } from './references.js';
import { registrySchema } from './schema.js';
import { type PathSegment, YamlSource } from './yaml-source.js';

export { parseDuration } from './duration.js';
export { RegistryError, type RegistryProblem } from './problems.js';

export interface ParseRegistryOptions {
  /** Shown at the start of each problem line; defaults to driftwatch.yaml. */
  fileName?: string;
}

const EXPECTED_TOP_LEVEL = 'expected a mapping with version, owners and workspaces';

export function parseRegistry(text: string, options: ParseRegistryOptions = {}): Registry {
  const fileName = options.fileName ?? DEFAULT_REGISTRY_FILE_NAME;
  const source = YamlSource.parse(text);
  const raw = readDocument(source);
  if ('problems' in raw) throw new RegistryError(raw.problems, fileName);
  withoutExtensionKeys(raw.value);

  // reportInput: problemFromIssue needs the offending value to keep it out of the message.
  const result = registrySchema.safeParse(raw.value, { error: describeIssue, reportInput: true });
  const problems = [
    ...(result.success ? [] : result.error.issues.map((issue) => problemFromIssue(issue, source))),
    ...checkReferences(raw.value, source),
  ];
  if (!result.success || problems.length > 0)
    throw new RegistryError(sortByPosition(withTyposMerged(problems)), fileName);
  return result.data;
}

/**
 * A mistyped required key is one mistake, not two: `ownr: platform` gave `owner: required` and
 * `unknown key 'ownr'; did you mean 'owner'?`. The unknown key's line stays, and says the key it
 * meant is required; the other goes.
 */
function withTyposMerged(problems: readonly RegistryProblem[]): RegistryProblem[] {
  const parentOf = (path: string) => path.slice(0, Math.max(0, path.lastIndexOf('.')));
  const required = new Map(
    problems
      .filter((problem) => problem.message.startsWith('required'))
      .map((problem) => [problem.path, problem]),
  );
  const merged = new Set<RegistryProblem>();
  const out = problems.map(({ meant, ...problem }) => {
    if (meant === undefined) return problem;
    const parent = parentOf(problem.path);
    const missing = required.get(parent === '' ? meant : `${parent}.${meant}`);
    if (missing === undefined || merged.has(missing)) return problem;
    merged.add(missing);
    return { ...problem, message: `${problem.message} (${quotedName(meant)} is required)` };
  });
  return out.filter((_problem, index) => !merged.has(problems[index]!));
}

/**
 * Top-level keys starting with `x-` are extension fields, as in Compose files: a place to define
 * anchors (`x-backend: &backend {...}`) that entries then merge or alias. Everything else stays strict.
 */
function withoutExtensionKeys(document: unknown): void {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) return;
  for (const key of Object.keys(document))
    if (key.startsWith('x-')) delete (document as Record<string, unknown>)[key];
}

/**
 * The document as a plain value, or the problems that prevent reading it. YAML syntax errors stop
 * here: after one, the parser's recovered tree is a guess, and checking a guess produces problems
 * that are not in the file.
 */
function readDocument(
  source: YamlSource,
): { value: Record<string, unknown> } | { problems: RegistryProblem[] } {
  const syntaxErrors = source.syntaxErrors();
  if (syntaxErrors.length > 0)
    return { problems: withoutTabEchoes(syntaxErrors).map((error) => syntaxProblem(error, source)) };
  const structure = source.structureProblems();
  if (structure.length > 0)
    return {
      problems: structure.map(({ offset, message }) => ({
        path: formatPath(source.pathAt(offset)),
        ...source.offsetToPosition(offset),
        message,
      })),
    };

  let value: unknown;
  try {
    value = source.toJS();
  } catch (error) {
    // Every alias resolves and none is cyclic: what is left is an alias bomb, the whole document's doing.
    const offset = source.firstAlias() ?? 0;
    const problem = {
      path: formatPath(source.pathAt(offset)),
      ...source.offsetToPosition(offset),
      message: `cannot read the YAML: ${(error as Error).message}; use fewer aliases`,
    };
    return { problems: [problem] };
  }
  if (value === null || value === undefined) {
    return {
      problems: [{ path: '', line: 1, column: 1, message: `the document is empty; ${EXPECTED_TOP_LEVEL}` }],
    };
  }
  if (typeof value !== 'object' || Array.isArray(value) || value instanceof Date) {
    const position = source.positionOf([]);
    const message = `${EXPECTED_TOP_LEVEL}, got ${describeValue(value)}`;
    return { problems: [{ path: '', ...position, message }] };
  }
  return { value: value as Record<string, unknown> };
}

/**
 * After a tab used as indentation the parser reads what follows at another depth, and reports that
 * (`All mapping items must start at the same column`, `Implicit map keys need to be followed by map
 * values`…: five more lines for one tab in a workspace entry), burying the one line that says what to
 * fix. Errors after the first tab are left out, except other tabs; what remains shows on the next run.
 */
function withoutTabEchoes(errors: readonly YAMLError[]): readonly YAMLError[] {
  const tab = errors.find((error) => error.code === 'TAB_AS_INDENT');
  if (tab === undefined) return errors;
  return errors.filter((error) => error.code === 'TAB_AS_INDENT' || error.pos[0] < tab.pos[0]);
}

function syntaxProblem(error: YAMLError, source: YamlSource): RegistryProblem {
  const offset = error.pos[0];
  const path = source.pathAt(offset);
  const position = source.offsetToPosition(offset);
  const message = syntaxMessage(error, path, source);
  return {
    path: formatPath(path),
    ...position,
    message: `${message}${lookAlikeHint(position.line, source)}`,
  };
}

/**
 * A character pasted from a web page on the line of a syntax error (or the line before, where the
 * parser often notices it only on the next): the cause the parser's message does not name.
 */
function lookAlikeHint(line: number, source: YamlSource): string {
  for (const at of [line, line - 1]) {
    const found = at >= 1 ? firstLookAlike(source.lineText(at)) : undefined;
    if (found)
      return `; line ${at} column ${found.index + 1} holds ${found.description}: type the plain ASCII character there`;
  }
  return '';
}

function syntaxMessage(error: YAMLError, path: readonly PathSegment[], source: YamlSource): string {
  const detail = error.message.replace(/\s+/g, ' ').trim();
  switch (error.code) {
    case 'DUPLICATE_KEY': {
      // Lookup by path finds the first pair with this key: the one the duplicate repeats.
      const first = source.positionOf(path, 'key');
      return `duplicate key ${quotedName(String(path[path.length - 1] ?? ''))} (first at line ${first.line}): each key may appear only once in a mapping`;
    }
    case 'TAB_AS_INDENT':
      return `YAML syntax: ${detail}; indent with spaces`;
    case 'MULTIPLE_DOCS':
      // The library's own text asks the caller to use another of its functions: no use to a reader.
      return 'a second YAML document starts here (after a `---` line): a registry is one document; remove the `---` or what follows it';
    case 'RESOURCE_EXHAUSTION':
      // The reader's own stack overflowed ("Maximum call stack size exceeded"): say what caused it.
      return 'YAML nested too deeply to read (a registry is a few levels deep): is it the right file?';
    default:
      return `YAML syntax: ${detail}`;
  }
}
