import type { Finding, JsonValue, TerraformResourceRef } from '../findings/model.js';
import { isPlainObject } from '../terraform/json-values.js';
import type { PathSegment } from '../terraform/plan-model.js';
import {
  configurationAddress,
  hasInstanceKeys,
  type ParsedAddress,
  parseResourceAddress,
} from './address.js';
import {
  attributeLines,
  commentLine,
  type HclLine,
  hclInline,
  hclKey,
  hclNumber,
  inertText,
  isHclIdentifier,
  layoutHcl,
} from './hcl-render.js';
import type { AdoptSnippet, TerraformContext } from './model.js';
import { sidesOf } from './model.js';
import { isRedacted, jsonDocumentIndex, parseChangePath } from './paths.js';
import { shellQuote } from './shell-quote.js';

/**
 * Adopt for a Terraform finding: the configuration takes what exists. The snippet is a `resource`
 * block holding the live values of the changed attributes (for a pending change: the applied values),
 * in HCL that `terraform fmt` leaves as it is. What a change cannot tell (the other elements of a list,
 * which configured block a set element is, a value inside a JSON document) is said in comments, never
 * guessed. Sensitive values become `var.<name>` with a sensitive variable: the value is never shown.
 */
export function terraformAdoptSnippet(finding: Finding, context: TerraformContext = {}): AdoptSnippet {
  const resource = finding.resource as TerraformResourceRef;
  const parsed = parseResourceAddress(resource.address);
  const notes: string[] = [];
  const where = locationNote(context);
  const location = context.location?.found ? context.location : undefined;
  const result = (text: string, variables: string[] = []): AdoptSnippet => ({
    mode: 'adopt',
    system: 'terraform',
    language: 'hcl',
    text,
    ...(location ? { file: location.file, line: location.line } : {}),
    variables,
    notes: [...notes, where],
  });
  if (!parsed) {
    notes.push(
      `${resource.address} is not a resource address driftwatch can take apart: edit its block by hand.`,
    );
    return result(layoutHcl([commentLine(0, `No snippet for ${resource.address}.`)]));
  }
  const action = finding.drift?.action;
  const pending = finding.kind === 'pending-change';
  const blockRef = `resource "${parsed.type}" "${parsed.name}"`;

  if (!pending && action === 'delete') return result(deletionSnippet(resource.address, parsed, notes));
  if (pending && action === 'create') {
    notes.push(
      `Adopting means the configuration goes back to what is applied: ${resource.address} was never created, so remove its ${blockRef} block (or revert the change that added it).`,
    );
    return result(
      layoutHcl([
        commentLine(0, `${resource.address} is in the configuration but was never applied.`),
        commentLine(0, `To adopt what exists, remove its ${blockRef} block; nothing else to add.`),
      ]),
    );
  }
  if (pending && action === 'delete') {
    notes.push(
      `Adopting means declaring ${resource.address} again: the finding holds no values of the applied object. ${stateShowHint(resource.address)}`,
    );
    return result(
      layoutHcl([
        commentLine(0, `${resource.address} is applied but no longer in the configuration.`),
        commentLine(
          0,
          `To adopt it, declare its ${blockRef} block again (or revert the change that removed it);`,
        ),
        commentLine(0, 'the finding holds none of its values.'),
      ]),
    );
  }
  if (finding.evidence.importing === true || finding.ruleId === 'pending.import')
    notes.push(
      'An import block adopts this object already: the values below are those the apply would otherwise change.',
    );

  const body: Body = { ...newBody(false), top: true };
  const variables = new VariableNames(parsed.name);
  for (const change of finding.drift?.changes ?? []) {
    const { current, declared } = sidesOf(finding, change);
    const sensitive = change.sensitive || isRedacted(current) || isRedacted(declared);
    placeChange(body, change.path, current, declared, sensitive, variables);
  }
  const lines: HclLine[] = [];
  lines.push(
    commentLine(
      0,
      pending
        ? `${resource.address}: the applied values of the changed attributes (adopt = the configuration takes them).`
        : `${resource.address}: the live values of the changed attributes (adopt = the configuration takes them).`,
    ),
  );
  if (location)
    lines.push(commentLine(0, `Set them in the ${blockRef} block at ${location.file}:${location.line}.`));
  if (parsed.modules.length > 0)
    lines.push(
      commentLine(
        0,
        `The block is in module ${parsed.modules.map((module) => module.name).join(' > ')}: if other callers share it, set the value through the module's inputs instead.`,
      ),
    );
  if (hasInstanceKeys(parsed))
    lines.push(
      commentLine(
        0,
        `The address has an instance key: a value set in the block applies to every instance; for ${instanceLabel(parsed)} only, put it in the count/for_each data.`,
      ),
    );
  lines.push({ kind: 'text', depth: 0, text: `${blockRef} {` });
  lines.push(...bodyLines(body, 1));
  lines.push({ kind: 'text', depth: 0, text: '}' });
  for (const variable of variables.declared) {
    lines.push({ kind: 'blank' });
    lines.push(
      commentLine(
        0,
        `${variable.path} is sensitive: driftwatch does not show its value (it only hashes it).`,
      ),
    );
    lines.push(
      commentLine(
        0,
        `Give it as TF_VAR_${variable.name} from your secret store, as the pipeline gives other secrets.`,
      ),
    );
    lines.push({ kind: 'text', depth: 0, text: `variable "${variable.name}" {` });
    lines.push({ kind: 'assign', depth: 1, lead: 'sensitive', rhs: 'true' });
    lines.push({ kind: 'text', depth: 0, text: '}' });
  }
  if (variables.declared.length > 0)
    notes.push(
      `Sensitive values became variables (${variables.declared.map((variable) => `var.${variable.name}`).join(', ')}): their values are not shown here, set them from your secret store.`,
    );
  return result(
    layoutHcl(lines),
    variables.declared.map((variable) => variable.name),
  );
}

function deletionSnippet(address: string, parsed: ParsedAddress, notes: string[]): string {
  const from = configurationAddress(parsed);
  const lines: HclLine[] = [
    commentLine(0, `${address} was deleted outside Terraform. To adopt the deletion, remove its`),
    commentLine(
      0,
      `resource "${parsed.type}" "${parsed.name}" block; this removed block (Terraform 1.7+) makes the`,
    ),
    commentLine(0, 'next apply forget the object instead of creating it again.'),
  ];
  if (hasInstanceKeys(parsed)) {
    lines.push(
      commentLine(0, `The address has an instance key: a removed block forgets every instance of ${from};`),
      commentLine(
        0,
        `to adopt the deletion of ${instanceLabel(parsed)} only, take its key out of count/for_each instead.`,
      ),
    );
    notes.push(
      `Only one instance was deleted: removing its key from count/for_each adopts that; the removed block below covers all instances of ${from}.`,
    );
  }
  lines.push(
    { kind: 'text', depth: 0, text: 'removed {' },
    { kind: 'assign', depth: 1, lead: 'from', rhs: from },
    { kind: 'text', depth: 1, text: 'lifecycle {' },
    { kind: 'assign', depth: 2, lead: 'destroy', rhs: 'false' },
    { kind: 'text', depth: 1, text: '}' },
    { kind: 'text', depth: 0, text: '}' },
  );
  notes.push(
    `Adopting a deletion means removing ${address} from the configuration; review and merge that change.`,
  );
  return layoutHcl(lines);
}

function instanceLabel(parsed: ParsedAddress): string {
  const keys = [...parsed.modules.map((module) => module.key), parsed.key].filter((key) => key !== undefined);
  return `instance ${keys.join(' ')}`;
}

function stateShowHint(address: string): string {
  return `Its applied attributes are in \`terraform state show ${shellQuote(address)}\` (it prints secrets: run it where you may see them).`;
}

function locationNote(context: TerraformContext): string {
  const location = context.location;
  if (location?.found)
    return `Edit ${location.file}:${location.line}${context.rootDir ? ` (under ${context.rootDir})` : ''}.`;
  if (location && !location.found) return `The resource block was not located: ${location.reason}`;
  return 'The configuration was not read: pass --config <root module dir> (or --registry with the workspace) to name the file and line to edit.';
}

// ---------------------------------------------------------------------------------------------------
// The snippet's body: attributes, partial maps/objects, nested blocks and comments, in first-seen order.

interface Body {
  /** An object value (`tags = { … }`): keys may be quoted, and it holds no blocks. */
  object: boolean;
  /** The resource block itself (not a nested block or object). */
  top?: boolean;
  entries: Entry[];
}

type Value = { json: JsonValue } | { variable: string };

type Entry =
  | { kind: 'attribute'; name: string; value: Value }
  | { kind: 'partial'; name: string; body: Body }
  | { kind: 'block'; name: string; index: number; body: Body; whole: boolean }
  | { kind: 'comment'; text: string };

/**
 * Top-level attributes that providers compute (a new version or timestamp after every change, ids):
 * an out-of-band change moves them too, but a configuration that sets them fails validation on most
 * resource types. The plan JSON carries no schema to tell, so they are said in a comment, not written.
 */
const PROVIDER_SET_ATTRIBUTES: ReadonlySet<string> = new Set([
  'id',
  'arn',
  'version',
  'owner_id',
  'unique_id',
  'etag',
  'create_date',
  'created_date',
  'creation_date',
  'created_time',
  'last_modified',
  'last_modified_date',
  'last_updated_date',
]);

function newBody(object: boolean): Body {
  return { object, entries: [] };
}

class VariableNames {
  readonly declared: { name: string; path: string }[] = [];
  private readonly used = new Set<string>();
  constructor(private readonly prefix: string) {}
  take(path: string): string {
    const base =
      `${this.prefix}_${path}`
        .replace(/[^A-Za-z0-9_]+/g, '_')
        .replace(/_+/g, '_')
        .replace(/^_|_$/g, '')
        .toLowerCase() || 'secret';
    const safe = /^[a-z_]/.test(base) ? base : `v_${base}`;
    let name = safe;
    for (let suffix = 2; this.used.has(name); suffix++) name = `${safe}_${suffix}`;
    this.used.add(name);
    this.declared.push({ name, path });
    return name;
  }
}

function placeChange(
  root: Body,
  path: string,
  current: JsonValue,
  declared: JsonValue,
  sensitive: boolean,
  variables: VariableNames,
): void {
  const segments = parseChangePath(path);
  const shownPath = inertText(path);
  if (segments === undefined || segments.length === 0) {
    root.entries.push({
      kind: 'comment',
      text: `${shownPath || '(whole value)'}: cannot be placed in the block; set it by hand.`,
    });
    return;
  }
  if (segments.some((segment) => typeof segment === 'string' && isRedacted(segment))) {
    root.entries.push({
      kind: 'comment',
      text: `${shownPath}: a key in this path is itself a secret (shown hashed): not rendered; set it by hand.`,
    });
    return;
  }
  const documentAt = jsonDocumentIndex(segments);
  if (documentAt !== undefined) {
    const attribute = renderSegments(segments.slice(0, documentAt + 1));
    const inside = renderSegments(segments.slice(documentAt + 1));
    const value = sensitive ? 'a sensitive value (not shown)' : hclInline(current);
    root.entries.push({
      kind: 'comment',
      text: `${attribute} holds a JSON document: in it, set ${inside} to ${value} (the finding holds only this part of the document).`,
    });
    return;
  }
  const rounded = sensitive ? undefined : unsafeInteger(current);
  if (rounded !== undefined)
    root.entries.push({
      kind: 'comment',
      text: `${shownPath}: ${hclNumber(rounded)} is beyond the integers a double holds exactly (2^53): driftwatch read the plan's number rounded, so the live value may differ in its last digits. Take it from terraform state show before adopting.`,
    });
  place(root, segments, current, declared, sensitive, path, variables);
}

/**
 * The first integer in a value that JSON.parse may have rounded: Terraform numbers are arbitrary
 * precision, and the plan JSON prints them whole (a random_integer, an id-like number), but a
 * JavaScript number holds integers exactly only up to 2^53. The snippet cannot know the true digits.
 */
function unsafeInteger(value: JsonValue): number | undefined {
  if (typeof value === 'number')
    return Number.isInteger(value) && !Number.isSafeInteger(value) ? value : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const member of Array.isArray(value) ? value : Object.values(value)) {
    const found = unsafeInteger(member);
    if (found !== undefined) return found;
  }
  return undefined;
}

function place(
  body: Body,
  segments: readonly PathSegment[],
  current: JsonValue,
  declared: JsonValue,
  sensitive: boolean,
  path: string,
  variables: VariableNames,
): void {
  const [head, ...rest] = segments;
  const shownPath = inertText(path);
  if (typeof head !== 'string' || (!body.object && !isHclIdentifier(head))) {
    body.entries.push({
      kind: 'comment',
      text: `${shownPath}: cannot be written as an argument here; set it by hand.`,
    });
    return;
  }
  const shown = (value: JsonValue) => (sensitive ? '(sensitive, not shown)' : hclInline(value));
  if (rest.length === 0) {
    if (!body.object && body.top && PROVIDER_SET_ATTRIBUTES.has(head)) {
      body.entries.push({
        kind: 'comment',
        text: `${head}: the live value is ${shown(current)}; the provider usually sets ${head} itself (it cannot be configured on most resources): set it only if the configuration already does.`,
      });
      return;
    }
    if (body.object && current === null && declared !== null) {
      body.entries.push({
        kind: 'comment',
        text: `${hclKey(head)}: gone from the live object: delete this key (configured: ${shown(declared)}).`,
      });
      return;
    }
    const value: Value =
      sensitive && current !== null ? { variable: variables.take(path) } : { json: current };
    setAttribute(body, head, value);
    return;
  }
  const [next] = rest;
  if (typeof next === 'number') {
    if (body.object) {
      body.entries.push({
        kind: 'comment',
        text: `${shownPath}: the live value is ${shown(current)}; set it by hand.`,
      });
      return;
    }
    if (rest.length === 1) {
      if (isPlainObject(current) && !sensitive) {
        const block = blockFor(body, head, next, true);
        for (const [key, member] of Object.entries(current))
          place(block.body, [key], member, null, false, `${path}.${key}`, variables);
        return;
      }
      const what =
        current === null
          ? `the element ${shown(declared)} is gone from the live list: remove it from ${head}`
          : declared === null
            ? `the live list has ${shown(current)} that the configuration lacks: add it to ${head}`
            : `the live list has ${shown(current)} where the configuration has ${shown(declared)}: change it in ${head}`;
      body.entries.push({
        kind: 'comment',
        text: `${shownPath}: ${what}; keep the other elements (only this one changed).`,
      });
      return;
    }
    if (typeof rest[1] === 'string') {
      const block = blockFor(body, head, next, false);
      place(block.body, rest.slice(1), current, declared, sensitive, path, variables);
      return;
    }
    body.entries.push({
      kind: 'comment',
      text: `${shownPath}: the live value is ${shown(current)}; set it by hand.`,
    });
    return;
  }
  place(partialFor(body, head), rest, current, declared, sensitive, path, variables);
}

function setAttribute(body: Body, name: string, value: Value): void {
  const existing = body.entries.findIndex((entry) => entry.kind === 'attribute' && entry.name === name);
  const entry: Entry = { kind: 'attribute', name, value };
  if (existing >= 0) body.entries[existing] = entry;
  else body.entries.push(entry);
}

function blockFor(
  body: Body,
  name: string,
  index: number,
  whole: boolean,
): Extract<Entry, { kind: 'block' }> {
  const found = body.entries.find(
    (entry): entry is Extract<Entry, { kind: 'block' }> =>
      entry.kind === 'block' && entry.name === name && entry.index === index,
  );
  if (found) return found;
  const block: Extract<Entry, { kind: 'block' }> = {
    kind: 'block',
    name,
    index,
    body: newBody(false),
    whole,
  };
  body.entries.push(block);
  return block;
}

function partialFor(body: Body, name: string): Body {
  const found = body.entries.find(
    (entry): entry is Extract<Entry, { kind: 'partial' }> => entry.kind === 'partial' && entry.name === name,
  );
  if (found) return found.body;
  const partial: Extract<Entry, { kind: 'partial' }> = { kind: 'partial', name, body: newBody(true) };
  body.entries.push(partial);
  return partial.body;
}

function bodyLines(body: Body, depth: number): HclLine[] {
  const lines: HclLine[] = [];
  for (const entry of body.entries) {
    switch (entry.kind) {
      case 'comment':
        lines.push(commentLine(depth, entry.text));
        break;
      case 'attribute': {
        const lead = body.object ? hclKey(entry.name) : entry.name;
        if ('variable' in entry.value)
          lines.push({ kind: 'assign', depth, lead, rhs: `var.${entry.value.variable}` });
        else lines.push(...attributeLines(depth, lead, entry.value.json));
        break;
      }
      case 'partial':
        lines.push({ kind: 'text', depth, text: `${body.object ? hclKey(entry.name) : entry.name} = {` });
        lines.push(
          commentLine(depth + 1, `only the changed keys: keep the other keys of ${entry.name} as they are`),
        );
        lines.push(...bodyLines(entry.body, depth + 1));
        lines.push({ kind: 'text', depth, text: '}' });
        break;
      case 'block':
        lines.push({ kind: 'text', depth, text: `${entry.name} {` });
        lines.push(
          commentLine(
            depth + 1,
            entry.whole
              ? `${entry.name}[${entry.index}]: a whole ${entry.name} that exists live and not in the configuration: add this block`
              : `${entry.name}[${entry.index}] in the plan: the configured ${entry.name} block it stands for (set elements are ordered by value: match it by its other arguments)`,
          ),
        );
        if (!entry.whole)
          lines.push(
            commentLine(
              depth + 1,
              `if the configuration sets ${entry.name} as an attribute list, change the same arguments in that element`,
            ),
          );
        lines.push(...bodyLines(entry.body, depth + 1));
        lines.push({ kind: 'text', depth, text: '}' });
        break;
    }
  }
  return lines;
}

/** Segments as a path (`Statement[0].Action`), for comments. */
function renderSegments(segments: readonly PathSegment[]): string {
  let text = '';
  for (const segment of segments) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (isHclIdentifier(segment)) text += text === '' ? segment : `.${segment}`;
    else text += `[${hclInline(segment)}]`;
  }
  return inertText(text);
}
