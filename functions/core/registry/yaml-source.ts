import {
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  type ParsedNode,
  parseDocument,
  visit,
  type YAMLError,
} from 'yaml';

export type PathSegment = string | number;
export interface Position {
  line: number;
  column: number;
}

/** Where a problem points: at the value of a key (the default) or at the key itself (unknown keys). */
export type PositionTarget = 'value' | 'key';

/**
 * The registry's YAML text parsed with positions kept, so that problems found later in the plain
 * JavaScript value can point back at the line and column of the node they are about.
 */
export class YamlSource {
  private constructor(
    private readonly document: Document.Parsed,
    private readonly lineCounter: LineCounter,
    private readonly text: string,
  ) {}

  static parse(text: string): YamlSource {
    const lineCounter = new LineCounter();
    // YAML 1.2 core schema (the default): `no`, `on` and `2027-03-01` stay strings. Merge keys
    // (`<<: *anchor`, from YAML 1.1) are read: people share a backend block that way.
    const document = parseDocument(text, { lineCounter, merge: true, prettyErrors: false, uniqueKeys: true });
    return new YamlSource(document, lineCounter, text);
  }

  /** The text of a 1-based line, without its line break ('' past the end). */
  lineText(line: number): string {
    const start = this.lineCounter.lineStarts[line - 1];
    if (start === undefined) return '';
    const end = this.lineCounter.lineStarts[line] ?? this.text.length;
    return this.text.slice(start, end).replace(/\r?\n$/, '');
  }

  /** Syntax errors and warnings (unknown tags) of the YAML itself. */
  syntaxErrors(): YAMLError[] {
    return [...this.document.errors, ...this.document.warnings];
  }

  root(): ParsedNode | null {
    return this.document.contents;
  }

  /** The plain value; throws on aliases that expand excessively (billion laughs). */
  toJS(): unknown {
    return this.document.toJS();
  }

  /** The offset of the first alias: where an alias bomb, which is the whole document's doing, starts. */
  firstAlias(): number | undefined {
    let offset: number | undefined;
    visit(this.document, {
      Alias: (_key, alias) => {
        offset = alias.range?.[0] ?? 0;
        return visit.BREAK;
      },
    });
    return offset;
  }

  /**
   * What the YAML is well-formed for, yet no registry can be made of, each at its node: keys that
   * are lists or mappings (`? [a, b]`, which converting would stringify), aliases without an anchor
   * or inside the node they name (a cycle: the value would contain itself), merge keys (`<<`) given
   * something else than mappings, and text holding a NUL character (no S3 key, argument, environment
   * variable or file name can carry one). Reported before the document is converted to a value,
   * which would throw without a position, or (for a cycle) build an object that never ends.
   */
  structureProblems(): { offset: number; message: string }[] {
    const problems: { offset: number; message: string }[] = [];
    const at = (node: Node | null | undefined, message: string) =>
      problems.push({ offset: node?.range?.[0] ?? 0, message });
    visit(this.document, {
      Pair: (_key, pair) => {
        const key = pair.key as Node | null;
        if (key !== null && !isScalar(key) && !isAlias(key))
          at(key, 'a key must be plain text, not a list or a mapping');
        if (isScalar(key) && typeof key.value === 'symbol' && !this.isMergeSource(pair.value as Node | null))
          at(
            (pair.value as Node | null) ?? key,
            'a merge key (<<) takes a mapping, an alias of one (*name) or a list of them',
          );
      },
      Alias: (_key, alias, path) => {
        const target = alias.resolve(this.document);
        if (target === undefined)
          at(alias, `alias *${alias.source} names no anchor: define &${alias.source} before it`);
        else if ((path as readonly unknown[]).includes(target))
          at(
            alias,
            `alias *${alias.source} is inside the node &${alias.source} it names: a value cannot contain itself`,
          );
      },
      Scalar: (_key, scalar) => {
        if (typeof scalar.value === 'string' && scalar.value.includes('\u0000'))
          at(scalar, 'holds a NUL character (\\0): no key, file name or argument can carry one');
      },
    });
    return problems;
  }

  private isMergeSource(value: Node | null): boolean {
    const resolved = this.resolve(value);
    if (isMap(resolved)) return true;
    return isSeq(resolved) && resolved.items.every((item) => isMap(this.resolve(item as Node | null)));
  }

  offsetToPosition(offset: number): Position {
    const { line, col } = this.lineCounter.linePos(offset);
    return { line, column: col };
  }

  /**
   * The position of the node at `path`. When the path does not exist in full (a required key is
   * missing), the deepest node that does exist: for a missing key, the mapping that lacks it.
   */
  positionOf(path: readonly PathSegment[], target: PositionTarget = 'value'): Position {
    let node: Node | null = this.document.contents;
    let pointAt: Node | null = node;
    for (const [index, segment] of path.entries()) {
      const child = childOf(this.resolve(node), segment);
      if (child === undefined) break;
      const isLast = index === path.length - 1;
      if (isLast && target === 'key' && child.key !== undefined) {
        pointAt = child.key;
        break;
      }
      if (child.value === undefined) {
        // `key:` followed by nothing at all: the key is the only thing to point at.
        pointAt = child.key ?? pointAt;
        break;
      }
      node = child.value;
      pointAt = child.value;
    }
    return this.offsetToPosition(pointAt?.range?.[0] ?? 0);
  }

  /** The path of the innermost node around `offset`, so that syntax errors can name where they are. */
  pathAt(offset: number): PathSegment[] {
    const path: PathSegment[] = [];
    let node: Node | null = this.document.contents;
    for (;;) {
      // The text as written, aliases not followed: an offset is in one place of the text, and a
      // cyclic alias followed would lead back to where it is, without end.
      const child = childContaining(node, offset);
      if (child === undefined) return path;
      path.push(child.segment);
      if (child.value === undefined) return path;
      node = child.value;
    }
  }

  private resolve(node: Node | null): Node | null {
    if (isAlias(node)) return (node.resolve(this.document) as Node | undefined) ?? null;
    return node;
  }
}

interface Child {
  segment: PathSegment;
  key?: Node;
  value?: Node;
}

function childOf(collection: Node | null, segment: PathSegment): Child | undefined {
  if (isMap(collection)) {
    const pair = collection.items.find(
      (item) => isScalar(item.key) && String(item.key.value) === String(segment),
    );
    if (pair === undefined) return undefined;
    return { segment, key: pair.key as Node, value: (pair.value as Node | null) ?? undefined };
  }
  if (isSeq(collection) && typeof segment === 'number') {
    const item = collection.items[segment] as Node | undefined;
    return item === undefined ? undefined : { segment, value: item };
  }
  return undefined;
}

function childContaining(collection: Node | null, offset: number): Child | undefined {
  if (isMap(collection)) {
    for (const pair of collection.items) {
      const key = pair.key as Node | null;
      const value = pair.value as Node | null;
      if (!isScalar(key)) continue;
      // A merge key's value is a symbol: it reads as it is written.
      const segment = typeof key.value === 'symbol' ? '<<' : String(key.value);
      if (contains(key, offset)) return { segment };
      if (value !== null && contains(value, offset)) return { segment, value };
    }
  }
  if (isSeq(collection)) {
    const index = collection.items.findIndex((item) => contains(item as Node, offset));
    if (index >= 0) return { segment: index, value: collection.items[index] as Node };
  }
  return undefined;
}

function contains(node: Node | null, offset: number): boolean {
  const range = node?.range;
  return range !== undefined && range !== null && offset >= range[0] && offset < range[2];
}
