import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsObjectStore } from '../../../functions/adapters/object-store/fs-object-store.js';
import { createFindingsStore } from '../../../functions/core/findings/findings-store.js';
import { driftDraft } from '../../helpers/findings.js';
import { REPO_ROOT } from '../../helpers/integration.js';
import { runNode } from '../../helpers/processes.js';

/**
 * `driftwatch --help`, `<command> --help` and usage errors start fast because main.ts registers the
 * commands without importing what they run (cli/commands/<x>-action.ts, the AWS SDK, zod, yaml, the
 * error reporter). A module hook records every module the compiled CLI resolves, so an eager import
 * slipped back into a registration module fails here (no timing is measured).
 */
const dir = mkdtempSync(join(tmpdir(), 'driftwatch-lazy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Runs in the loader hooks thread: appends each resolved URL to the file named by the environment.
const HOOKS = `
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.DRIFTWATCH_TEST_LOADED, result.url + '\\n');
  return result;
}`;
const hooksFile = join(dir, 'hooks.mjs');
writeFileSync(hooksFile, HOOKS);
const registerFile = join(dir, 'register.mjs');
writeFileSync(
  registerFile,
  `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooksFile).href)});\n`,
);

let runs = 0;
async function loadedBy(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stderr: string; loaded: string[] }> {
  const log = join(dir, `loaded-${runs++}.txt`);
  writeFileSync(log, '');
  const run = await runNode(
    ['--import', pathToFileURL(registerFile).href, join(REPO_ROOT, 'bin', 'driftwatch.js'), ...args],
    {
      cwd: dir,
      env: {
        ...process.env,
        DRIFTWATCH_TEST_LOADED: log,
        DRIFTWATCH_HASH_SALT: 'lazy-commands-test-salt-01',
        ...env,
      },
    },
  );
  return {
    code: run.code,
    stderr: run.stderr,
    loaded: withBundledSources(readFileSync(log, 'utf8').split('\n').filter(Boolean)),
  };
}

/**
 * dist/ bundles the dependencies (scripts/build-cli.mjs): a chunk of it stands for every module it
 * holds, which its source map names, so a dependency bundled into a loaded chunk counts as loaded.
 */
function withBundledSources(loaded: string[]): string[] {
  const bundled = loaded
    .filter((url) => url.startsWith('file:') && url.includes('/dist/') && url.endsWith('.js'))
    .flatMap((url) => {
      const map = JSON.parse(readFileSync(fileURLToPath(`${url}.map`), 'utf8')) as { sources: string[] };
      return map.sources.map((source) => new URL(source, url).href);
    });
  return [...loaded, ...bundled];
}

/** What only running a command may load. */
const HEAVY = [
  /node_modules\/@aws-sdk\//,
  /node_modules\/zod\//,
  /node_modules\/yaml\//,
  /-action-[A-Z0-9]+\.js$/,
  /\/report-error-[A-Z0-9]+\.js$/,
];
const heavyIn = (loaded: string[]) => loaded.filter((url) => HEAVY.some((pattern) => pattern.test(url)));

describe('the compiled CLI loads command implementations only when a command runs', () => {
  for (const args of [
    ['--help'],
    ['evaluate-plan', '--help'],
    ['findings', '--help'],
    ['scan', '--no-such-option'],
  ])
    it(`driftwatch ${args.join(' ')} loads commander and the registrations only`, async () => {
      const { code, loaded } = await loadedBy(args);
      expect(code).toBe(args.includes('--help') ? 0 : 64);
      expect(loaded.some((url) => url.endsWith('/dist/cli/main.js'))).toBe(true);
      expect(heavyIn(loaded)).toEqual([]);
    });

  it('running evaluate-plan loads its implementation (the hook sees what a command loads)', async () => {
    const plan = join(dir, 'plan.json');
    writeFileSync(
      plan,
      JSON.stringify({ format_version: '1.2', resource_drift: [], prior_state: {}, configuration: {} }),
    );
    const { code, loaded } = await loadedBy(['evaluate-plan', plan, '--format', 'json']);
    expect(code).toBe(0);
    expect(loaded.some((url) => /\/evaluate-plan-action-[A-Z0-9]+\.js$/.test(url))).toBe(true);
    // Without --registry it does not load the registry parser or an SDK client either.
    expect(loaded.filter((url) => /node_modules\/(@aws-sdk|yaml|zod)\//.test(url))).toEqual([]);
  });

  it('an error loads the reporter, which still prints one line', async () => {
    const { code, stderr, loaded } = await loadedBy(['routes', '--registry', join(dir, 'missing.yaml')]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^driftwatch: cannot read registry .*missing\.yaml: no such file .*\n$/);
    expect(loaded.some((url) => /\/report-error-[A-Z0-9]+\.js$/.test(url))).toBe(true);
  });
});

/**
 * Commands that read a local store need neither the AWS SDK (~0.4 s of CPU to load its S3 and
 * DynamoDB clients) nor the registry parser (yaml, the jq library) unless a bucket or a registry is
 * named; the error reporter knows AWS errors without loading the SDK either.
 */
describe('commands reading a local store load no AWS SDK and no registry parser', () => {
  const storeDir = join(dir, 'store');
  // yaml is the registry parser's, and also prints cluster objects (report, remediate load it for that).
  const awsOrRegistry = (loaded: string[], printsYaml: boolean) =>
    loaded.filter((url) =>
      (printsYaml
        ? /node_modules\/(@aws-sdk|@smithy|@michaelhomer)\//
        : /node_modules\/(@aws-sdk|@smithy|yaml|@michaelhomer)\//
      ).test(url),
    );
  let findingId = '';

  beforeAll(async () => {
    const store = createFindingsStore(createFsObjectStore(storeDir));
    const at = new Date();
    const { history } = await store.recordWorkspace(
      { scanId: 'lazy-scan', startedAt: at, now: at },
      { workspace: 'payments-prod', check: 'terraform', outcome: 'ok' },
      [driftDraft()],
    );
    findingId = history[0]!.id;
  });

  const cases: Array<[string, () => string[], number, boolean]> = [
    ['findings', () => ['findings', '--store', storeDir], 2, false],
    ['findings show', () => ['findings', 'show', findingId.slice(0, 8), '--store', storeDir], 0, false],
    ['report', () => ['report', '--store', storeDir, '--out', join(dir, 'report.html')], 0, true],
    ['remediate', () => ['remediate', findingId.slice(0, 8), '--revert', '--store', storeDir], 0, true],
    ['an error: a store no scan wrote', () => ['findings', '--store', dir], 1, false],
  ];
  for (const [name, args, code, printsYaml] of cases)
    it(`${name}`, async () => {
      const run = await loadedBy(args());
      expect({ code: run.code, stderr: run.stderr }).toMatchObject({ code });
      expect(run.loaded.some((url) => url.endsWith('/dist/cli/main.js'))).toBe(true);
      expect(awsOrRegistry(run.loaded, printsYaml)).toEqual([]);
    });

  it('a bucket store loads the S3 client when it is first read (the hook sees it)', async () => {
    const run = await loadedBy(['findings', '--store', 's3://driftwatch-lazy-test']);
    expect(run.code).toBe(1);
    expect(run.loaded.some((url) => /node_modules\/@aws-sdk\/client-s3\//.test(url))).toBe(true);
  }, 60_000);
});

it('routes reads a registry file without the AWS SDK (only S3 registries of the stack need it)', async () => {
  const registry = join(dir, 'driftwatch.yaml');
  writeFileSync(
    registry,
    [
      'version: 1',
      'owners: { fallback: platform, teams: [{ id: platform, destinations: [{ type: email, address: team@example.com }] }] }',
      'workspaces:',
      '  - { id: payments-prod, owner: platform, environment: prod, source: { dir: infra },',
      '      backend: { bucket: some-state, key: payments/prod.tfstate, region: eu-west-1 } }',
      '',
    ].join('\n'),
  );
  const run = await loadedBy(['routes', '--registry', registry]);
  expect(run.code).toBe(0);
  expect(run.loaded.some((url) => /node_modules\/yaml\//.test(url))).toBe(true);
  expect(run.loaded.filter((url) => /node_modules\/(@aws-sdk|@smithy)\//.test(url))).toEqual([]);
});

describe('cluster-diff loads the Kubernetes client only for a Kubernetes source', () => {
  const kubernetesClient = (loaded: string[]) =>
    loaded.filter((url) => /node_modules\/@kubernetes\/client-node\//.test(url));

  it('an Argo CD cluster never loads it (~0.7 s of CPU)', async () => {
    const run = await loadedBy([
      'cluster-diff',
      '--argocd',
      'http://127.0.0.1:1',
      '--store',
      join(dir, 'argo'),
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the scan of cluster adhoc failed');
    expect(kubernetesClient(run.loaded)).toEqual([]);
  });

  it('a kubeconfig context loads it at the first read (the hook sees it)', async () => {
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{ name: c, cluster: { server: "http://127.0.0.1:1" } }]',
        'users: [{ name: u, user: { token: t } }]',
        'contexts: [{ name: lazy, context: { cluster: c, user: u } }]',
        'current-context: lazy',
        '',
      ].join('\n'),
    );
    const overlay = join(dir, 'overlay');
    mkdirSync(overlay, { recursive: true });
    writeFileSync(join(overlay, 'kustomization.yaml'), 'resources: [config.yaml]\n');
    writeFileSync(
      join(overlay, 'config.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: lazy, namespace: default }\ndata: { a: b }\n',
    );
    const run = await loadedBy(
      ['cluster-diff', '--kustomize', overlay, '--context', 'lazy', '--store', join(dir, 'kube')],
      { KUBECONFIG: kubeconfig },
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('reading live objects from kubeconfig context lazy');
    expect(kubernetesClient(run.loaded).length).toBeGreaterThan(0);
  });
});
