import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CopyObjectCommand, CreateBucketCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stageWorkspace } from '../../cli/demo/provision.js';
import {
  binaryCacheOptionsFromEnv,
  createBinaryCache,
  currentPlatform,
} from '../../functions/adapters/terraform/binary-cache.js';
import type { Finding } from '../../functions/core/findings/model.js';
import {
  REGION,
  REPO_ROOT,
  runCli,
  STATE_BUCKET,
  TEST_REGISTRY_OWNERS,
  useMoto,
  useTempDir,
} from '../helpers/integration.js';
import {
  generateSigningKey,
  hashicorpIndex,
  type ReleaseServer,
  releaseLayout,
  serveFiles,
} from '../helpers/release-layout.js';

/**
 * Terraform and OpenTofu versions end to end: a local HTTP server serves the official release layout
 * (zip + SHA256SUMS + a detached signature, HashiCorp's index.json) built here from this machine's
 * terraform, published as 1.11.99 — a version nobody has installed — and as `tofu` 1.11.99. There is
 * no real OpenTofu on this machine: the `tofu` scans prove driftwatch's plumbing for engine: opentofu
 * (layout, signature file, binary name, same arguments and environment), not OpenTofu's behaviour.
 *
 * The published binary still reports 1.11.4 in `version -json`: driftwatch does not ask a downloaded
 * binary its version, because the signed SHA256SUMS already names the file it verified.
 */
const aws = useMoto();
const temp = useTempDir('driftwatch-engine-versions-');
const PUBLISHED = '1.11.99';
const BINARY_BUCKET = 'driftwatch-binaries';
const platform = currentPlatform();

let server: ReleaseServer;
let keyFile: string;
/** This machine's terraform version; the server publishes that binary as 1.11.99 (and 1.11.97, and tofu 1.11.99). */
let INSTALLED: string;

beforeAll(async () => {
  const terraform = realpathSync(
    execFileSync('sh', ['-c', 'command -v terraform'], { encoding: 'utf8' }).trim(),
  );
  INSTALLED = JSON.parse(
    execFileSync(terraform, ['version', '-json'], {
      encoding: 'utf8',
      env: { ...process.env, CHECKPOINT_DISABLE: '1' },
      // Terraform warns on stderr about this machine's TF_CLI_CONFIG_FILE: not this test's business.
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  ).terraform_version;
  const [mirrorKey, strangerKey] = await Promise.all([generateSigningKey(), generateSigningKey('stranger')]);
  keyFile = join(temp.path, 'mirror-key.asc');
  writeFileSync(keyFile, mirrorKey.publicKey);

  const files = new Map<string, Uint8Array>();
  const publish = (base: string, layout: Map<string, Uint8Array>) => {
    for (const [path, body] of layout) files.set(`${base}/${path}`, body);
  };
  const terraformLayout = await releaseLayout({
    engine: 'terraform',
    version: PUBLISHED,
    executable: terraform,
    platform,
    key: mirrorKey,
  });
  publish('terraform', terraformLayout);
  const zip = terraformLayout.get(`${PUBLISHED}/terraform_${PUBLISHED}_${platform.os}_${platform.arch}.zip`)!;
  // The same zip under another version, signed by a key nobody configured: must never run.
  publish(
    'terraform',
    await releaseLayout({
      engine: 'terraform',
      version: '1.11.97',
      executable: terraform,
      platform,
      key: strangerKey,
      zip,
    }),
  );
  files.set('terraform/index.json', hashicorpIndex('terraform', ['1.10.5', '1.11.4', '1.11.97', PUBLISHED]));
  publish(
    'tofu',
    await releaseLayout({
      engine: 'opentofu',
      version: PUBLISHED,
      executable: terraform,
      platform,
      key: mirrorKey,
    }),
  );
  // OpenTofu's index has its own shape (get.opentofu.org/tofu/api.json); a mirror serves it as index.json.
  files.set('tofu/index.json', new TextEncoder().encode(JSON.stringify({ versions: [{ id: PUBLISHED }] })));
  server = await serveFiles(files);

  await aws.s3.send(
    new CreateBucketCommand({
      Bucket: BINARY_BUCKET,
      CreateBucketConfiguration: { LocationConstraint: REGION },
    }),
  );
  // One real state, applied by the installed terraform, that every workspace below refreshes: "no
  // drift" is a real refresh, for the price of one apply.
  const staged = await stageWorkspace({
    source: join(REPO_ROOT, 'test/integration/terraform/minimal'),
    backend: { bucket: STATE_BUCKET, key: STATE_KEY, region: REGION },
    env: { TF_VAR_name: 'engine-versions' },
  });
  try {
    await staged.terraform(['apply', '-auto-approve', '-input=false']);
  } finally {
    await staged.dispose();
  }
  // Each workspace reads its own copy: the registry refuses two entries naming one state object.
  for (const id of WORKSPACE_IDS)
    await aws.s3.send(
      new CopyObjectCommand({
        Bucket: STATE_BUCKET,
        CopySource: `${STATE_BUCKET}/${STATE_KEY}`,
        Key: stateKeyOf(id),
      }),
    );
});

afterAll(async () => {
  await server?.stop();
});

const STATE_KEY = 'engine-versions/terraform.tfstate';
const WORKSPACE_IDS = ['pinned', 'version-file', 'tofu', 'untrusted'] as const;
const stateKeyOf = (id: string) => `engine-versions/${id}/terraform.tfstate`;

/** Registry entries over the one state; `lines` are the entry's extra keys. */
function entry(id: (typeof WORKSPACE_IDS)[number], dir: string, ...lines: string[]): string[] {
  return [
    `  - id: ${id}`,
    '    owner: platform',
    '    environment: prod',
    `    source: { dir: ${JSON.stringify(join(REPO_ROOT, 'test/integration/terraform', dir))} }`,
    `    backend: { bucket: ${STATE_BUCKET}, key: ${stateKeyOf(id)}, region: ${REGION} }`,
    '    env: { TF_VAR_name: engine-versions }',
    ...lines.map((line) => `    ${line}`),
  ];
}

function scanEnv(cacheDir: string): NodeJS.ProcessEnv {
  return {
    DRIFTWATCH_HASH_SALT: 'integration-test-salt-0011',
    DRIFTWATCH_TERRAFORM_RELEASES: `${server.url}/terraform`,
    DRIFTWATCH_OPENTOFU_RELEASES: `${server.url}/tofu`,
    DRIFTWATCH_RELEASE_KEYS: keyFile,
    DRIFTWATCH_BINARY_CACHE: cacheDir,
    DRIFTWATCH_BINARY_CACHE_S3: `s3://${BINARY_BUCKET}/engines/`,
    // No tofu is installed; make sure none is found by accident either.
    DRIFTWATCH_TOFU: join(temp.path, 'no-tofu-here'),
  };
}

const FAILING_KINDS = new Set(['terraform-drift', 'scan-failed', 'pending-change']);

describe('Terraform and OpenTofu versions from a release layout served in the test', () => {
  it('a pinned version, a .terraform-version and engine: opentofu each scan with the downloaded, verified binary and no drift; an untrusted signature fails; the S3 prefix fills an empty cache', async () => {
    const cacheDir = join(temp.path, 'binaries');
    const registry = join(temp.path, 'driftwatch.yaml');
    writeFileSync(
      registry,
      [
        ...TEST_REGISTRY_OWNERS,
        'workspaces:',
        ...entry('pinned', 'minimal', `terraformVersion: ${PUBLISHED}`),
        // .terraform-version says latest:^1\.11\.9 — the index lists 1.11.97 and 1.11.99.
        ...entry('version-file', 'version-file'),
        ...entry('tofu', 'minimal', 'engine: opentofu', 'terraformVersion: "~> 1.11.90"'),
        // The same zip as 1.11.99, but its SHA256SUMS is signed by a key nobody configured.
        ...entry('untrusted', 'minimal', 'terraformVersion: 1.11.97'),
        '',
      ].join('\n'),
    );
    const run = await runCli(
      ['scan', '--registry', registry, '--store', join(temp.path, 'store'), '--format', 'json'],
      { env: scanEnv(cacheDir) },
    );
    const findings = JSON.parse(run.stdout) as Finding[];
    expect(
      findings.filter((finding) => finding.workspace !== 'untrusted' && FAILING_KINDS.has(finding.kind)),
      run.stderr,
    ).toEqual([]);
    const untrusted = findings.filter((finding) => finding.workspace === 'untrusted');
    expect(untrusted).toEqual([expect.objectContaining({ kind: 'scan-failed', ruleId: 'scan.init-failed' })]);
    expect(untrusted[0]!.detail).toContain(
      'workspace pins terraform 1.11.97: the signature terraform_1.11.97_SHA256SUMS.sig',
    );
    expect(untrusted[0]!.detail).toContain('does not verify');
    const platformDir = `${platform.os}_${platform.arch}`;
    expect(existsSync(join(cacheDir, 'terraform', '1.11.97', platformDir, 'terraform'))).toBe(false);

    // Each engine's 1.11.99 was downloaded once (two workspaces share the terraform one) and
    // verified into the local cache; 1.11.97's zip was never fetched.
    const zips = server.requests.filter((path) => path.endsWith('.zip'));
    expect(zips.sort()).toEqual([
      `/terraform/${PUBLISHED}/terraform_${PUBLISHED}_${platformDir}.zip`,
      `/tofu/v${PUBLISHED}/tofu_${PUBLISHED}_${platformDir}.zip`,
    ]);
    expect(server.requests).toContain('/terraform/index.json');
    expect(server.requests).toContain('/tofu/index.json');
    for (const [engine, name] of [
      ['terraform', 'terraform'],
      ['opentofu', 'tofu'],
    ] as const) {
      const binary = join(cacheDir, engine, PUBLISHED, platformDir, name);
      expect(JSON.parse(readFileSync(`${binary}.manifest.json`, 'utf8')).signature).toMatch(/^key /);
    }
    // ...and copied to the S3 prefix (moto) as release files.
    const listed = await aws.s3.send(new ListObjectsV2Command({ Bucket: BINARY_BUCKET, Prefix: 'engines/' }));
    expect((listed.Contents ?? []).map((object) => object.Key).sort()).toEqual([
      `engines/opentofu/${PUBLISHED}/tofu_${PUBLISHED}_SHA256SUMS`,
      `engines/opentofu/${PUBLISHED}/tofu_${PUBLISHED}_SHA256SUMS.gpgsig`,
      `engines/opentofu/${PUBLISHED}/tofu_${PUBLISHED}_${platformDir}.zip`,
      `engines/terraform/${PUBLISHED}/terraform_${PUBLISHED}_SHA256SUMS`,
      `engines/terraform/${PUBLISHED}/terraform_${PUBLISHED}_SHA256SUMS.sig`,
      `engines/terraform/${PUBLISHED}/terraform_${PUBLISHED}_${platformDir}.zip`,
    ]);

    // A cold container (empty local cache, releases gone) fills from the S3 prefix, verified again.
    await server.stop();
    const cold = createBinaryCache(
      await binaryCacheOptionsFromEnv({ ...process.env, ...scanEnv(join(temp.path, 'cold')) }, ''),
    );
    const binary = await cold.ensure('terraform', PUBLISHED);
    const reported = JSON.parse(
      execFileSync(binary, ['version', '-json'], {
        encoding: 'utf8',
        env: { ...process.env, CHECKPOINT_DISABLE: '1' },
        // Terraform warns on stderr about this machine's TF_CLI_CONFIG_FILE: not this test's business.
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    );
    expect(reported.terraform_version).toBe(INSTALLED);
    expect(JSON.parse(readFileSync(`${binary}.manifest.json`, 'utf8')).source).toBe(
      `s3://${BINARY_BUCKET}/engines/terraform/${PUBLISHED}/terraform_${PUBLISHED}_${platformDir}.zip`,
    );
  });
});
