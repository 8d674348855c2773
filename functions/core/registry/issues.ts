/**
 * Turns zod issues into registry problems: wording a person can act on, the dotted path, and the
 * line and column of the node in the YAML.
 */
import type * as z from 'zod/mini';
import { firstLookAlike } from './look-alike.js';
import { formatPath, quotedName, type RegistryProblem, toPathSegments } from './problems.js';
import type { KeyIssueParams, UnknownKeyParams } from './schema.js';
import { choiceHint, closestMatch } from './suggest.js';
import type { YamlSource } from './yaml-source.js';

/** Wording for the issues the schema does not word itself (passed to `safeParse` as `error`). */
export const describeIssue: z.core.$ZodErrorMap = (issue) => {
  if (issue.input === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_value')) {
    return 'required';
  }
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${expectedDescription(issue.expected)}, got ${describeValue(issue.input)}${quoteHint(issue)}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of: ${issue.values.join(', ')}${choiceHint(issue.input, issue.values)}`;
    case 'invalid_union':
      return discriminatorMessage(issue.input, issue.discriminator, issue.options);
    default:
      return undefined;
  }
};

function expectedDescription(expected: string): string {
  switch (expected) {
    case 'object':
    case 'record':
      return 'a mapping (key: value)';
    case 'array':
      return 'a list';
    case 'string':
      return 'text';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'true or false';
    default:
      return expected;
  }
}

/** YAML reads `1.10` as the number 1.1 and `yes` stays text under YAML 1.2: quoting says what is meant. */
function quoteHint(issue: z.core.$ZodRawIssue): string {
  const wantsText = issue.code === 'invalid_type' && issue.expected === 'string';
  const isScalar = typeof issue.input === 'number' || typeof issue.input === 'boolean';
  return wantsText && isScalar ? ' (put the value in quotes to keep it as text)' : '';
}

export function describeValue(value: unknown): string {
  if (value === null) return 'an empty value';
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Date) return `the date ${value.toISOString()}`;
  switch (typeof value) {
    case 'string':
      // Never the text itself: a mistyped --registry (a .tfvars, an .env file) must not print its values.
      return value.includes('\n') || value.length > 40 ? 'a block of text' : 'text';
    case 'number':
    case 'boolean':
      return `the ${typeof value} ${value}`;
    case 'object':
      return 'a mapping';
    default:
      return typeof value;
  }
}

function discriminatorMessage(input: unknown, discriminator: unknown, options: unknown): string | undefined {
  if (typeof discriminator !== 'string' || !Array.isArray(options)) return undefined;
  const given =
    typeof input === 'object' && input !== null ? (input as Record<string, unknown>)[discriminator] : input;
  const choices = `one of: ${options.join(', ')}`;
  return given === undefined
    ? `required (${choices})`
    : `must be ${choices}; got ${describeValue(given)}${choiceHint(given, options)}`;
}

export function problemFromIssue(issue: z.core.$ZodIssue, source: YamlSource): RegistryProblem {
  const segments = toPathSegments(issue.path);
  const params = issue.code === 'custom' ? issue.params : undefined;
  const unknownKey = isUnknownKeyParams(params);
  const target = unknownKey || isKeyIssueParams(params) ? 'key' : 'value';
  const position = source.positionOf(segments, target);
  const meant = unknownKey
    ? closestMatch(String(segments[segments.length - 1]), params.knownKeys)
    : undefined;
  const message = unknownKey
    ? unknownKeyMessage(segments, params.knownKeys, meant)
    : target === 'value'
      ? withoutValue(issue.message, issue.input) + lookAlikeHint(issue.input)
      : issue.message;
  return {
    path: formatPath(segments),
    line: position.line,
    column: position.column,
    message,
    ...(meant !== undefined ? { meant } : {}),
  };
}

/** Why a value that looks right is refused: a character pasted from a web page, named and placed. */
function lookAlikeHint(input: unknown): string {
  const found = typeof input === 'string' ? firstLookAlike(input) : undefined;
  return found ? `; its character ${found.index + 1} is ${found.description}: retype it` : '';
}

/**
 * Problems name the file, line, column and key, never the value found there: a secret typed into the
 * wrong field, or a file that is not a registry at all, must not end up in a terminal or a CI log.
 * Format checks word their problem about the value (`'x' is not an email address`); here it becomes
 * `the value is not an email address`. Keys (env names, unknown keys) are names, not contents.
 */
function withoutValue(message: string, input: unknown): string {
  if (typeof input !== 'string' || input === '') return message;
  return message.split(`'${input}'`).join('the value');
}

function unknownKeyMessage(
  path: readonly PropertyKey[],
  knownKeys: readonly string[],
  suggestion: string | undefined,
): string {
  const key = String(path[path.length - 1]);
  if (suggestion !== undefined) return `unknown key ${quotedName(key)}; did you mean '${suggestion}'?`;
  return `unknown key ${quotedName(key)}; expected one of: ${knownKeys.join(', ')}`;
}

function isUnknownKeyParams(params: unknown): params is UnknownKeyParams {
  return (
    typeof params === 'object' && params !== null && Array.isArray((params as UnknownKeyParams).knownKeys)
  );
}

function isKeyIssueParams(params: unknown): params is KeyIssueParams {
  return typeof params === 'object' && params !== null && (params as KeyIssueParams).target === 'key';
}
