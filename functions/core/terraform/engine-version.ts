/**
 * Which Terraform (or OpenTofu) version a workspace needs, decided from plain data: the registry
 * entry, the root's version file (tfenv's `.terraform-version`, tofuenv's `.opentofu-version`) and
 * the root's `required_version` constraints. Constraint syntax and matching follow HashiCorp's
 * go-version, which Terraform and OpenTofu use for `required_version`.
 */

export type Engine = 'terraform' | 'opentofu';

export const ENGINES: readonly Engine[] = ['terraform', 'opentofu'];

/** The executable each engine's releases ship. */
export function engineBinaryName(engine: Engine): string {
  return engine === 'opentofu' ? 'tofu' : 'terraform';
}

/** The version file of the version managers users already keep in their roots. */
export function engineVersionFile(engine: Engine): string {
  return engine === 'opentofu' ? '.opentofu-version' : '.terraform-version';
}

export interface Version {
  /** Numeric segments, always three (`1.5` is 1.5.0). */
  segments: [number, number, number];
  /** `beta1` of 1.10.0-beta1; '' for a release. */
  prerelease: string;
  text: string;
}

const VERSION = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

/** `1.9.8`, `v1.9.8`, `1.10.0-rc1`, `1.5` (a partial version, as constraints write it). */
export function parseVersion(text: string): (Version & { given: number }) | undefined {
  const match = VERSION.exec(text.trim());
  if (!match) return undefined;
  const given = match[3] !== undefined ? 3 : match[2] !== undefined ? 2 : 1;
  return {
    segments: [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)],
    prerelease: match[4] ?? '',
    text: text.trim().replace(/^v/, ''),
    given,
  };
}

/** An exact release version (three segments), the form release layouts and the cache use. */
export function isExactVersion(text: string): boolean {
  const version = parseVersion(text);
  return version !== undefined && version.given === 3 && !text.trim().startsWith('v');
}

export function compareVersions(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) {
    const difference = a.segments[i]! - b.segments[i]!;
    if (difference !== 0) return Math.sign(difference);
  }
  // A release sorts after its prereleases; prereleases compare by their dotted parts.
  if (a.prerelease === b.prerelease) return 0;
  if (a.prerelease === '') return 1;
  if (b.prerelease === '') return -1;
  return comparePrerelease(a.prerelease, b.prerelease);
}

function comparePrerelease(a: string, b: string): number {
  const left = a.split('.');
  const right = b.split('.');
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const x = left[i];
    const y = right[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    const bothNumeric = /^\d+$/.test(x) && /^\d+$/.test(y);
    if (bothNumeric) return Math.sign(Number(x) - Number(y));
    return x < y ? -1 : 1;
  }
  return 0;
}

type Operator = '=' | '!=' | '>' | '>=' | '<' | '<=' | '~>';

export interface ConstraintTerm {
  operator: Operator;
  version: Version & { given: number };
}

/** All terms must hold (`>= 1.5, < 2.0`). */
export type Constraint = ConstraintTerm[];

const TERM = /^\s*(=|!=|>=|<=|>|<|~>)?\s*(\S+)\s*$/;

/** Terraform's constraint syntax: comma-separated `op version` terms; no operator means `=`. */
export function parseConstraint(text: string): { constraint: Constraint } | { problem: string } {
  if (text.trim() === '') return { problem: 'an empty version constraint' };
  const constraint: Constraint = [];
  for (const part of text.split(',')) {
    const match = TERM.exec(part);
    const version = match ? parseVersion(match[2]!) : undefined;
    if (!match || !version) return { problem: `'${part.trim()}' is not a version constraint term` };
    constraint.push({ operator: (match[1] ?? '=') as Operator, version });
  }
  return { constraint };
}

/**
 * go-version's rules: a prerelease version only satisfies a constraint whose terms name a
 * prerelease of the same major.minor.patch; `~> 1.9.0` is `>= 1.9.0, < 1.10.0`, `~> 1.9` is
 * `>= 1.9, < 2.0`.
 */
export function satisfies(version: Version, constraint: Constraint): boolean {
  if (version.prerelease !== '') {
    const allowed = constraint.some(
      (term) =>
        term.version.prerelease !== '' &&
        term.version.segments.every((segment, i) => segment === version.segments[i]),
    );
    if (!allowed) return false;
  }
  return constraint.every((term) => holds(version, term));
}

function holds(version: Version, term: ConstraintTerm): boolean {
  const order = compareVersions(version, term.version);
  switch (term.operator) {
    case '=':
      return order === 0;
    case '!=':
      return order !== 0;
    case '>':
      return order > 0;
    case '>=':
      return order >= 0;
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '~>': {
      if (order < 0) return false;
      // The last given segment may grow; the ones before it are fixed.
      const fixed = Math.max(1, term.version.given - 1);
      return term.version.segments.slice(0, fixed).every((segment, i) => segment === version.segments[i]);
    }
  }
}

/** What a `.terraform-version` / `.opentofu-version` file asks for, in tfenv's format. */
export type VersionFileEntry =
  | { kind: 'exact'; version: string }
  | { kind: 'latest'; pattern?: string }
  | { kind: 'min-required' }
  | { kind: 'latest-allowed' };

/** The first non-comment line: a version, `latest`, `latest:<regex>`, `min-required`, `latest-allowed`. */
export function parseVersionFile(text: string): { entry: VersionFileEntry } | { problem: string } {
  const line = text
    .split(/\r?\n/)
    .map((row) => row.replace(/#.*$/, '').trim())
    .find((row) => row !== '');
  if (line === undefined) return { problem: 'the file is empty' };
  if (line === 'latest') return { entry: { kind: 'latest' } };
  if (line === 'min-required') return { entry: { kind: 'min-required' } };
  if (line === 'latest-allowed') return { entry: { kind: 'latest-allowed' } };
  if (line.startsWith('latest:')) {
    const pattern = line.slice('latest:'.length);
    try {
      new RegExp(pattern);
    } catch {
      return { problem: `'${pattern}' is not a regular expression` };
    }
    return { entry: { kind: 'latest', pattern } };
  }
  const version = line.replace(/^v/, '');
  if (isExactVersion(version)) return { entry: { kind: 'exact', version } };
  return {
    problem: `'${line}' is not a version, latest, latest:<regex>, min-required or latest-allowed`,
  };
}

export type VersionSource = 'registry' | 'version-file' | 'required_version' | 'default';

/** What the scan must run. */
export type VersionRequest =
  /** No requirement anywhere: the runner's default binary. */
  | { kind: 'default'; source: 'default' }
  | { kind: 'exact'; version: string; source: VersionSource; label: string }
  /**
   * Any version that satisfies every constraint (and `pattern`, a tfenv regex): the newest one, or
   * the oldest for tfenv's min-required. `preferDefault`: the default binary wins when it satisfies
   * (a root's own `required_version` is a floor its authors set, not a request to upgrade).
   */
  | {
      kind: 'range';
      constraints: Constraint[];
      pattern?: string;
      pick: 'newest' | 'oldest';
      preferDefault: boolean;
      source: VersionSource;
      label: string;
    };

export interface VersionInputs {
  engine: Engine;
  /** The registry's `terraformVersion`: an exact version or a constraint. */
  registry?: string;
  /** Text of the root's version file, if it has one. */
  versionFile?: string;
  /** Every `required_version` of the root module's terraform blocks. */
  requiredVersions: readonly string[];
}

/**
 * The registry entry wins, then the version file, then `required_version`; without any, the default
 * binary. A problem names where the bad value is.
 */
export function versionRequest(inputs: VersionInputs): { request: VersionRequest } | { problem: string } {
  const fileName = engineVersionFile(inputs.engine);
  const required: Constraint[] = [];
  for (const text of inputs.requiredVersions) {
    const parsed = parseConstraint(text);
    if ('problem' in parsed) return { problem: `required_version "${text}": ${parsed.problem}` };
    required.push(parsed.constraint);
  }
  const requiredLabel = `required_version ${inputs.requiredVersions.map((text) => `"${text}"`).join(' and ')}`;

  if (inputs.registry !== undefined) {
    const text = inputs.registry.trim();
    if (isExactVersion(text))
      return {
        request: { kind: 'exact', version: text, source: 'registry', label: `terraformVersion ${text}` },
      };
    const parsed = parseConstraint(text);
    if ('problem' in parsed) return { problem: `terraformVersion "${text}": ${parsed.problem}` };
    const exact = exactOf(parsed.constraint);
    if (exact)
      return {
        request: { kind: 'exact', version: exact, source: 'registry', label: `terraformVersion ${text}` },
      };
    return {
      request: {
        kind: 'range',
        constraints: [parsed.constraint],
        pick: 'newest',
        preferDefault: false,
        source: 'registry',
        label: `terraformVersion "${text}"`,
      },
    };
  }

  if (inputs.versionFile !== undefined) {
    const parsed = parseVersionFile(inputs.versionFile);
    if ('problem' in parsed) return { problem: `${fileName}: ${parsed.problem}` };
    const { entry } = parsed;
    if (entry.kind === 'exact')
      return {
        request: {
          kind: 'exact',
          version: entry.version,
          source: 'version-file',
          label: `${fileName} ${entry.version}`,
        },
      };
    if (entry.kind === 'latest')
      return {
        request: {
          kind: 'range',
          constraints: [],
          ...(entry.pattern !== undefined ? { pattern: entry.pattern } : {}),
          pick: 'newest',
          preferDefault: false,
          source: 'version-file',
          label: `${fileName} latest${entry.pattern !== undefined ? `:${entry.pattern}` : ''}`,
        },
      };
    if (required.length === 0)
      return {
        problem: `${fileName}: ${entry.kind} needs a required_version in the root module, and there is none`,
      };
    return {
      request: {
        kind: 'range',
        constraints: required,
        pick: entry.kind === 'min-required' ? 'oldest' : 'newest',
        preferDefault: false,
        source: 'version-file',
        label: `${fileName} ${entry.kind} (${requiredLabel})`,
      },
    };
  }

  if (required.length > 0)
    return {
      request: {
        kind: 'range',
        constraints: required,
        pick: 'newest',
        preferDefault: true,
        source: 'required_version',
        label: requiredLabel,
      },
    };
  return { request: { kind: 'default', source: 'default' } };
}

/** `= 1.9.8` or `1.9.8` alone pins one version. */
function exactOf(constraint: Constraint): string | undefined {
  if (constraint.length !== 1) return undefined;
  const [term] = constraint;
  return term!.operator === '=' && term!.version.given === 3 ? term!.version.text : undefined;
}

/** Does `version` meet the request (used for the default binary and `terraform-X.Y.Z` on PATH)? */
export function meetsRequest(request: VersionRequest, versionText: string): boolean {
  if (request.kind === 'default') return true;
  const version = parseVersion(versionText);
  if (!version) return false;
  if (request.kind === 'exact') {
    const wanted = parseVersion(request.version);
    return wanted !== undefined && compareVersions(version, wanted) === 0;
  }
  if (request.pattern !== undefined && !new RegExp(request.pattern).test(version.text)) return false;
  if (request.constraints.length === 0) return version.prerelease === '' || request.pattern !== undefined;
  return request.constraints.every((constraint) => satisfies(version, constraint));
}

/**
 * The version to run for a range request, from every version known (the release index, the cache,
 * the default binary's): the newest (or oldest) that meets it; the default binary's own version
 * first when the request prefers it. Undefined when none does.
 */
export function selectVersion(
  request: Extract<VersionRequest, { kind: 'range' }>,
  candidates: { known: readonly string[]; defaultVersion?: string },
): string | undefined {
  if (request.preferDefault && candidates.defaultVersion && meetsRequest(request, candidates.defaultVersion))
    return candidates.defaultVersion;
  const versions = [
    ...new Set([...candidates.known, ...(candidates.defaultVersion ? [candidates.defaultVersion] : [])]),
  ]
    .filter(isExactVersion)
    .map((text) => parseVersion(text)!)
    .filter((version) => meetsRequest(request, version.text))
    .sort(compareVersions);
  const chosen = request.pick === 'oldest' ? versions[0] : versions.at(-1);
  return chosen?.text;
}
