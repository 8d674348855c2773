/**
 * Where a resource is declared: the file and line of its `resource "<type>" "<name>"` block, found by
 * reading the module's `.tf` files with a small HCL lexer (comments, quoted strings with their
 * interpolations, heredocs and braces), so a header inside a comment, a string or a heredoc is never
 * taken for a block. Pure: the caller reads the files. The full HCL parser (@cdktn/hcl2json) gives no
 * line numbers, which is what a reviewer needs here.
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';

export interface SourceFile {
  /** As shown to the reader: relative to the root module (`main.tf`, `modules/db/main.tf`). */
  path: string;
  text: string;
}

export interface TopLevelBlock {
  /** `resource`, `module`, `variable`, … */
  type: string;
  labels: string[];
  /** 1-based line of the block's first word. */
  line: number;
  /** String attributes set directly in the block body (`source = "./modules/db"`), literal values only. */
  attributes: Record<string, string>;
}

type Token =
  | { kind: 'word'; text: string; line: number }
  | { kind: 'string'; value: string | undefined; line: number }
  | { kind: 'open' | 'close' | 'equals' | 'newline' | 'other'; line: number };

/** The top-level blocks of one file, in order. */
export function topLevelBlocks(text: string): TopLevelBlock[] {
  const blocks: TopLevelBlock[] = [];
  let depth = 0;
  let statement: Token[] = [];
  let current: TopLevelBlock | undefined;
  let body: Token[] = [];
  for (const token of tokenize(text)) {
    if (token.kind === 'open') {
      if (depth === 0) {
        const [head, ...labels] = statement;
        if (
          head?.kind === 'word' &&
          labels.every((label) => label.kind === 'string' || label.kind === 'word')
        ) {
          current = {
            type: head.text,
            labels: labels.map((label) =>
              label.kind === 'string' ? (label.value ?? '') : (label as { text: string }).text,
            ),
            line: head.line,
            attributes: {},
          };
          blocks.push(current);
        } else current = undefined;
        statement = [];
        body = [];
      } else if (depth === 1) body = [];
      depth++;
      continue;
    }
    if (token.kind === 'close') {
      depth = Math.max(0, depth - 1);
      if (depth === 0) current = undefined;
      body = [];
      continue;
    }
    if (depth === 0) {
      if (token.kind === 'newline') statement = [];
      else statement.push(token);
      continue;
    }
    if (depth === 1 && current) {
      if (token.kind === 'newline') {
        const [name, equals, value, ...more] = body;
        if (
          name?.kind === 'word' &&
          equals?.kind === 'equals' &&
          value?.kind === 'string' &&
          value.value !== undefined &&
          more.length === 0
        )
          current.attributes[name.text] = value.value;
        body = [];
      } else body.push(token);
    }
  }
  return blocks;
}

/** The first `resource "<type>" "<name>"` block among the files (files in the order given). */
export function findResourceBlock(
  files: readonly SourceFile[],
  type: string,
  name: string,
): { file: string; line: number } | undefined {
  for (const file of files) {
    if (file.path.endsWith('.json')) {
      const line = findInJsonConfiguration(file.text, type, name);
      if (line !== undefined) return { file: file.path, line };
      continue;
    }
    for (const block of topLevelBlocks(file.text))
      if (block.type === 'resource' && block.labels[0] === type && block.labels[1] === name)
        return { file: file.path, line: block.line };
  }
  return undefined;
}

/** The `source` of `module "<name>"` among the files, if it is a literal string. */
export function findModuleSource(files: readonly SourceFile[], name: string): string | undefined {
  for (const file of files) {
    if (file.path.endsWith('.json')) {
      const source = moduleSourceInJson(file.text, name);
      if (source !== undefined) return source;
      continue;
    }
    for (const block of topLevelBlocks(file.text))
      if (block.type === 'module' && block.labels[0] === name) return block.attributes.source;
  }
  return undefined;
}

/** A relative module source (`./modules/db`, `../modules/network`): the only kind that is a directory beside the caller. */
export function isLocalModuleSource(source: string): boolean {
  return source.startsWith('./') || source.startsWith('../');
}

/**
 * The line of `"resource": {"<type>": {"<name>": …}}` in a `.tf.json` file: the name's key, found
 * by walking the JSON (not by searching lines, which finds a `data` block of the same type, or a
 * value that spells the name, first). Terraform's JSON syntax may give any block level as a list
 * of objects (`"resource": [{…}, {…}]`); lists are walked through.
 */
function findInJsonConfiguration(text: string, type: string, name: string): number | undefined {
  try {
    JSON.parse(text);
  } catch {
    return undefined;
  }
  return lineOfJsonKey(text, ['resource', type, name]);
}

function moduleSourceInJson(text: string, name: string): string | undefined {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return undefined;
  }
  for (const modules of jsonBodies((document as { module?: unknown } | null)?.module))
    for (const call of jsonBodies(modules[name])) if (typeof call.source === 'string') return call.source;
  return undefined;
}

/** One JSON object or a list of them: how Terraform's JSON syntax writes a block. */
function jsonBodies(value: unknown): Array<Record<string, unknown>> {
  const list = Array.isArray(value) ? value : [value];
  return list.filter(
    (item): item is Record<string, unknown> =>
      typeof item === 'object' && item !== null && !Array.isArray(item),
  );
}

/**
 * 1-based line of the first object key at `path` (keys from the top; lists are transparent). Valid
 * JSON only: read with the YAML parser (JSON is YAML 1.2), which keeps each key's position.
 */
function lineOfJsonKey(text: string, path: readonly string[]): number | undefined {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, uniqueKeys: false });
  const find = (node: unknown, depth: number): number | undefined => {
    if (isSeq(node)) {
      for (const item of node.items) {
        const found = find(item, depth);
        if (found !== undefined) return found;
      }
    } else if (isMap(node)) {
      for (const pair of node.items) {
        if (!isScalar(pair.key) || pair.key.value !== path[depth]) continue;
        if (depth === path.length - 1) return lineCounter.linePos(pair.key.range?.[0] ?? 0).line;
        const found = find(pair.value, depth + 1);
        if (found !== undefined) return found;
      }
    }
    return undefined;
  };
  return find(document.contents, 0);
}

/** HCL tokens, enough to find block headers and literal attributes; everything else is `other`. */
function* tokenize(text: string): Generator<Token> {
  // A byte order mark (editors on Windows write one) is not part of the first line: HCL skips it too.
  let index = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  const length = text.length;
  while (index < length) {
    const char = text[index]!;
    if (char === '\n') {
      yield { kind: 'newline', line };
      line++;
      index++;
      continue;
    }
    if (char === ' ' || char === '\t' || char === '\r') {
      index++;
      continue;
    }
    if (char === '#' || (char === '/' && text[index + 1] === '/')) {
      while (index < length && text[index] !== '\n') index++;
      continue;
    }
    if (char === '/' && text[index + 1] === '*') {
      const end = text.indexOf('*/', index + 2);
      const stop = end < 0 ? length : end + 2;
      line += countNewlines(text, index, stop);
      index = stop;
      continue;
    }
    if (char === '"') {
      const start = line;
      const { end, value, newlines } = readQuoted(text, index);
      line += newlines;
      index = end;
      yield { kind: 'string', value, line: start };
      continue;
    }
    if (char === '<' && text[index + 1] === '<') {
      const heredoc = /^<<-?([A-Za-z_][A-Za-z0-9_-]*)\r?\n/.exec(text.slice(index, index + 260));
      if (heredoc) {
        const marker = heredoc[1]!;
        const start = line;
        let cursor = index + heredoc[0].length;
        line++;
        // The heredoc ends at the first line that is the marker alone (leading spaces allowed).
        while (cursor < length) {
          const next = text.indexOf('\n', cursor);
          const lineEnd = next < 0 ? length : next;
          if (text.slice(cursor, lineEnd).trim() === marker) {
            cursor = lineEnd;
            break;
          }
          cursor = lineEnd + 1;
          line++;
        }
        index = cursor;
        yield { kind: 'other', line: start };
        continue;
      }
    }
    if (char === '{') {
      yield { kind: 'open', line };
      index++;
      continue;
    }
    if (char === '}') {
      yield { kind: 'close', line };
      index++;
      continue;
    }
    if (char === '=' && text[index + 1] !== '=' && text[index + 1] !== '>') {
      yield { kind: 'equals', line };
      index++;
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(text.slice(index, index + 256));
    if (word) {
      yield { kind: 'word', text: word[0], line };
      index += word[0].length;
      continue;
    }
    yield { kind: 'other', line };
    index++;
  }
}

/**
 * A quoted string from its opening quote: where it ends, its value when it has no interpolation
 * (escapes decoded as JSON decodes them), and the newlines inside its interpolations.
 */
function readQuoted(
  text: string,
  start: number,
): { end: number; value: string | undefined; newlines: number } {
  let index = start + 1;
  let literal = true;
  let newlines = 0;
  while (index < text.length) {
    const char = text[index]!;
    if (char === '\\') {
      index += 2;
      continue;
    }
    if (char === '"') break;
    if (char === '\n') {
      // A quoted string cannot span lines: HCL reports it; stop here so one typo does not hide the rest.
      break;
    }
    if ((char === '$' || char === '%') && text[index + 1] === '{') {
      if (text[index - 1] === char) {
        index += 2;
        continue;
      }
      literal = false;
      const closed = skipInterpolation(text, index + 2);
      newlines += countNewlines(text, index, closed);
      index = closed;
      continue;
    }
    index++;
  }
  const end = Math.min(index + 1, text.length);
  let value: string | undefined;
  if (literal) {
    try {
      value = JSON.parse(
        text
          .slice(start, end)
          .replace(/\$\$\{/g, '${')
          .replace(/%%\{/g, '%{'),
      ) as string;
    } catch {
      value = undefined;
    }
  }
  return { end, value, newlines };
}

/** From just inside `${`: the index after its matching `}` (strings inside it skipped). */
function skipInterpolation(text: string, from: number): number {
  let depth = 1;
  let index = from;
  while (index < text.length && depth > 0) {
    const char = text[index]!;
    if (char === '"') {
      index = readQuoted(text, index).end;
      continue;
    }
    if (char === '{') depth++;
    else if (char === '}') depth--;
    index++;
  }
  return index;
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let index = from; index < to; index++) if (text.charCodeAt(index) === 10) count++;
  return count;
}
