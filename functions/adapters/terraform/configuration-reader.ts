import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import type {
  ConfigurationFacts,
  IgnoreChangesRule,
  RemovedBlock,
} from '../../core/terraform/configuration.js';
import type { PathSegment } from '../../core/terraform/plan-model.js';
import { type ConfigurationFileOptions, configurationFiles, isOverrideFile } from './configuration-files.js';
import { rootDirectoryProblem } from './root-directory.js';

/**
 * Reads what a plan does not say from a workspace's Terraform configuration: `lifecycle.ignore_changes`
 * of every resource and the `removed` blocks, in the root module and in local modules (a module call
 * whose `source` is a relative path, followed recursively). Registry and git modules are not read:
 * their ignore_changes are not applied (their drift is reported as usual).
 *
 * Parsing is HashiCorp's HCL parser (hcl2json compiled to WebAssembly, `@cdktn/hcl2json`), never
 * regular expressions: only the parser knows heredocs, comments, nested blocks and traversals.
 */

export interface ConfigurationReading {
  facts: ConfigurationFacts;
  /** Files that could not be parsed: `modules/db/main.tf:3: Unclosed configuration block`. */
  problems: string[];
}

export interface HclModule {
  parse(filename: string, contents: string): Promise<Record<string, unknown>>;
  getExpressionAst(filename: string, expression: string): Promise<ExpressionNode | null>;
}

interface ExpressionNode {
  type: string;
  meta?: { traversal?: Array<{ type: string; segment: string }> };
}

/** Module calls nested deeper than this are not followed (a cycle of relative sources ends here too). */
const MAX_MODULE_DEPTH = 8;

let hcl: Promise<HclModule> | undefined;

/**
 * Loaded on first use, by a specifier the bundler leaves alone: the package reads its WebAssembly
 * from its own directory, so it must be installed beside the code (node_modules), not inlined into a
 * bundle. Where it is missing, reading fails with a clear reason and the scan goes on without facts.
 */
export function loadHcl(): Promise<HclModule> {
  const specifier = '@cdktn/hcl2json';
  hcl ??= (import(specifier) as Promise<Partial<HclModule> & { default?: HclModule }>).then((module) => {
    const api = module.parse ? (module as HclModule) : module.default;
    if (!api?.parse || !api.getExpressionAst) throw new Error(`${specifier} has no HCL parser`);
    return api;
  });
  return hcl;
}

/**
 * Reads the configuration rooted at `rootDir` (with `tofu`, OpenTofu's files: `.tofu` too); a missing
 * directory is an error, a bad file a problem.
 */
export async function readTerraformConfiguration(
  rootDir: string,
  options: ConfigurationFileOptions = {},
): Promise<ConfigurationReading> {
  const root = resolve(rootDir);
  const problem = await rootDirectoryProblem(rootDir);
  if (problem) throw new Error(problem);
  const parser = await loadHcl();
  const reading: ConfigurationReading = { facts: { ignoreChanges: [], removed: [] }, problems: [] };
  await readModule(parser, root, root, [], new Set(), reading, options);
  return reading;
}

/**
 * Every `required_version` of the root module's `terraform` blocks, in file order. OpenTofu also
 * reads `.tofu` files, and ignores a `.tf` file that has a `.tofu` twin. A file the parser cannot read
 * is skipped: Terraform reports it itself, with a better message, at init.
 */
export async function readRequiredVersions(
  rootDir: string,
  options: { tofu?: boolean } = {},
): Promise<string[]> {
  const files = configurationFiles(rootDir, options);
  if (files.length === 0) return [];
  const parser = await loadHcl();
  const versions: string[] = [];
  for (const file of files) {
    let body: Record<string, unknown>;
    try {
      body = await parseFile(parser, join(rootDir, file), file);
    } catch {
      continue;
    }
    for (const block of blocksOf(body.terraform)) {
      const value = block.required_version;
      if (typeof value === 'string' && value.trim() !== '') versions.push(value.trim());
    }
  }
  return versions;
}

/**
 * The last files parsed, by path and content: a scan reads the root's required_version and backend
 * block before init and the whole configuration after it, and the root's files are the same each
 * time. Bounded: a run's files are read within seconds of each other.
 */
const parsed = new Map<string, Promise<Record<string, unknown>>>();
const PARSED_LIMIT = 64;

/**
 * One `.tf` (HCL) or `.tf.json` file as JSON; `shown` names it in parse errors. Every reader of a
 * root's files (required_version, the backend block, the configuration facts) goes through here, so
 * a scan parses each file once.
 */
export async function parseFile(
  parser: HclModule,
  path: string,
  shown: string,
): Promise<Record<string, unknown>> {
  const text = await readFile(path, 'utf8');
  const key = createHash('sha256').update(path).update('\0').update(text).digest('hex');
  let body = parsed.get(key);
  if (!body) {
    body = path.endsWith('.json')
      ? Promise.resolve().then(() => JSON.parse(text) as Record<string, unknown>)
      : parser.parse(shown, text);
    parsed.set(key, body);
    // A file that does not parse is not remembered: each reader reports it its own way.
    body.catch(() => parsed.delete(key));
    if (parsed.size > PARSED_LIMIT) parsed.delete(parsed.keys().next().value!);
  }
  return body;
}

/** One module directory; `prefix` is its address (`module.db[*].module.cache`) as steps. */
async function readModule(
  parser: HclModule,
  root: string,
  dir: string,
  prefix: string[],
  visiting: Set<string>,
  reading: ConfigurationReading,
  options: ConfigurationFileOptions,
): Promise<void> {
  if (visiting.has(dir) || prefix.length / 2 > MAX_MODULE_DEPTH) return;
  visiting.add(dir);
  // Each resource of this module by address, and whether it has count/for_each: override files
  // (read last) amend these blocks and need not repeat count or for_each.
  const declared = new Map<string, boolean>();
  for (const file of configurationFiles(dir, options)) {
    const path = join(dir, file);
    const shown = relative(root, path);
    let body: Record<string, unknown>;
    try {
      body = await parseFile(parser, path, shown);
    } catch (error) {
      reading.problems.push(problemOf(shown, error));
      continue;
    }
    await collectResources(parser, body, prefix, shown, reading, {
      override: isOverrideFile(file),
      declared,
    });
    await collectRemoved(parser, body, prefix, shown, reading);
    for (const [name, call] of blocksByName(body.module)) {
      const source = call.source;
      if (typeof source !== 'string' || !(source.startsWith('./') || source.startsWith('../'))) continue;
      const child = resolve(dir, source);
      if (!existsSync(child)) continue;
      const step = isRepeated(call) ? `module.${name}[*]` : `module.${name}`;
      await readModule(parser, root, child, [...prefix, step], visiting, reading, options);
    }
  }
  visiting.delete(dir);
}

/**
 * The ignore_changes rules of one file's resources. An override file's `lifecycle.ignore_changes`
 * replaces the one of the block it amends (Terraform merges a lifecycle block argument by argument),
 * so an override that narrows or empties the list ignores only what it says.
 */
async function collectResources(
  parser: HclModule,
  body: Record<string, unknown>,
  prefix: string[],
  file: string,
  reading: ConfigurationReading,
  module: { override: boolean; declared: Map<string, boolean> },
): Promise<void> {
  for (const [type, byName] of entriesOf(body.resource)) {
    for (const [name, block] of blocksByName(byName)) {
      const resource = [...prefix, `${type}.${name}`].join('.');
      const repeated = isRepeated(block) || (module.declared.get(resource) ?? false);
      if (!module.override) module.declared.set(resource, repeated);
      const address = repeated ? `${resource}[*]` : resource;
      for (const lifecycle of blocksOf(block.lifecycle)) {
        const value = lifecycle.ignore_changes;
        if (value === undefined) continue;
        if (module.override)
          reading.facts.ignoreChanges = reading.facts.ignoreChanges.filter(
            (rule) => rule.address !== resource && rule.address !== `${resource}[*]`,
          );
        const paths = await ignoredPaths(parser, file, value);
        if (paths === undefined || (paths !== 'all' && paths.length === 0)) continue;
        const rule: IgnoreChangesRule = { address, paths, file };
        reading.facts.ignoreChanges.push(rule);
      }
    }
  }
}

async function collectRemoved(
  parser: HclModule,
  body: Record<string, unknown>,
  prefix: string[],
  file: string,
  reading: ConfigurationReading,
): Promise<void> {
  for (const block of blocksOf(body.removed)) {
    const from = typeof block.from === 'string' ? await traversalOf(parser, file, block.from) : undefined;
    if (from === undefined) continue;
    const destroy = !blocksOf(block.lifecycle).some((lifecycle) => lifecycle.destroy === false);
    const removed: RemovedBlock = { from: [...prefix, formatTraversal(from)].join('.'), destroy, file };
    reading.facts.removed.push(removed);
  }
}

/** `[tags, tags["Owner"]]` → `[['tags'], ['tags', 'Owner']]`; `all` → `'all'`; undefined if unreadable. */
async function ignoredPaths(
  parser: HclModule,
  file: string,
  value: unknown,
): Promise<IgnoreChangesRule['paths'] | undefined> {
  if (typeof value === 'string') {
    const traversal = await traversalOf(parser, file, value);
    return traversal?.length === 1 && traversal[0] === 'all' ? 'all' : traversal ? [traversal] : undefined;
  }
  if (!Array.isArray(value)) return undefined;
  const paths: PathSegment[][] = [];
  for (const item of value) {
    if (typeof item !== 'string') continue;
    const traversal = await traversalOf(parser, file, item);
    if (traversal) paths.push(traversal);
  }
  return paths;
}

/**
 * An attribute traversal as HCL parses it: `tags["Owner"]` → `['tags', 'Owner']`,
 * `versioning[0].enabled` → `['versioning', 0, 'enabled']`. hcl2json writes expressions as
 * `${...}` templates; the legacy quoted form (`"tags"`) is the bare expression.
 */
async function traversalOf(
  parser: HclModule,
  file: string,
  text: string,
): Promise<PathSegment[] | undefined> {
  const expression = text.startsWith('${') && text.endsWith('}') ? text.slice(2, -1) : text;
  let node: ExpressionNode | null;
  try {
    node = await parser.getExpressionAst(file, expression);
  } catch {
    return undefined;
  }
  const steps = node?.type === 'scopeTraversal' ? node.meta?.traversal : undefined;
  if (!steps || steps.length === 0) return undefined;
  const path: PathSegment[] = [];
  for (const step of steps) {
    if (step.type === 'nameTraversal') path.push(step.segment);
    else if (step.type === 'indexTraversal') {
      // The key is an HCL literal: a number or a quoted string.
      let key: unknown;
      try {
        key = JSON.parse(step.segment);
      } catch {
        return undefined;
      }
      if (typeof key !== 'string' && typeof key !== 'number') return undefined;
      path.push(key);
    } else return undefined;
  }
  return path;
}

/** `['module', 'db', 'aws_x', 'y']` → `module.db.aws_x.y` (a removed block's `from`). */
function formatTraversal(path: PathSegment[]): string {
  return path
    .map((segment) => (typeof segment === 'number' ? `[${segment}]` : segment))
    .join('.')
    .replaceAll('.[', '[');
}

function isRepeated(block: Record<string, unknown>): boolean {
  return block.count !== undefined || block.for_each !== undefined;
}

/** hcl2json gives each block as a list of bodies; Terraform's JSON syntax allows one body or a list. */
function blocksOf(value: unknown): Array<Record<string, unknown>> {
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return list.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null);
}

/** The keys of a block level: one object, or (Terraform's JSON syntax) a list of objects. */
function entriesOf(value: unknown): Array<[string, unknown]> {
  return blocksOf(value)
    .filter((body) => !Array.isArray(body))
    .flatMap((body) => Object.entries(body));
}

function blocksByName(value: unknown): Array<[string, Record<string, unknown>]> {
  const blocks: Array<[string, Record<string, unknown>]> = [];
  for (const [name, bodies] of entriesOf(value))
    for (const body of blocksOf(bodies)) blocks.push([name, body]);
  return blocks;
}

/**
 * `main.tf:3: Unclosed configuration block`: location and summary only, never file content. HCL
 * gives a range as `main.tf:3,14-15` on one line and `main.tf:6,16-7,1` across lines.
 */
export function problemOf(file: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const located = message.match(/([^\s[]+:\d+),\d+-(?:\d+,)?\d+: ([^;\]]+)/);
  if (located) return `${located[1]}: ${located[2]!.trim()}`;
  return `${file}: ${error instanceof SyntaxError ? 'not valid JSON' : 'could not be parsed'}`;
}
