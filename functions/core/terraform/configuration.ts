import { formatPath } from './attribute-path.js';
import type { CompactAttributeChange, PathSegment } from './plan-model.js';

/**
 * Facts from a workspace's Terraform configuration that its plan JSON does not carry (read by an
 * adapter with an HCL parser; see functions/adapters/terraform/configuration-reader.ts):
 * - `lifecycle.ignore_changes`: a refresh-only plan reports drift of ignored attributes anyway
 *   (refresh-only does not apply ignore_changes, and plan JSON has no lifecycle block);
 * - `removed` blocks: a refresh-only plan still refreshes, and reports drift of, a resource that
 *   the configuration has decided to forget or destroy.
 */
export interface ConfigurationFacts {
  ignoreChanges: IgnoreChangesRule[];
  removed: RemovedBlock[];
}

export interface IgnoreChangesRule {
  /**
   * Resource address pattern: `aws_s3_bucket.logs`, `module.db[*].aws_sqs_queue.jobs[*]`; `[*]`
   * stands for the instance key of a resource or module call with `count` or `for_each`.
   */
  address: string;
  /** Ignored attribute paths (`tags` ignores `tags.*`; `tags["Owner"]` only `tags.Owner`), or all. */
  paths: readonly (readonly PathSegment[])[] | 'all';
  /** Where the block is declared, relative to the root module directory (`main.tf`, `modules/db/main.tf`). */
  file: string;
}

export interface RemovedBlock {
  /** The `from` address: a resource (`aws_s3_bucket.old`, `module.db.aws_x.y`) or a module (`module.db`). */
  from: string;
  /** `lifecycle { destroy = false }` forgets the object; otherwise the next apply destroys it. */
  destroy: boolean;
  file: string;
}

export const NO_CONFIGURATION_FACTS: ConfigurationFacts = Object.freeze({
  ignoreChanges: [],
  removed: [],
}) as unknown as ConfigurationFacts;

/** What `lifecycle.ignore_changes` left of one resource's changes. */
export interface IgnoredChanges {
  kept: readonly CompactAttributeChange[];
  ignored: readonly CompactAttributeChange[];
  /** The rule that ignored them (set when `ignored` is not empty). */
  rule?: IgnoreChangesRule;
}

export interface ConfigurationIndex {
  /** Splits a resource's changes into those ignore_changes covers and the rest. */
  ignoreChanges(address: string, changes: readonly CompactAttributeChange[]): IgnoredChanges;
  /** The removed block that covers an address, if any. */
  removedBlockFor(address: string): RemovedBlock | undefined;
}

export function createConfigurationIndex(facts: ConfigurationFacts | undefined): ConfigurationIndex {
  const rules = (facts?.ignoreChanges ?? []).map((rule) => ({ rule, pattern: parseAddress(rule.address) }));
  const removed = (facts?.removed ?? []).map((block) => ({ block, pattern: parseAddress(block.from) }));
  return {
    ignoreChanges(address, changes) {
      if (rules.length === 0 || changes.length === 0) return { kept: changes, ignored: [] };
      const steps = parseAddress(address);
      if (steps === undefined) return { kept: changes, ignored: [] };
      const matching = rules.find(({ pattern }) => pattern !== undefined && matchesPattern(pattern, steps));
      if (!matching) return { kept: changes, ignored: [] };
      const { rule } = matching;
      const kept: CompactAttributeChange[] = [];
      const ignored: CompactAttributeChange[] = [];
      for (const change of changes) (isIgnored(rule, change) ? ignored : kept).push(change);
      return ignored.length === 0 ? { kept: changes, ignored } : { kept, ignored, rule };
    },
    removedBlockFor(address) {
      if (removed.length === 0) return undefined;
      const steps = parseAddress(address);
      if (steps === undefined) return undefined;
      return removed.find(({ pattern }) => pattern !== undefined && coversAddress(pattern, steps))?.block;
    },
  };
}

/** A change is ignored when it lies inside an ignored attribute (a whole map change is not inside one key). */
function isIgnored(rule: IgnoreChangesRule, change: CompactAttributeChange): boolean {
  if (rule.paths === 'all') return true;
  return rule.paths.some((path) => isPrefix(path, change.segments));
}

function isPrefix(prefix: readonly PathSegment[], segments: readonly PathSegment[]): boolean {
  if (prefix.length === 0 || prefix.length > segments.length) return false;
  // A list index written `[0]` and a map key written `["0"]` name the same element in a plan path.
  for (let index = 0; index < prefix.length; index++)
    if (String(prefix[index]) !== String(segments[index])) return false;
  return true;
}

/** `tags.Owner` for evidence and text. */
export function ignoredPathText(path: readonly PathSegment[]): string {
  return formatPath(path);
}

/** One step of an address: `module.db["a"]` is `module`, then `db` with key `"a"`. */
interface AddressStep {
  name: string;
  /** The instance key as written (`0`, `"a"`), `*` in a pattern, undefined when there is none. */
  key?: string;
}

/**
 * Splits a Terraform address into dot-separated names with their instance keys, honouring quoted
 * keys (`aws_x.y["a.b]"]`). undefined when the address is malformed.
 */
export function parseAddress(address: string): AddressStep[] | undefined {
  const steps: AddressStep[] = [];
  let index = 0;
  while (index < address.length) {
    let name = '';
    while (index < address.length && address[index] !== '.' && address[index] !== '[')
      name += address[index++];
    if (name === '') return undefined;
    const step: AddressStep = { name };
    if (address[index] === '[') {
      const end = closingBracket(address, index);
      if (end < 0) return undefined;
      step.key = address.slice(index + 1, end);
      index = end + 1;
    }
    steps.push(step);
    if (index < address.length) {
      if (address[index] !== '.') return undefined;
      index++;
      if (index === address.length) return undefined;
    }
  }
  return steps.length > 0 ? steps : undefined;
}

/** Index of the `]` closing the `[` at `open`, skipping over a quoted key with escapes. */
function closingBracket(text: string, open: number): number {
  let index = open + 1;
  if (text[index] === '"') {
    index++;
    while (index < text.length && text[index] !== '"') index += text[index] === '\\' ? 2 : 1;
    if (index >= text.length) return -1;
    index++;
  }
  while (index < text.length && text[index] !== ']') index++;
  return index < text.length ? index : -1;
}

function stepMatches(pattern: AddressStep, step: AddressStep): boolean {
  if (pattern.name !== step.name) return false;
  if (pattern.key === '*') return step.key !== undefined;
  return pattern.key === step.key;
}

/** The whole address matches the pattern, step by step. */
function matchesPattern(pattern: readonly AddressStep[], steps: readonly AddressStep[]): boolean {
  if (pattern.length !== steps.length) return false;
  return pattern.every((step, index) => stepMatches(step, steps[index]!));
}

/**
 * A removed block's `from` covers the resource it names (every instance of it: `from` takes no
 * instance keys) or everything inside the module it names (every instance of that module call).
 */
function coversAddress(from: readonly AddressStep[], steps: readonly AddressStep[]): boolean {
  if (from.length > steps.length) return false;
  const isModule = from.length >= 2 && from[from.length - 2]!.name === 'module';
  if (!isModule && from.length !== steps.length) return false;
  return from.every((step, index) => {
    const actual = steps[index]!;
    return step.name === actual.name && (step.key === undefined || step.key === actual.key);
  });
}
