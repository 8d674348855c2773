import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../functions/core/findings/model.js';
import { readArgoFixture } from '../helpers/fake-argocd.js';
import { type FakeKubernetes, startFakeKubernetes, writeKubeconfig } from '../helpers/fake-kubernetes.js';
import { runCli, useTempDir } from '../helpers/integration.js';

/**
 * Issue 14 §5 end to end, in direct mode (`driftwatch cluster-diff --kustomize … --context …`) against
 * the Kubernetes stand-in: who owns a live object is read the way Argo CD and Helm record it. A Helm
 * release's object carries `app.kubernetes.io/instance` — no Argo CD application, whatever the label
 * says — and its findings name the Helm release; an object whose tracking id names itself is Argo
 * CD's (annotation tracking, Argo CD 3.x's default, or what argocd-cm says).
 */
const temp = useTempDir('driftwatch-cluster-ownership-');
const salt = { DRIFTWATCH_HASH_SALT: 'cluster-ownership-test-salt' };
const helmService = readArgoFixture('helm-release-service-live.yaml');
const guestbook = readArgoFixture('guestbook-ui-live.yaml');

const manifests = [
  // Git adds a label the live Service lacks: drift on an object Helm applies.
  `apiVersion: v1
kind: Service
metadata:
  name: ingress-nginx-controller
  namespace: ingress
  labels:
    tier: edge
spec:
  type: ClusterIP
`,
  // Git moves the image on: drift on an object Argo CD tracks by annotation.
  `apiVersion: apps/v1
kind: Deployment
metadata:
  name: guestbook-ui
  namespace: default
spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: guestbook-ui
          image: registry.example.com/guestbook-ui:0.3
`,
].join('---\n');

function findingsOf(stdout: string): Finding[] {
  return JSON.parse(stdout) as Finding[];
}

describe('ownership in a cluster scanned without Argo CD', () => {
  let kube: FakeKubernetes;
  let kubeconfig: string;
  let overlay: string;
  let statePath: string;
  beforeAll(async () => {
    kube = await startFakeKubernetes({
      objects: [helmService, guestbook],
      authorize: (header) => header === 'Bearer own-token',
    });
    kubeconfig = writeKubeconfig(join(temp.path, 'kubeconfig'), kube.server, 'own-token', 'edge');
    overlay = join(temp.path, 'overlay');
    mkdirSync(overlay);
    writeFileSync(join(overlay, 'objects.yaml'), manifests);
    writeFileSync(join(overlay, 'kustomization.yaml'), 'resources:\n  - objects.yaml\n');
    statePath = join(temp.path, 'edge.tfstate');
    writeFileSync(
      statePath,
      JSON.stringify({
        version: 4,
        terraform_version: '1.11.4',
        serial: 3,
        lineage: '0d7c2b1e-3f4a-4b5c-8d9e-0f1a2b3c4d5e',
        outputs: {},
        resources: [
          {
            mode: 'managed',
            type: 'helm_release',
            name: 'ingress',
            provider: 'provider["registry.terraform.io/hashicorp/helm"]',
            instances: [
              {
                schema_version: 1,
                attributes: {
                  name: 'ingress-nginx',
                  namespace: 'ingress',
                  chart: 'ingress-nginx',
                  metadata: [
                    { name: 'ingress-nginx', namespace: 'ingress', revision: 3, chart: 'ingress-nginx' },
                  ],
                },
              },
            ],
          },
        ],
        check_results: null,
      }),
    );
  });
  afterAll(async () => {
    await kube?.close();
  });

  it('names the Helm release (not an Argo CD application) for a Helm object; the tracking id proves the Argo CD one', async () => {
    const run = await runCli(
      [
        'cluster-diff',
        '--kustomize',
        overlay,
        '--context',
        'edge',
        '--id',
        'edge-1',
        '--terraform-state',
        statePath,
        '--store',
        join(temp.path, 'store'),
        '--format',
        'json',
      ],
      { env: { ...salt, KUBECONFIG: kubeconfig } },
    );
    expect(run.code, run.stderr).toBe(2);
    const findings = findingsOf(run.stdout);
    const find = (ruleId: string, name: string) =>
      findings.find(
        (finding) => finding.ruleId === ruleId && (finding.resource as { name: string }).name === name,
      );

    // kubectl/Argo CD would say: the Service is Helm's (meta.helm.sh annotations), not an application's.
    const service = find('cluster.drift', 'ingress-nginx-controller')!;
    expect(service.resource).not.toHaveProperty('app');
    expect(service.evidence).toMatchObject({ applier: 'Helm release ingress/ingress-nginx' });
    expect(JSON.stringify(service)).not.toMatch(/argocd app|Argo CD application/);

    // helm_release in Terraform + the same Service in the manifests: one writer too many, by Helm's annotations.
    const conflict = find('ownership.conflict', 'ingress-nginx-controller')!;
    expect(conflict.title).toBe(
      'Service ingress/ingress-nginx-controller in cluster edge-1 is managed by both Terraform (edge) and the GitOps manifests of cluster edge-1 (applied by Helm release ingress/ingress-nginx)',
    );
    expect(conflict.evidence.terraform).toEqual([
      expect.objectContaining({
        via: 'helm-release',
        helmRelease: { name: 'ingress-nginx', namespace: 'ingress' },
      }),
    ]);

    // Argo CD's GetAppName under annotation tracking: guestbook (the tracking id names this Deployment).
    const deployment = find('cluster.drift', 'guestbook-ui')!;
    expect(deployment.resource).toMatchObject({ app: 'guestbook' });
    expect(deployment.evidence).toMatchObject({ applier: 'Argo CD application guestbook' });
    expect(findings.filter((finding) => finding.ruleId === 'ownership.conflict')).toHaveLength(1);
    // Read-only: argocd-cm was asked for (absent here), nothing was written.
    expect(
      kube.requests.some((request) => request.path.endsWith('/namespaces/argocd/configmaps/argocd-cm')),
    ).toBe(true);
    expect(kube.writes).toEqual([]);
  });
});
