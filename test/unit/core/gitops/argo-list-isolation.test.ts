import { describe, expect, it } from 'vitest';
import type { ClusterScanPorts } from '../../../../functions/core/gitops/ports.js';
import { scanCluster } from '../../../../functions/core/gitops/scan-cluster.js';
import { createSensitiveHasher } from '../../../../functions/core/redaction/secrets.js';
import type { ClusterConfig } from '../../../../functions/core/registry/model.js';
import { registryOfCluster } from '../../../helpers/registry.js';

/**
 * The application list is read for names only; each application is read and validated on its own.
 * The list was validated item by item with the whole Application schema, so one application of an
 * odd shape (a field an Argo CD fork or a future version writes differently) failed the list, and
 * with it every other application of the cluster: one `scan.cluster-invalid-response`, nothing
 * scanned. Now it fails itself, and the others are scanned.
 */
const SYNCED = (name: string) => ({
  metadata: { name, namespace: 'argocd' },
  spec: { project: 'default' },
  status: { sync: { status: 'Synced' }, health: { status: 'Healthy' } },
});

const ODD_SHAPES: Array<[string, Record<string, unknown>]> = [
  ['status.sync as a string', { status: { sync: 'OutOfSync' } }],
  ['a resource without a name', { status: { sync: { status: 'Synced' }, resources: [{ kind: 'Service' }] } }],
  ['syncOptions as a string', { spec: { syncPolicy: { syncOptions: 'Prune=false' } } }],
  ['conditions as an object', { status: { sync: { status: 'Synced' }, conditions: { type: 'x' } } }],
];

const cluster: ClusterConfig = {
  id: 'shop-prod',
  owner: 'platform',
  environment: 'prod',
  argocd: { url: 'https://argocd.example.com', token: { env: 'ARGOCD_AUTH_TOKEN' } },
  applications: [],
  workspaces: [],
  policies: { outOfSyncAfterMs: 3_600_000 },
};

describe('one application of an odd shape fails itself, not the list', () => {
  it.each(ODD_SHAPES)('%s', async (_, shape) => {
    const odd = { metadata: { name: 'odd', namespace: 'argocd' }, ...shape };
    const applications = [SYNCED('cart'), odd, SYNCED('shop')];
    const ports: ClusterScanPorts = {
      argocd: () => ({
        url: 'https://argocd.example.com',
        listApplications: async () => ({ items: applications }),
        getApplication: async (name) =>
          applications.find((application) => application.metadata.name === name),
        managedResources: async () => ({ items: [] }),
      }),
      kubernetes: () => {
        throw new Error('Argo CD mode reads no Kubernetes API');
      },
      terraformObjects: async () => [],
    };
    const result = await scanCluster(cluster, {
      registry: registryOfCluster(cluster),
      ports,
      hashSensitive: createSensitiveHasher('argo-list-isolation-salt'),
      now: new Date('2026-12-02T03:00:00Z'),
    });
    expect(result.scanned).toBe(3);
    expect(result.findings.map((finding) => [finding.ruleId, finding.resource])).toEqual([
      [
        'scan.cluster-invalid-response',
        { app: 'odd', group: 'argoproj.io', kind: 'Application', name: 'odd', namespace: 'argocd' },
      ],
    ]);
    expect(result.findings[0]!.detail).toContain('unexpected application odd from Argo CD');
  });
});
