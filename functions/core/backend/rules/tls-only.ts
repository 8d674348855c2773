import { limitText, visibleValue } from '../../text/sanitize.js';
import { readable } from '../ports.js';
import { type BucketRule, bootstrapRemediation, hcl, shellWord } from '../rule.js';

export const tlsOnlyRule: BucketRule = {
  id: 'backend.tls-only',
  target: 'bucket',
  kind: 'backend-policy',
  check: 'backend',
  severity: 'medium',
  checks: 'the bucket policy denies every request without TLS (`aws:SecureTransport = false`)',
  explanation:
    'State travels with its secrets in plaintext JSON; a Deny on aws:SecureTransport=false makes sure no client, old SDK or script sends or fetches it without TLS.',
  iamActions: ['s3:GetBucketPolicy'],
  reads: ['policy'],
  evaluate({ bucket, settings }) {
    if (!settings.policy.ok) return [];
    const policy = readable(settings.policy);
    const gap = policy === undefined ? undefined : tlsOnlyGap(policy, bucket);
    if (policy !== undefined && gap === undefined) return [];
    return [
      {
        resource: { bucket },
        title: `State bucket ${bucket} accepts requests without TLS`,
        detail:
          policy === undefined
            ? `State bucket ${bucket} has no bucket policy, so nothing denies requests without TLS.`
            : `The bucket policy of ${bucket} has no Deny statement for aws:SecureTransport = false covering the bucket and its objects: ${gap}.`,
        evidence:
          policy === undefined
            ? { bucketPolicy: 'none' }
            : { bucketPolicy: 'present without a TLS-only statement', missing: gap },
        remediation: bootstrapRemediation(
          `Add a statement denying s3:* without TLS to the policy of ${bucket} (a bucket has one policy: merge it with the statements it has).`,
          [
            `resource "aws_s3_bucket_policy" "state" {`,
            `  bucket = ${hcl(bucket)}`,
            '  policy = jsonencode({',
            '    Version = "2012-10-17"',
            '    Statement = [{',
            '      Sid       = "DenyInsecureTransport"',
            '      Effect    = "Deny"',
            '      Principal = "*"',
            '      Action    = "s3:*"',
            `      Resource  = [${hcl(`arn:aws:s3:::${bucket}`)}, ${hcl(`arn:aws:s3:::${bucket}/*`)}]`,
            '      Condition = { Bool = { "aws:SecureTransport" = "false" } }',
            '    }]',
            '  })',
            '}',
          ].join('\n'),
          `aws s3api put-bucket-policy --bucket ${shellWord(bucket)} --policy '${JSON.stringify(tlsOnlyPolicy(bucket))}'`,
        ),
      },
    ];
  },
};

/** The statement the remediation proposes (a bucket has one policy: merge it with the others). */
export function tlsOnlyPolicy(bucket: string) {
  return {
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'DenyInsecureTransport',
        Effect: 'Deny',
        Principal: '*',
        Action: 's3:*',
        Resource: [`arn:aws:s3:::${bucket}`, `arn:aws:s3:::${bucket}/*`],
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      },
    ],
  };
}

/**
 * Why the policy does not deny every request without TLS, or undefined when it does. It does when
 * the Deny statements that count, together, cover every S3 action on the bucket and on all its
 * objects. A statement counts when its Effect is Deny, its Principal is everyone (`*`, `{AWS: "*"}`,
 * `{AWS: ["*"]}`; never NotPrincipal) and its only condition is `aws:SecureTransport = false` under
 * Bool or BoolIfExists: any other condition key narrows it (conditions are ANDed). Anything that
 * cannot be read is "not TLS-only" with a reason; this never throws.
 *
 * Coverage is checked on probes, in a matcher that is linear in the pattern (no regular expression
 * a hostile pattern could make backtrack): a few actions state access needs, an action no specific
 * pattern names (only `*`, `s3:*` and NotAction reach it), and one action inside each NotAction
 * pattern; the bucket ARN, two object keys of unusual shape (only an object part `*` covers both),
 * and one object inside each NotResource pattern.
 */
export function tlsOnlyGap(policyText: string, bucket: string): string | undefined {
  let policy: unknown;
  try {
    policy = JSON.parse(policyText);
  } catch {
    return 'the bucket policy is not JSON';
  }
  const statements = isRecord(policy) ? listOf(policy.Statement).filter(isRecord) : [];
  if (statements.length === 0) return 'the bucket policy has no statements';
  const candidates = statements.filter(
    (statement) => statement.Effect === 'Deny' && mentionsSecureTransport(statement.Condition),
  );
  if (candidates.length === 0)
    return statements.some((statement) => mentionsSecureTransport(statement.Condition))
      ? 'only an Allow names aws:SecureTransport, and an Allow denies nothing'
      : 'no Deny statement has the condition aws:SecureTransport = false';
  const counted: CountedStatement[] = [];
  const reasons: string[] = [];
  for (const statement of candidates) {
    const read = readStatement(statement);
    if (typeof read === 'string') reasons.push(read);
    else counted.push(read);
  }
  const problems = [...new Set(reasons)];
  if (counted.length === 0) return listText(problems, '; ');
  const gaps = coverageGaps(counted, bucket);
  if (gaps.length === 0) return undefined;
  return listText([...gaps, ...problems.map((problem) => `another ${problem.replace(/^the /, '')}`)], '; ');
}

/** Whether the policy denies every request without TLS (see tlsOnlyGap). */
export function deniesInsecureTransport(policyText: string, bucket: string): boolean {
  return tlsOnlyGap(policyText, bucket) === undefined;
}

interface Patterns {
  /** Not<Name>: the statement applies to everything the patterns do not match. */
  negated: boolean;
  /** Action patterns lower-cased, resource patterns with the partition set to `aws`. */
  patterns: string[];
  /** As written, for the finding. */
  written: string[];
}

interface CountedStatement {
  actions: Patterns;
  resources: Patterns;
}

function readStatement(statement: Record<string, unknown>): CountedStatement | string {
  const condition = conditionProblem(statement.Condition as Record<string, unknown>);
  if (condition !== undefined) return condition;
  if (statement.NotPrincipal !== undefined)
    return 'the Deny has NotPrincipal, so the principals it names are not denied';
  if (!coversEveryone(statement.Principal))
    return `the Deny applies only to ${listText(principalNames(statement.Principal).map(quote), ', ') || 'no principal'}, not to everyone`;
  const actions = patternsOf(statement, 'Action', (pattern) => pattern.toLowerCase());
  if (typeof actions === 'string') return actions;
  const resources = patternsOf(statement, 'Resource', (pattern) =>
    pattern.replace(/^arn:aws[a-z-]*:/, 'arn:aws:'),
  );
  if (typeof resources === 'string') return resources;
  return { actions, resources };
}

function mentionsSecureTransport(condition: unknown): boolean {
  return (
    isRecord(condition) &&
    Object.values(condition).some(
      (block) => isRecord(block) && Object.keys(block).some((key) => key.toLowerCase() === SECURE_TRANSPORT),
    )
  );
}

const SECURE_TRANSPORT = 'aws:securetransport';

/** Undefined when the only condition is `aws:SecureTransport = false` under Bool or BoolIfExists. */
function conditionProblem(condition: Record<string, unknown>): string | undefined {
  let insecure = false;
  let secure = false;
  let otherOperator: string | undefined;
  const others: string[] = [];
  for (const [operator, block] of Object.entries(condition)) {
    if (!isRecord(block)) {
      others.push(operator);
      continue;
    }
    for (const [key, value] of Object.entries(block)) {
      if (key.toLowerCase() !== SECURE_TRANSPORT) others.push(key);
      else if (!/^Bool(IfExists)?$/.test(operator)) {
        otherOperator ??= operator;
        others.push(`${operator} ${key}`);
      } else if (listOf(value).some((entry) => String(entry).toLowerCase() === 'false')) insecure = true;
      else secure = true;
    }
  }
  if (secure)
    return 'the Deny applies when aws:SecureTransport is true (requests with TLS), not when it is false';
  if (!insecure)
    return `the Deny tests aws:SecureTransport with ${quote(otherOperator ?? '?')}, not Bool aws:SecureTransport = false`;
  if (others.length > 0)
    return `the Deny also requires ${listText([...new Set(others)].map(quote), ' and ')}, so requests from elsewhere are not denied`;
  return undefined;
}

function coversEveryone(principal: unknown): boolean {
  if (principal === '*') return true;
  return isRecord(principal) && listOf(principal.AWS).includes('*');
}

function principalNames(principal: unknown): string[] {
  const values = isRecord(principal) ? Object.values(principal).flatMap(listOf) : listOf(principal);
  return values.map((value) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? '?')));
}

function patternsOf(
  statement: Record<string, unknown>,
  name: 'Action' | 'Resource',
  normalise: (pattern: string) => string,
): Patterns | string {
  const positive = statement[name];
  const negative = statement[`Not${name}`];
  if (positive !== undefined && negative !== undefined) return `the Deny has both ${name} and Not${name}`;
  if (positive === undefined && negative === undefined) return `the Deny has no ${name}`;
  const written = listOf(positive !== undefined ? positive : negative);
  if (written.length === 0) return `the Deny has an empty ${name} list`;
  if (!written.every((pattern): pattern is string => typeof pattern === 'string'))
    return `the Deny has a${name === 'Action' ? 'n' : ''} ${name} that is not a string`;
  return { negated: positive === undefined, patterns: written.map(normalise), written };
}

interface Probe {
  value: string;
  /** What the finding names when the probe is not covered. */
  label: string;
  /** The probe stands for every action no specific pattern names. */
  anyOther?: boolean;
}

/** The actions state access needs most (reading, writing, listing and versions, the policy itself). */
const STATE_ACTIONS = [
  's3:GetObject',
  's3:PutObject',
  's3:DeleteObject',
  's3:GetObjectVersion',
  's3:DeleteObjectVersion',
  's3:ListBucket',
  's3:ListBucketVersions',
  's3:GetBucketPolicy',
  's3:PutBucketPolicy',
];
/** `~` is in no action name or key anyone writes in a pattern, so only wildcards match it. */
const FILLER = '~~';
/** Bounds the probes a hostile policy of many Not* patterns could make. */
const MAX_PATTERN_PROBES = 32;

function coverageGaps(statements: readonly CountedStatement[], bucket: string): string[] {
  const actionProbes: Probe[] = [
    ...STATE_ACTIONS.map((action) => ({ value: action.toLowerCase(), label: action })),
    { value: `s3:${FILLER}`, label: 'the other S3 actions', anyOther: true },
    ...patternProbes(statements, (statement) => statement.actions, 's3:'),
  ];
  const bucketArn = `arn:aws:s3:::${bucket}`;
  const objects = `${bucketArn}/*`;
  const resourceProbes: Probe[] = [
    { value: bucketArn, label: bucketArn },
    { value: `${bucketArn}/~`, label: objects },
    { value: `${bucketArn}/${FILLER}/${FILLER}.~`, label: objects },
    ...patternProbes(statements, (statement) => statement.resources, `${bucketArn}/`),
  ];
  const appliesTo = (patterns: Patterns, probe: Probe) =>
    patterns.patterns.some((pattern) => globMatches(pattern, probe.value)) !== patterns.negated;
  const actionsOf = statements.map((statement) =>
    actionProbes.map((probe) => appliesTo(statement.actions, probe)),
  );
  const resourcesOf = statements.map((statement) =>
    resourceProbes.map((probe) => appliesTo(statement.resources, probe)),
  );
  const [subject, coversOnly, doesNotCover] =
    statements.length === 1
      ? ['the Deny', 'covers only', 'does not cover']
      : ['the Deny statements', 'cover only', 'do not cover'];

  // Per resource probe, the action probes no statement covers on it.
  const uncoveredResources = new Set<string>();
  const actionGaps = new Map<string, string[]>();
  resourceProbes.forEach((resource, r) => {
    const on = statements.map((_, s) => resourcesOf[s]![r]!);
    if (!on.some(Boolean)) {
      uncoveredResources.add(resource.label);
      return;
    }
    const missing = actionProbes.filter((_, a) => !statements.some((_, s) => on[s] && actionsOf[s]![a]));
    if (missing.length === 0) return;
    const covering = statements.filter((_, s) => on[s]);
    const text =
      missing.some((probe) => probe.anyOther) && covering.every((statement) => !statement.actions.negated)
        ? `${coversOnly} ${listText(unique(covering.flatMap((statement) => statement.actions.written)).map(quote), ', ')}`
        : `${doesNotCover} ${listText(unique(missing.map((probe) => probe.label)).map(quote), ', ')}`;
    actionGaps.set(text, unique([...(actionGaps.get(text) ?? []), resource.label]));
  });

  const gaps: string[] = [];
  const touched = unique(resourceProbes.map((probe) => probe.label)).filter(
    (label) => !uncoveredResources.has(label),
  );
  for (const [text, labels] of actionGaps) {
    // Name where only when the gap is not the same on everything the statements cover.
    const everywhere = actionGaps.size === 1 && labels.length === touched.length;
    gaps.push(`${subject} ${text}${everywhere ? '' : ` on ${listText(labels.map(quote), ', ')}`}`);
  }
  if (uncoveredResources.size > 0) {
    const missing = listText([...uncoveredResources].map(quote), ' or ');
    gaps.push(
      statements.every((statement) => !statement.resources.negated)
        ? `${subject} ${coversOnly} ${listText(unique(statements.flatMap((statement) => statement.resources.written)).map(quote), ', ')}, not ${missing}`
        : `${subject} ${doesNotCover} ${missing}`,
    );
  }
  return gaps;
}

/** One probe inside each Not* pattern that can match something under `prefix`. */
function patternProbes(
  statements: readonly CountedStatement[],
  patternsOfStatement: (statement: CountedStatement) => Patterns,
  prefix: string,
): Probe[] {
  const probes: Probe[] = [];
  for (const statement of statements) {
    const patterns = patternsOfStatement(statement);
    if (!patterns.negated) continue;
    patterns.patterns.forEach((pattern, index) => {
      const value = witness(pattern, prefix);
      if (value !== undefined && probes.length < MAX_PATTERN_PROBES)
        probes.push({ value, label: patterns.written[index]! });
    });
  }
  return probes;
}

/** A text that starts with `prefix`, goes on with at least one character, and `pattern` matches. */
function witness(pattern: string, prefix: string): string | undefined {
  for (const position of globPositions(pattern, prefix)) {
    const rest = pattern.slice(position).replace(/\*+/g, FILLER).replace(/\?/g, '~');
    if (rest !== '' && globMatches(pattern, prefix + rest)) return prefix + rest;
  }
  return undefined;
}

/** `*` matches any run of characters, `?` one; the caller lower-cases both sides where case does not matter. */
function globMatches(pattern: string, text: string): boolean {
  return globPositions(pattern, text).has(pattern.length);
}

/** The positions in `pattern` that matching all of `text` can reach (a set of NFA states: linear, no backtracking). */
function globPositions(pattern: string, text: string): Set<number> {
  let states = closure(pattern, [0]);
  for (let index = 0; index < text.length && states.size > 0; index++) {
    const next: number[] = [];
    for (const position of states) {
      const character = pattern[position];
      if (character === '*') next.push(position);
      else if (character === '?' || character === text[index]) next.push(position + 1);
    }
    states = closure(pattern, next);
  }
  return states;
}

/** Adds the positions after each `*`, which may match nothing. */
function closure(pattern: string, positions: readonly number[]): Set<number> {
  const states = new Set<number>();
  for (let position of positions) {
    while (!states.has(position)) {
      states.add(position);
      if (pattern[position] !== '*') break;
      position++;
    }
  }
  return states;
}

/** A value from the policy in the finding: bounded, one line, invisible characters written out as values are. */
function quote(value: string): string {
  return limitText(visibleValue(value), 80);
}

/** At most five items, then how many more. */
function listText(items: readonly string[], separator: string): string {
  if (items.length <= 5) return items.join(separator);
  return `${items.slice(0, 5).join(separator)}${separator}and ${items.length - 5} more`;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function listOf(value: unknown): unknown[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}
