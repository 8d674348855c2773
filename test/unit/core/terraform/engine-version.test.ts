import { describe, expect, it } from 'vitest';
import {
  meetsRequest,
  parseConstraint,
  parseVersion,
  parseVersionFile,
  satisfies,
  selectVersion,
  type VersionInputs,
  type VersionRequest,
  versionRequest,
} from '../../../../functions/core/terraform/engine-version.js';

const RELEASES = [
  '1.4.7',
  '1.5.0',
  '1.5.7',
  '1.9.0',
  '1.9.8',
  '1.10.0-beta1',
  '1.10.0-rc1',
  '1.10.0',
  '1.10.5',
  '1.11.4',
  '2.0.0-alpha1',
];

function constraint(text: string) {
  const parsed = parseConstraint(text);
  if ('problem' in parsed) throw new Error(parsed.problem);
  return parsed.constraint;
}

function matching(text: string): string[] {
  return RELEASES.filter((version) => satisfies(parseVersion(version)!, constraint(text)));
}

function request(inputs: Partial<VersionInputs>): VersionRequest {
  const result = versionRequest({ engine: 'terraform', requiredVersions: [], ...inputs });
  if ('problem' in result) throw new Error(result.problem);
  return result.request;
}

function range(inputs: Partial<VersionInputs>) {
  const result = request(inputs);
  if (result.kind !== 'range') throw new Error(`expected a range, got ${result.kind}`);
  return result;
}

describe('Terraform version constraints (go-version semantics)', () => {
  it.each([
    ['>= 1.5, < 2.0', ['1.5.0', '1.5.7', '1.9.0', '1.9.8', '1.10.0', '1.10.5', '1.11.4']],
    ['~> 1.9.0', ['1.9.0', '1.9.8']],
    ['~> 1.9', ['1.9.0', '1.9.8', '1.10.0', '1.10.5', '1.11.4']],
    ['~> 1', ['1.4.7', '1.5.0', '1.5.7', '1.9.0', '1.9.8', '1.10.0', '1.10.5', '1.11.4']],
    ['>= 1.9, != 1.9.8, < 1.11', ['1.9.0', '1.10.0', '1.10.5']],
    ['= 1.5.7', ['1.5.7']],
    ['1.5.7', ['1.5.7']],
    ['> 1.10.0, <= 1.11.4', ['1.10.5', '1.11.4']],
    // A prerelease matches only a constraint naming a prerelease of the same version.
    ['>= 1.10.0-beta1, < 1.10.0', ['1.10.0-beta1', '1.10.0-rc1']],
    ['>= 1.10.0-rc1', ['1.10.0-rc1', '1.10.0', '1.10.5', '1.11.4']],
  ])('%s', (text, expected) => {
    expect(matching(text)).toEqual(expected);
  });

  it.each(['', '>= ', '~> one', '>= 1.5,', '=> 1.5'])('refuses %j', (text) => {
    expect(parseConstraint(text)).toHaveProperty('problem');
  });
});

describe('.terraform-version (tfenv format)', () => {
  it.each([
    ['1.9.8\n', { kind: 'exact', version: '1.9.8' }],
    ['v1.9.8', { kind: 'exact', version: '1.9.8' }],
    ['# pinned by platform\n\n1.10.0-rc1 # comment\n', { kind: 'exact', version: '1.10.0-rc1' }],
    ['latest', { kind: 'latest' }],
    ['latest:^1\\.9\\.', { kind: 'latest', pattern: '^1\\.9\\.' }],
    ['min-required', { kind: 'min-required' }],
    ['latest-allowed', { kind: 'latest-allowed' }],
  ])('%j', (text, entry) => {
    expect(parseVersionFile(text)).toEqual({ entry });
  });

  it.each([
    ['', /empty/],
    ['1.9', /not a version/],
    ['latest:[', /not a regular expression/],
  ])('refuses %j', (text, problem) => {
    const parsed = parseVersionFile(text);
    expect('problem' in parsed && parsed.problem).toMatch(problem);
  });
});

describe('which version a workspace needs', () => {
  it('the registry wins over the version file and required_version', () => {
    expect(request({ registry: '1.9.8', versionFile: '1.5.7', requiredVersions: ['>= 1.10'] })).toMatchObject(
      {
        kind: 'exact',
        version: '1.9.8',
        source: 'registry',
      },
    );
    expect(request({ registry: '= 1.9.8' })).toMatchObject({ kind: 'exact', version: '1.9.8' });
    expect(range({ registry: '~> 1.9.0', versionFile: '1.5.7' })).toMatchObject({
      source: 'registry',
      pick: 'newest',
      preferDefault: false,
    });
  });

  it('the version file wins over required_version; min-required and latest-allowed read required_version', () => {
    expect(request({ versionFile: '1.5.7', requiredVersions: ['>= 1.10'] })).toMatchObject({
      kind: 'exact',
      version: '1.5.7',
      source: 'version-file',
    });
    const min = range({ versionFile: 'min-required', requiredVersions: ['>= 1.5, < 1.10'] });
    expect(selectVersion(min, { known: RELEASES })).toBe('1.5.0');
    const allowed = range({ versionFile: 'latest-allowed', requiredVersions: ['>= 1.5, < 1.10'] });
    expect(selectVersion(allowed, { known: RELEASES })).toBe('1.9.8');
    expect(
      versionRequest({ engine: 'terraform', versionFile: 'min-required', requiredVersions: [] }),
    ).toEqual({
      problem:
        '.terraform-version: min-required needs a required_version in the root module, and there is none',
    });
  });

  it('OpenTofu reads .opentofu-version (its problems name that file)', () => {
    expect(versionRequest({ engine: 'opentofu', versionFile: 'nope', requiredVersions: [] })).toEqual({
      problem:
        ".opentofu-version: 'nope' is not a version, latest, latest:<regex>, min-required or latest-allowed",
    });
  });

  it('required_version alone keeps the default binary when it satisfies every block, else the newest that does', () => {
    const required = range({ requiredVersions: ['>= 1.5', '< 1.11'] });
    expect(required).toMatchObject({ source: 'required_version', preferDefault: true });
    expect(selectVersion(required, { known: RELEASES, defaultVersion: '1.9.0' })).toBe('1.9.0');
    expect(selectVersion(required, { known: RELEASES, defaultVersion: '1.11.4' })).toBe('1.10.5');
  });

  it('a registry constraint takes the newest matching release, not the default binary', () => {
    const pinned = range({ registry: '~> 1.9.0' });
    expect(selectVersion(pinned, { known: RELEASES, defaultVersion: '1.9.0' })).toBe('1.9.8');
    // Only the cache and the default binary are known (no release index): the best of those.
    expect(selectVersion(pinned, { known: ['1.9.2'], defaultVersion: '1.11.4' })).toBe('1.9.2');
    expect(selectVersion(range({ registry: '>= 3.0' }), { known: RELEASES })).toBeUndefined();
  });

  it('latest is the newest release (never a prerelease); latest:<regex> filters by the pattern', () => {
    expect(selectVersion(range({ versionFile: 'latest' }), { known: RELEASES })).toBe('1.11.4');
    expect(selectVersion(range({ versionFile: 'latest:^1\\.10\\.' }), { known: RELEASES })).toBe('1.10.5');
  });

  it('no requirement anywhere: the default binary', () => {
    expect(request({})).toEqual({ kind: 'default', source: 'default' });
  });

  it('a bad value names where it is', () => {
    expect(versionRequest({ engine: 'terraform', registry: '~> x', requiredVersions: [] })).toEqual({
      problem: `terraformVersion "~> x": '~> x' is not a version constraint term`,
    });
    expect(versionRequest({ engine: 'terraform', requiredVersions: ['>= banana'] })).toEqual({
      problem: `required_version ">= banana": '>= banana' is not a version constraint term`,
    });
  });

  it('meetsRequest: an exact request is met by that version only', () => {
    const exact = request({ registry: '1.9.8' });
    expect(meetsRequest(exact, '1.9.8')).toBe(true);
    expect(meetsRequest(exact, '1.9.80')).toBe(false);
    expect(meetsRequest(exact, '1.9.8-rc1')).toBe(false);
  });
});
