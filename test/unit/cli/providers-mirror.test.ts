import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { mirrorProviders } from '../../../cli/providers-mirror.js';
import type { LoadedRegistry } from '../../../cli/registry-file.js';
import { parseRegistry } from '../../../functions/core/registry/parse.js';
import { runCli } from '../../helpers/integration.js';
import { useTempDirs } from '../../helpers/processes.js';

/**
 * `terraform providers mirror` only downloads from origin registries (it ignores the CLI
 * configuration's provider_installation: checked with Terraform 1.11.4), so with no internet here a
 * stand-in writes what it would: the packed layout for the version in the workspace's lock file, for
 * each -platform. It records its arguments.
 */
const FAKE_TERRAFORM = `#!/bin/sh
[ "$1 $2" = "providers mirror" ] || exit 3
shift 2
echo "$(pwd) $*" >> "$FAKE_TF_RECORD"
for last in "$@"; do :; done
version=$(sed -n 's/^ *version *= *"\\(.*\\)"/\\1/p' .terraform.lock.hcl)
[ -n "$version" ] || { printf 'Error: Inconsistent dependency lock file\\n' >&2; exit 1; }
dir="$last/registry.terraform.io/hashicorp/aws"
mkdir -p "$dir"
archives=""
for arg in "$@"; do
  case "$arg" in -platform=*)
    p="\${arg#-platform=}"
    printf 'zip %s %s' "$version" "$p" > "$dir/terraform-provider-aws_\${version}_\${p}.zip"
    archives="$archives\${archives:+,}\\"$p\\":{\\"url\\":\\"terraform-provider-aws_\${version}_\${p}.zip\\",\\"hashes\\":[\\"h1:$version-$p\\"]}"
  ;; esac
done
if [ -f "$dir/index.json" ]; then versions=$(sed 's/^{"versions":{\\(.*\\)}}$/\\1/' "$dir/index.json"),; fi
printf '{"versions":{%s"%s":{}}}' "$versions" "$version" > "$dir/index.json"
printf '{"archives":{%s}}' "$archives" > "$dir/$version.json"
`;

const tempDir = useTempDirs('driftwatch-providers-mirror-');
const AWS_DIR = 'registry.terraform.io/hashicorp/aws';

function setUp() {
  const base = tempDir();
  const terraform = join(base, 'terraform');
  writeFileSync(terraform, FAKE_TERRAFORM, { mode: 0o755 });
  const workspaces = { first: '5.1.0', second: '5.2.0', unlocked: undefined } as Record<
    string,
    string | undefined
  >;
  for (const [name, version] of Object.entries(workspaces)) {
    mkdirSync(join(base, 'infra', name, 'stack'), { recursive: true });
    writeFileSync(join(base, 'infra', name, 'stack', 'main.tf'), 'terraform {}\n');
    if (version)
      writeFileSync(
        join(base, 'infra', name, 'stack', '.terraform.lock.hcl'),
        `provider "registry.terraform.io/hashicorp/aws" {\n  version     = "${version}"\n}\n`,
      );
  }
  const text = [
    'version: 1',
    'owners: { fallback: platform, teams: [{ id: platform, destinations: [{ type: email, address: p@example.com }] }] }',
    'workspaces:',
    ...Object.keys(workspaces).flatMap((name) => [
      `  - id: ${name}`,
      '    owner: platform',
      '    environment: prod',
      `    source: { dir: infra/${name}, path: stack }`,
      `    backend: { bucket: tfstate, key: ${name}.tfstate, region: eu-west-1 }`,
    ]),
    '',
  ].join('\n');
  writeFileSync(join(base, 'driftwatch.yaml'), text);
  const loaded: LoadedRegistry = {
    registry: parseRegistry(text),
    dir: base,
    path: join(base, 'driftwatch.yaml'),
  };
  const record = join(base, 'record');
  writeFileSync(record, '');
  const options = {
    loaded,
    platforms: ['linux_amd64', 'darwin_arm64'],
    terraformBinary: terraform,
    env: { PATH: process.env.PATH, FAKE_TF_RECORD: record },
    log: () => {},
  };
  return { base, options, record };
}

const json = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as unknown;

describe('driftwatch providers mirror', () => {
  it("runs terraform providers mirror in each workspace's Terraform root, for every platform, and merges into a directory", async () => {
    const { base, options, record } = setUp();
    const mirror = join(base, 'mirror');
    // A version mirrored earlier stays listed.
    mkdirSync(join(mirror, AWS_DIR), { recursive: true });
    writeFileSync(join(mirror, AWS_DIR, 'index.json'), JSON.stringify({ versions: { '4.67.0': {} } }));
    const result = await mirrorProviders({ ...options, to: mirror, workspaces: ['first', 'second'] });
    expect(result.mirrored).toEqual(['first', 'second']);
    expect(result.failed).toEqual([]);
    const calls = readFileSync(record, 'utf8').trim().split('\n');
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      expect(call).toMatch(/\/stack -platform=linux_amd64 -platform=darwin_arm64 \S+$/);
      // Run in a scratch copy, never in the registered source.
      expect(call.startsWith(join(base, 'infra'))).toBe(false);
    }
    expect(json(join(mirror, AWS_DIR, 'index.json'))).toEqual({
      versions: { '4.67.0': {}, '5.1.0': {}, '5.2.0': {} },
    });
    expect(json(join(mirror, AWS_DIR, '5.2.0.json'))).toEqual({
      archives: {
        darwin_arm64: {
          url: 'terraform-provider-aws_5.2.0_darwin_arm64.zip',
          hashes: ['h1:5.2.0-darwin_arm64'],
        },
        linux_amd64: {
          url: 'terraform-provider-aws_5.2.0_linux_amd64.zip',
          hashes: ['h1:5.2.0-linux_amd64'],
        },
      },
    });
    for (const version of ['5.1.0', '5.2.0'])
      for (const platform of ['linux_amd64', 'darwin_arm64'])
        expect(existsSync(join(mirror, AWS_DIR, `terraform-provider-aws_${version}_${platform}.zip`))).toBe(
          true,
        );
  });

  it('a workspace terraform cannot mirror is reported and does not stop the others', async () => {
    const { base, options } = setUp();
    const result = await mirrorProviders({ ...options, to: join(base, 'mirror') });
    expect(result.mirrored).toEqual(['first', 'second']);
    expect(result.failed).toEqual([
      { workspace: 'unlocked', reason: 'Error: Inconsistent dependency lock file' },
    ]);
  });

  it('into s3://bucket/prefix: archives missing there first, then the JSON merged with what the bucket lists', async () => {
    const { options } = setUp();
    const s3 = mockClient(S3Client);
    const body = (text: string) => ({ transformToString: async () => text }) as never;
    s3.on(HeadObjectCommand).rejects(Object.assign(new Error('NotFound'), { name: 'NotFound' }));
    s3.on(HeadObjectCommand, {
      Key: `providers/${AWS_DIR}/terraform-provider-aws_5.1.0_linux_amd64.zip`,
    }).resolves({
      ContentLength: 'zip 5.1.0 linux_amd64'.length,
    });
    s3.on(GetObjectCommand).rejects(Object.assign(new Error('NoSuchKey'), { name: 'NoSuchKey' }));
    s3.on(GetObjectCommand, { Key: `providers/${AWS_DIR}/index.json` }).resolves({
      Body: body(JSON.stringify({ versions: { '4.67.0': {} } })),
    });
    s3.on(PutObjectCommand).resolves({});
    await mirrorProviders({
      ...options,
      to: 's3://mirror-bucket/providers/',
      workspaces: ['first'],
      s3: () => new S3Client({}),
    });
    const puts = s3.commandCalls(PutObjectCommand).map((call) => call.args[0].input);
    expect(puts.map((put) => put.Key)).toEqual([
      `providers/${AWS_DIR}/terraform-provider-aws_5.1.0_darwin_arm64.zip`,
      `providers/${AWS_DIR}/5.1.0.json`,
      `providers/${AWS_DIR}/index.json`,
    ]);
    expect(puts.every((put) => put.Bucket === 'mirror-bucket')).toBe(true);
    expect(JSON.parse(puts[2]!.Body as string)).toEqual({ versions: { '4.67.0': {}, '5.1.0': {} } });
  });

  it('usage errors exit 64: no --to, a platform that is not os_arch', async () => {
    const noTarget = await runCli(['providers', 'mirror', '--registry', 'x.yaml']);
    expect(noTarget.code).toBe(64);
    expect(noTarget.stderr).toContain("required option '--to");
    const badPlatform = await runCli(['providers', 'mirror', '--to', 'm', '--platform', 'linux']);
    expect(badPlatform.code).toBe(64);
    expect(badPlatform.stderr).toContain("'linux' is not a Terraform platform");
  });
});
