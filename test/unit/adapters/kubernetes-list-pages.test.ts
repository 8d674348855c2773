import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubernetesReader, kubeConfigForEks } from '../../../functions/adapters/kubernetes-client.js';
import { eksDirectCluster, scanDirect } from '../../helpers/direct-scan.js';
import { type FakeKubernetes, startFakeKubernetes } from '../../helpers/fake-kubernetes.js';

/**
 * Direct mode lists the render's namespaces for objects Git no longer renders, Secrets among them.
 * It read every Secret whole in one response: in a namespace of Helm releases (each release and
 * revision a `sh.helm.release.v1.*` Secret of up to 1 MiB) that is hundreds of MiB of secret values
 * pulled into memory, and a response that ran past the request deadline, failing the kind. It now
 * reads metadata only (PartialObjectMetadataList, all extraneous detection needs), in pages of 500
 * (`limit`/`continue`, as kubectl does).
 */
const TOKEN = 'list-pages-token';
const HELM_RELEASE_DATA = 'H4sIAAAAAAAC/CANARYhelmrelease'.padEnd(4096, 'A');
const SHOP_APP = 'argocd.argoproj.io/tracking-id';

/** 1 200 Helm release Secrets, then one Secret the shop application tracks that Git dropped. */
const SECRETS = [
  ...Array.from({ length: 1200 }, (_, index) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: `sh.helm.release.v1.chart${index}.v1`,
      namespace: 'shop',
      labels: { owner: 'helm', name: `chart${index}` },
    },
    type: 'helm.sh/release.v1',
    data: { release: HELM_RELEASE_DATA },
  })),
  {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: 'old-db',
      namespace: 'shop',
      annotations: { [SHOP_APP]: 'shop:/Secret:shop/old-db' },
    },
    data: { password: 'Q0FOQVJZb2xkZGI=' },
  },
];
const FLAGS = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'flags', namespace: 'shop', annotations: { [SHOP_APP]: 'shop:/ConfigMap:shop/flags' } },
  data: { mode: 'a' },
};

let kube: FakeKubernetes;
beforeAll(async () => {
  kube = await startFakeKubernetes({
    objects: [FLAGS, ...SECRETS],
    authorize: (header) => header === `Bearer ${TOKEN}`,
    dryRun: () => ({ status: 200, body: FLAGS }),
  });
});
afterAll(async () => {
  await kube?.close();
});

function readerOf(server: string) {
  return createKubernetesReader({
    config: async () => kubeConfigForEks({ cluster: 'shop', server }, TOKEN),
    timeoutMs: 10_000,
  });
}

describe('LIST for extraneous objects', () => {
  it('reads metadata only, in pages of 500, to the end', async () => {
    const before = kube.requests.length;
    const listed = await readerOf(kube.server).listObjects({
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: 'shop',
    });
    expect(listed).toHaveLength(1201);
    expect(listed![1200]).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: SECRETS[1200]!.metadata,
    });
    expect(JSON.stringify(listed)).not.toContain('CANARY');
    const lists = kube.requests.slice(before).filter((request) => request.path.endsWith('/secrets'));
    expect(lists.map((request) => [request.query.limit, request.query.continue === undefined])).toEqual([
      ['500', true],
      ['500', false],
      ['500', false],
    ]);
    for (const request of lists)
      expect(request.accept).toMatch(/^application\/json;as=PartialObjectMetadataList;/);
  });

  it('finds the object Git dropped on the last page (a scan of the cluster)', async () => {
    const cluster = eksDirectCluster(kube.server);
    const reader = readerOf(kube.server);
    const result = await scanDirect(cluster, {
      server: kube.server,
      render: JSON.stringify(FLAGS),
      reader,
      salt: 'list-pages-salt-000001',
    });
    expect(result.findings.map((finding) => `${finding.ruleId} ${finding.title}`)).toEqual([
      'cluster.extraneous Secret shop/old-db of application shop is no longer in git but still in cluster shop-prod',
    ]);
    expect(JSON.stringify(result)).not.toContain('CANARY');
  });
});

describe('LIST answers of servers that do not do as asked', () => {
  let server: Server;
  let base = '';
  let answer: (url: URL) => unknown = () => ({});
  beforeAll(async () => {
    server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://x');
      response.writeHead(200, { 'content-type': 'application/json' });
      if (url.pathname === '/api/v1')
        return response.end(
          JSON.stringify({ resources: [{ name: 'configmaps', kind: 'ConfigMap', namespaced: true }] }),
        );
      response.end(JSON.stringify(answer(url)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });
  const list = () => readerOf(base).listObjects({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop' });

  it('a full list (an aggregated API without metadata-only lists) is read the same way', async () => {
    answer = () => ({ kind: 'ConfigMapList', metadata: {}, items: [FLAGS] });
    expect(await list()).toEqual([FLAGS]);
  });

  it.each([
    ['repeats its continue token', () => 'same-token'],
    ['never ends', (url: URL) => `${url.searchParams.get('continue') ?? ''}x`],
  ])('a list that %s is refused, not read for ever', async (_, token) => {
    answer = (url) => ({ metadata: { continue: token(url) }, items: [] });
    await expect(list()).rejects.toThrow(/the list did not end after \d+ pages of 500/);
  });
});
