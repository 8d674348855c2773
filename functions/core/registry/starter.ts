/**
 * `driftwatch init`: a starter driftwatch.yaml from what a state bucket (or a Terraform root) shows.
 * Pure: the caller lists the bucket or reads the backend block, and writes the file.
 *
 * Everything the bucket cannot tell (who owns a workspace, where its Terraform code is, where
 * findings go) is a placeholder containing TODO that still passes the schema, so the file parses at
 * once and `driftwatch routes --check` can point at each placeholder left (placeholderProblems).
 */
import { LOCK_SUFFIX, STATE_SUFFIX } from '../backend/discovery.js';
import { DEFAULT_WORKSPACE_KEY_PREFIX, inPrefix, splitWorkspaceKey } from '../backend/target.js';
import { escapeInvisible, visibleJson } from '../text/sanitize.js';
import { stateKeyProblem, terraformWorkspaceProblem } from './formats.js';
import type { Registry } from './model.js';
import type { PathSegment } from './yaml-source.js';

export const PLACEHOLDER_TEAM = 'todo-team';
export const PLACEHOLDER_ADDRESS = 'todo-team@example.com';
export const PLACEHOLDER_SOURCE_DIR = 'TODO-path-to-the-terraform-root';
export const PLACEHOLDER_ENVIRONMENT = 'TODO-environment';

/**
 * A value someone still has to fill in: one that init writes, exactly. Not the word TODO anywhere:
 * real estates have a `todo` service (`infra/todo-api`, a state key `todo/prod.tfstate`, a team
 * `todo`), which routes --check could then never pass and a scan would refuse.
 */
const PLACEHOLDERS: ReadonlySet<string> = new Set([
  PLACEHOLDER_TEAM,
  PLACEHOLDER_ADDRESS,
  PLACEHOLDER_SOURCE_DIR,
  PLACEHOLDER_ENVIRONMENT,
]);

export function isPlaceholder(value: string): boolean {
  return PLACEHOLDERS.has(value);
}

export interface StarterWorkspace {
  id: string;
  environment: string;
  /** The backend's `key` (for a CLI workspace: the key without `env:/<workspace>/`). */
  key: string;
  /** Terraform CLI workspace, when the state lives under `env:/<workspace>/`. */
  workspace?: string;
  workspaceKeyPrefix?: string;
  /** The state object's full key in the bucket. */
  stateKey: string;
  /** The backend uses `use_lockfile` (a `<state key>.tflock` was listed, or the block says so). */
  lockFile: boolean;
  /** The comment above the backend when it locks with lock files (default: the `.tflock` was listed). */
  lockComment?: string;
  /** The Terraform root, relative to the registry file; a placeholder when unknown. */
  sourceDir?: string;
  lockTable?: string;
  /** The state is meant to be SSE-KMS (the bucket's default, or the backend's `kms_key_id`). */
  requireKms?: boolean;
}

/**
 * One workspace per state object of a bucket listing: every `*.tfstate`, and every key a `.tflock`
 * names (a lock sits next to its state, whatever the state is called). `env:/<ws>/<key>` is the S3
 * backend's layout for CLI workspace `<ws>` of backend key `<key>`. With a prefix, only states under
 * it count, also below `env:/<ws>/` (where the backend puts them).
 */
export function workspacesFromKeys(
  keys: readonly string[],
  options: { prefix?: string } = {},
): StarterWorkspace[] {
  return readStarterListing(keys, options).workspaces;
}

export interface StarterListing {
  workspaces: StarterWorkspace[];
  /** State objects no registry entry can name (a key starting with '/', which Terraform refuses too). */
  skipped: string[];
  /** The objects listed within the prefix (states, locks and everything else). */
  inScope: number;
}

/** {@link workspacesFromKeys}, with what was left out and how much was looked at, for init to say. */
export function readStarterListing(
  keys: readonly string[],
  options: { prefix?: string } = {},
): StarterListing {
  const scope = { prefix: options.prefix ?? '', workspaceKeyPrefixes: [DEFAULT_WORKSPACE_KEY_PREFIX] };
  const listed = new Set(keys.filter((key) => inPrefix(scope, key)));
  const locked = new Set(
    [...listed].filter((key) => key.endsWith(LOCK_SUFFIX)).map((key) => key.slice(0, -LOCK_SUFFIX.length)),
  );
  const candidates = [...listed]
    .filter((key) => !key.endsWith('/') && (key.endsWith(STATE_SUFFIX) || locked.has(key)))
    .sort();
  const skipped = candidates.filter((key) => stateKeyProblem(key) !== undefined);
  const taken = new Set<string>();
  const workspaces = candidates
    .filter((key) => stateKeyProblem(key) === undefined)
    .map((stateKey) => {
      const { key, cliWorkspace } = backendKeyOf(stateKey);
      const workspace: StarterWorkspace = {
        id: uniqueId(workspaceIdFor(key, cliWorkspace), taken),
        environment: guessEnvironment([...key.split('/'), ...(cliWorkspace ? [cliWorkspace] : [])]),
        key,
        stateKey,
        lockFile: locked.has(stateKey),
      };
      if (cliWorkspace) {
        workspace.workspace = cliWorkspace;
        workspace.workspaceKeyPrefix = DEFAULT_WORKSPACE_KEY_PREFIX;
      }
      return workspace;
    });
  return { workspaces, skipped, inScope: listed.size };
}

/**
 * The backend key and CLI workspace of a state object. Below `env:/<ws>/` only when Terraform could
 * have put it there: never for `default` (whose state is the backend key itself) nor for a name
 * Terraform refuses. Such an object is a state of its own, named by its whole key.
 */
function backendKeyOf(stateKey: string): { key: string; cliWorkspace?: string } {
  const split = splitWorkspaceKey([DEFAULT_WORKSPACE_KEY_PREFIX], stateKey);
  if (split === undefined || split.cliWorkspace === 'default') return { key: stateKey };
  if (terraformWorkspaceProblem(split.cliWorkspace) !== undefined || stateKeyProblem(split.key) !== undefined)
    return { key: stateKey };
  return split;
}

/**
 * An id from a state key: `payments/prod.tfstate` → `payments-prod`, `network/terraform.tfstate` →
 * `network` (terraform.tfstate is the conventional name, it says nothing), plus `-<ws>` for a CLI
 * workspace. Only characters a registry id allows (ids become parts of S3 keys), at most 63.
 */
export function workspaceIdFor(key: string, cliWorkspace?: string): string {
  const segments = key
    .replace(/\.tfstate$/, '')
    .split('/')
    .filter((segment) => segment !== '');
  if (segments.length > 1 && segments.at(-1) === 'terraform') segments.pop();
  const base = sanitizeId([...segments, ...(cliWorkspace ? [cliWorkspace] : [])].join('-'));
  return base === '' ? 'state' : base;
}

/**
 * Lower case, Latin letters without their accents (`ünïcødé` → `unicode`, not `n-c-d`); anything
 * else than a-z 0-9 - _ . becomes '-'; starts with a letter or digit.
 */
export function sanitizeId(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[æøßđłœþ]/g, (letter) => LATIN_LETTERS[letter] ?? letter)
    .replace(/[^a-z0-9\-_.]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .replace(/[^a-z0-9]+$/, '')
    .slice(0, 63)
    .replace(/[^a-z0-9]+$/, '');
}

/** Latin letters that NFKD does not split into a letter and its accent. */
const LATIN_LETTERS: Record<string, string> = { æ: 'ae', ø: 'o', ß: 'ss', đ: 'd', ł: 'l', œ: 'oe', þ: 'th' };

/** `payments`, `payments-2`, …: ids must be unique; a suffix replaces the end of a 63-character id. */
function uniqueId(candidate: string, taken: Set<string>): string {
  let id = candidate;
  for (let n = 2; taken.has(id); n++) {
    const suffix = `-${n}`;
    id = `${candidate.slice(0, 63 - suffix.length).replace(/[^a-z0-9]+$/, '')}${suffix}`;
  }
  taken.add(id);
  return id;
}

const ENVIRONMENTS: Record<string, string> = {
  prod: 'prod',
  production: 'prod',
  prd: 'prod',
  live: 'prod',
  staging: 'staging',
  stage: 'staging',
  stg: 'staging',
  preprod: 'staging',
  preproduction: 'staging',
  // Not production: read as one word, so that `non-prod` is never guessed `prod`.
  nonprod: 'nonprod',
  nonproduction: 'nonprod',
  dev: 'dev',
  development: 'dev',
  test: 'test',
  testing: 'test',
  qa: 'qa',
  uat: 'uat',
  sandbox: 'sandbox',
};

/** The environment a key's parts name (`prod`, `staging.tfstate`), or the placeholder. */
export function guessEnvironment(parts: readonly string[]): string {
  for (const part of [...parts].reverse()) {
    const words = part
      .toLowerCase()
      .replace(/\.tfstate$/, '')
      .split(/[^a-z0-9]+/);
    for (let index = words.length - 1; index >= 0; index--) {
      // A word with the one before it first: `non-prod` and `pre-prod` are not `prod`.
      const environment =
        ENVIRONMENTS[`${words[index - 1] ?? ''}${words[index]}`] ?? ENVIRONMENTS[words[index]!];
      if (environment) return environment;
    }
  }
  return PLACEHOLDER_ENVIRONMENT;
}

export interface StarterInput {
  bucket: string;
  region: string;
  workspaces: readonly StarterWorkspace[];
  /** Says where the workspaces came from, for the header: `s3://tfstate`, `the backend block of infra/`. */
  origin: string;
  /** From a bucket listing, which cannot show DynamoDB lock tables: the header says so. */
  listed?: boolean;
  /** What was left out of the listing, for the header and the summary line. */
  note?: string;
  /** Why the workspaces with `requireKms` have it, for the header: `s3://tfstate encrypts … with SSE-KMS`. */
  kmsReason?: string;
}

/**
 * The kinds of placeholder renderStarterRegistry writes for this input: owners and destinations
 * always, `source.dir` and `environment` where init could not tell them.
 */
export function placeholdersLeft(input: StarterInput): string[] {
  return [
    'owners',
    'destinations',
    ...(input.workspaces.some((workspace) => workspace.sourceDir === undefined) ? ['source.dir'] : []),
    ...(input.workspaces.some((workspace) => isPlaceholder(workspace.environment)) ? ['environment'] : []),
  ];
}

/**
 * The starter registry as YAML, with comments on every TODO. Hand-written rather than serialised
 * so that the comments sit next to the lines they explain.
 */
export function renderStarterRegistry(input: StarterInput): string {
  const { workspaces } = input;
  const lines = [
    '# driftwatch.yaml: a starter registry written by `driftwatch init`',
    `# from ${escapeInvisible(input.origin)}: ${workspaces.length} workspace${workspaces.length === 1 ? '' : 's'}, one per state object.`,
    '#',
    '# Replace every TODO before the first scan; `driftwatch routes --check` lists the ones left:',
    '#   - owners: your team id and where its findings go (email, chatbot-slack, https or sqs).',
    "#   - each workspace's source.dir: the Terraform root that writes this state, relative to this file.",
    "#   - each workspace's owner and environment (guessed from the key where it names one).",
    ...(input.listed
      ? [
          '# A DynamoDB lock table (dynamodb_table) cannot be seen from the bucket: if a workspace uses one,',
          '# add `lockTable: <table>` to its backend so stale locks in it are checked too.',
        ]
      : []),
    ...(input.note ? [`# Note: ${escapeInvisible(input.note)}.`] : []),
    ...(input.kmsReason
      ? [
          `# requireKms: ${escapeInvisible(input.kmsReason)}, so each state must be SSE-KMS too: a state`,
          '# written otherwise (a backend with `encrypt = true` and no `kms_key_id` asks for SSE-S3) is a finding.',
        ]
      : []),
    '# Reference: docs/configuration.md; next: driftwatch scan --registry <this file>.',
    'version: 1',
    'owners:',
    '  # TODO: the team that receives findings no route claims, and scan-health alerts.',
    `  fallback: ${PLACEHOLDER_TEAM}`,
    '  teams:',
    `    - id: ${PLACEHOLDER_TEAM} # TODO: your team's id (a-z, 0-9, '-', '_', '.')`,
    '      destinations:',
    '        # TODO: a real destination, e.g. { type: chatbot-slack, workspace: T0123ABCD, channel: C0456EFGH }',
    `        - { type: email, address: ${PLACEHOLDER_ADDRESS} }`,
    'workspaces:',
  ];
  for (const workspace of workspaces) {
    lines.push(`  - id: ${scalar(workspace.id)}`);
    lines.push(`    owner: ${PLACEHOLDER_TEAM} # TODO: the team that owns this workspace`);
    const environmentNote = isPlaceholder(workspace.environment)
      ? ' # TODO: prod, staging, … (destinations can filter on it)'
      : ' # guessed from the key';
    lines.push(`    environment: ${scalar(workspace.environment)}${environmentNote}`);
    const sourceDir = workspace.sourceDir ?? PLACEHOLDER_SOURCE_DIR;
    const sourceNote = isPlaceholder(sourceDir)
      ? ' # TODO: the directory of the Terraform root that writes this state'
      : '';
    lines.push(`    source: { dir: ${scalar(sourceDir)} }${sourceNote}`);
    const backend = [
      `bucket: ${scalar(input.bucket)}`,
      `key: ${scalar(workspace.key)}`,
      `region: ${scalar(input.region)}`,
      ...(workspace.workspace ? [`workspace: ${scalar(workspace.workspace)}`] : []),
      ...(workspace.workspaceKeyPrefix
        ? [`workspaceKeyPrefix: ${scalar(workspace.workspaceKeyPrefix)}`]
        : []),
      ...(workspace.lockTable ? [`lockTable: ${scalar(workspace.lockTable)}`] : []),
      ...(workspace.requireKms ? ['requireKms: true'] : []),
    ];
    if (workspace.lockFile)
      lines.push(
        // Keys and file names are data: a line break in one would end the comment and add YAML.
        `    # ${escapeInvisible(workspace.lockComment ?? `${workspace.stateKey}${LOCK_SUFFIX} was listed: this backend locks with use_lockfile`)}`,
      );
    lines.push(`    backend: { ${backend.join(', ')} }`);
  }
  if (workspaces.length === 0) lines[lines.length - 1] = 'workspaces: []';
  lines.push('');
  return lines.join('\n');
}

/**
 * Plain when YAML reads it back as the same string; otherwise JSON-quoted (valid YAML), with
 * invisible characters as `\\uXXXX` so that the file shows what the key holds.
 */
function scalar(value: string): string {
  const plain =
    /^[A-Za-z0-9][A-Za-z0-9._/@-]*$/.test(value) &&
    !/^(true|false|yes|no|on|off|null|~|y|n)$/i.test(value) &&
    !/^[-+]?(\d[\d_]*)?(\.\d*)?([eE][-+]?\d+)?$/.test(value) &&
    !/^0[box]/i.test(value);
  return plain ? value : visibleJson(value);
}

export interface PlaceholderProblem {
  /** The workspace id, or `owners`. */
  scope: string;
  path: PathSegment[];
  value: string;
  /** What to put there instead. */
  fix: string;
}

/**
 * Every placeholder (a value init wrote for what it could not tell) left in the owners and
 * workspaces of a registry, with what belongs there: a starter registry parses, but its findings
 * would go to nobody real.
 */
export function placeholderProblems(registry: Registry): PlaceholderProblem[] {
  const problems: PlaceholderProblem[] = [];
  const check = (scope: string, path: PathSegment[], value: string | undefined, fix: string) => {
    if (value !== undefined && isPlaceholder(value)) problems.push({ scope, path, value, fix });
  };
  const { owners } = registry;
  check(
    'owners',
    ['owners', 'fallback'],
    owners.fallback,
    'the id of the team that receives what no route claims',
  );
  owners.teams.forEach((team, t) => {
    check('owners', ['owners', 'teams', t, 'id'], team.id, "your team's id");
    team.destinations.forEach((destination, d) => {
      const path = ['owners', 'teams', t, 'destinations', d];
      const fix = 'a real destination of this team';
      // The one destination init writes; another type was written by someone.
      if (destination.type === 'email') check('owners', [...path, 'address'], destination.address, fix);
    });
  });
  registry.workspaces.forEach((workspace, w) => {
    const path = ['workspaces', w];
    // Ids, source bundles and backends come from the bucket or the root, never placeholders.
    check(workspace.id, [...path, 'owner'], workspace.owner, 'the id of the team that owns this workspace');
    check(
      workspace.id,
      [...path, 'environment'],
      workspace.environment,
      'its environment (prod, staging, …)',
    );
    const source = workspace.source;
    if ('dir' in source)
      check(
        workspace.id,
        [...path, 'source', 'dir'],
        source.dir,
        'the Terraform root that writes this state, relative to the registry',
      );
    workspace.routes.forEach((route, r) => {
      check(workspace.id, [...path, 'routes', r, 'owner'], route.owner, 'the id of the owning team');
    });
  });
  return problems;
}
