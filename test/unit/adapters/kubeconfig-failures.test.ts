import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import {
  createKubernetesReader,
  kubeConfigForContext,
} from '../../../functions/adapters/kubernetes-client.js';
import type { ClusterConfig } from '../../../functions/core/registry/model.js';
import { scanDirect } from '../../helpers/direct-scan.js';

/**
 * A kubeconfig that cannot be used fails the cluster once, as `scan.cluster-credentials`, with a
 * reason that names the file or the exec plugin. A file that was missing or malformed failed every
 * object on its own (`scan.cluster-object` each, with a bare ENOENT or YAML error), and the
 * reason's first word was eaten by redaction (`kubeconfig: (redacted) /usr/bin/aws ENOENT`).
 */
const dir = mkdtempSync(join(tmpdir(), 'kubeconfig-failures-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  vi.unstubAllEnvs();
});

/** A kubeconfig whose only user gets its token from an exec plugin (what `aws eks update-kubeconfig` writes). */
function execKubeconfig(file: string, command: string, args: string[]): string {
  const path = join(dir, file);
  const user = { exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', command, args } };
  writeFileSync(
    path,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'shop',
      clusters: [{ name: 'shop', cluster: { server: 'https://127.0.0.1:9' } }],
      users: [{ name: 'shop-user', user }],
      contexts: [{ name: 'shop', context: { cluster: 'shop', user: 'shop-user' } }],
    }),
  );
  return path;
}

function writeFile(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** A kubeconfig whose only user has a static token. */
function tokenKubeconfig(file: string, token: string): string {
  const path = join(dir, file);
  writeFileSync(
    path,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'shop',
      clusters: [{ name: 'shop', cluster: { server: 'https://127.0.0.1:9' } }],
      users: [{ name: 'shop-user', user: { token } }],
      contexts: [{ name: 'shop', context: { cluster: 'shop', user: 'shop-user' } }],
    }),
  );
  return path;
}

const HEADER_PROBLEM =
  "the kubeconfig user's token holds a line break or another control character, which an HTTP header cannot carry";

const CASES: Array<{ label: string; kubeconfig: () => string; reason: string }> = [
  {
    label: 'a token with a line break inside',
    kubeconfig: () => tokenKubeconfig('token-newline.json', 'CANARYfirst\nCANARYsecond'),
    reason: HEADER_PROBLEM,
  },
  {
    label: 'a token with a control character',
    kubeconfig: () => tokenKubeconfig('token-control.json', 'CANARY\u0001token'),
    reason: HEADER_PROBLEM,
  },
  {
    label: 'a KUBECONFIG that does not exist',
    kubeconfig: () => join(dir, 'absent.yaml'),
    reason: `cannot load the kubeconfig from ${join(dir, 'absent.yaml')} (from KUBECONFIG): ENOENT`,
  },
  {
    label: 'a kubeconfig that is not YAML',
    kubeconfig: () => writeFile('broken.yaml', 'clusters: [ {name: shop\n'),
    reason: `cannot load the kubeconfig from ${join(dir, 'broken.yaml')} (from KUBECONFIG): `,
  },
  {
    label: 'an exec plugin that is not installed',
    kubeconfig: () => execKubeconfig('no-plugin.json', '/nonexistent/bin/aws', ['eks', 'get-token']),
    reason:
      'the credentials of kubeconfig user shop-user could not be obtained, its exec plugin (/nonexistent/bin/aws) failed: spawn /nonexistent/bin/aws ENOENT',
  },
  {
    label: 'an exec plugin that fails',
    kubeconfig: () =>
      execKubeconfig('failing-plugin.json', '/bin/sh', [
        '-c',
        'echo "An error occurred (ExpiredToken) when calling the AssumeRole operation" >&2; exit 255',
      ]),
    reason: 'its exec plugin (/bin/sh) failed: An error occurred (ExpiredToken) when calling the AssumeRole',
  },
  {
    label: 'an exec plugin that prints no ExecCredential',
    kubeconfig: () => execKubeconfig('raw-plugin.json', '/bin/sh', ['-c', 'echo k8s-aws-v1.CANARYrawtoken']),
    reason: 'its exec plugin (/bin/sh) did not print an ExecCredential (JSON with status.token)',
  },
];

function cluster(): ClusterConfig {
  return {
    id: 'shop-prod',
    owner: 'platform',
    environment: 'prod',
    kubernetes: { context: 'shop', manifests: { s3: 's3://r/x.yaml' } },
    applications: [],
    workspaces: [],
    policies: { outOfSyncAfterMs: 3_600_000 },
  };
}

const RENDER = ['a', 'b', 'c']
  .map(
    (name) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, namespace: shop}\ndata: {k: v}\n`,
  )
  .join('---\n');

/** Scans the cluster through context `shop` as cluster-ports does (its kubeconfig loaded at the first read): the one failure's detail. */
async function credentialsFailureDetail(): Promise<string> {
  const reader = createKubernetesReader({ config: async () => kubeConfigForContext('shop') });
  const result = await scanDirect(cluster(), {
    server: 'kubeconfig context shop',
    render: RENDER,
    reader,
    salt: 'kubeconfig-failures-salt-1',
  });
  expect(result.findings.map((finding) => finding.ruleId)).toEqual(['scan.cluster-credentials']);
  return result.findings[0]!.detail;
}

describe('a kubeconfig that cannot be used fails the cluster once, saying why', () => {
  it.each(CASES)('$label', async ({ kubeconfig, reason }) => {
    vi.stubEnv('KUBECONFIG', kubeconfig());
    const detail = await credentialsFailureDetail();
    expect(detail).toContain(reason);
    expect(detail).not.toMatch(/\(redacted\)|CANARY/);
  });
});

describe('no kubeconfig at all', () => {
  it("is said as such, not as a missing context among the client's made-up loaded-context", async () => {
    vi.stubEnv('KUBECONFIG', '');
    vi.stubEnv('KUBERNETES_SERVICE_HOST', '');
    vi.stubEnv('HOME', mkdtempSync(join(dir, 'home-')));
    const detail = await credentialsFailureDetail();
    expect(detail).toContain(
      "no kubeconfig to read context 'shop' from: KUBECONFIG is not set and ~/.kube/config does not exist; set KUBECONFIG to the file that has the context (kubectl config get-contexts lists them)",
    );
    expect(detail).not.toContain('loaded-context');
  });
});
