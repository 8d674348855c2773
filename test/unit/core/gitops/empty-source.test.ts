import { describe, expect, it } from 'vitest';
import type { ClusterScanPorts } from '../../../../functions/core/gitops/ports.js';
import { scanCluster } from '../../../../functions/core/gitops/scan-cluster.js';
import { createSensitiveHasher } from '../../../../functions/core/redaction/secrets.js';
import type { ArgoCdSource, ClusterConfig } from '../../../../functions/core/registry/model.js';
import { registryOfCluster } from '../../../helpers/registry.js';

/**
 * "No findings" is only said when something was really read. Argo CD answers an unknown project, a
 * selector that matches nothing, or a token whose account may see no application with an empty list
 * (`"items": null`, as its API sends an empty list, or `[]`), and a render can hold no object at all
 * (an empty kustomization, a chart of hooks only): each is one scan-failed finding that says which
 * filter or source read nothing and what to check, never a clean scan.
 */
const ARGO_URL = 'https://argocd.example.com';

function clusterOf(source: Partial<ClusterConfig>): ClusterConfig {
  return {
    id: 'shop-prod',
    owner: 'platform',
    environment: 'prod',
    applications: [],
    workspaces: [],
    policies: { outOfSyncAfterMs: 3_600_000 },
    ...source,
  };
}

function ports(options: { list?: unknown; render?: string }): ClusterScanPorts {
  return {
    argocd: () => ({
      url: ARGO_URL,
      listApplications: async () => options.list,
      getApplication: async () => {
        throw new Error('no application was listed');
      },
      managedResources: async () => {
        throw new Error('no application was listed');
      },
    }),
    kubernetes: () => ({
      server: 'kubeconfig context shop',
      desiredManifests: async () => ({ text: options.render ?? '', source: 'kustomize overlays/prod' }),
      readLive: async () => {
        throw new Error('nothing to read');
      },
      dryRunApply: async () => {
        throw new Error('nothing to dry-run');
      },
      openApiDocument: async () => undefined,
    }),
    terraformObjects: async () => [],
  };
}

async function scan(cluster: ClusterConfig, options: { list?: unknown; render?: string }) {
  return scanCluster(cluster, {
    registry: registryOfCluster(cluster),
    ports: ports(options),
    hashSensitive: createSensitiveHasher('empty-source-salt-00001'),
    now: new Date('2026-12-03T03:00:00Z'),
  });
}

function argo(filters: Partial<ArgoCdSource> = {}): ClusterConfig {
  return clusterOf({ argocd: { url: ARGO_URL, token: { env: 'ARGOCD_AUTH_TOKEN' }, ...filters } });
}

describe('an Argo CD that lists no application', () => {
  it.each([
    ['items: null', { items: null }],
    ['items: []', { items: [] }],
    ['no items key', { metadata: {} }],
  ])('(%s) is a failed scan naming the project and selector to check', async (_, list) => {
    const result = await scan(argo({ project: 'shopp', selector: 'team=shop' }), { list });
    expect(result.outcome).toBe('failed');
    expect(result.scanned).toBe(0);
    expect(result.findings).toHaveLength(1);
    const [finding] = result.findings;
    expect(finding).toMatchObject({ kind: 'scan-failed', ruleId: 'scan.cluster-empty', severity: 'high' });
    expect(finding!.evidence?.reason).toBe(
      `Argo CD at ${ARGO_URL} returned no applications for project shopp / selector team=shop: check --project and --selector (a registry cluster: argocd.project and argocd.selector), and that the token's account may read applications (Argo CD lists only those its RBAC lets it see)`,
    );
  });

  it('without a filter, the reason is the token account’s view (Argo CD lists what its RBAC lets it see)', async () => {
    const result = await scan(argo(), { list: { items: null } });
    expect(result.findings.map((finding) => finding.ruleId)).toEqual(['scan.cluster-empty']);
    expect(result.findings[0]!.evidence?.reason).toBe(
      `Argo CD at ${ARGO_URL} returned no applications: check that the token's account may read applications (Argo CD lists only those its RBAC lets it see)`,
    );
  });

  it('only the filter that was given is named', async () => {
    const result = await scan(argo({ selector: 'team=payments' }), { list: { items: [] } });
    expect(result.findings[0]!.evidence?.reason).toContain(
      'returned no applications for selector team=payments:',
    );
  });
});

describe('a render with no object to compare (direct mode)', () => {
  const direct = clusterOf({ kubernetes: { context: 'shop', manifests: { kustomize: 'overlays/prod' } } });

  it('an empty render is a failed scan naming the source', async () => {
    const result = await scan(direct, { render: '---\n# nothing\n' });
    expect(result.outcome).toBe('failed');
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]).toMatchObject({ kind: 'scan-failed', ruleId: 'scan.cluster-empty' });
    expect(result.findings[0]!.evidence?.reason).toBe(
      "the desired manifests (kustomize overlays/prod) hold no objects to compare: check the overlay or chart (--kustomize, or the registry cluster's manifests) renders the objects the cluster should have",
    );
  });

  it('a render of hooks only says how many were set apart', async () => {
    const hook = [
      'apiVersion: batch/v1',
      'kind: Job',
      'metadata:',
      '  name: migrate',
      '  annotations: {helm.sh/hook: pre-install}',
    ].join('\n');
    const result = await scan(direct, { render: hook });
    expect(result.findings.map((finding) => finding.ruleId)).toEqual(['scan.cluster-empty']);
    expect(result.findings[0]!.evidence?.reason).toContain(
      'hold no objects to compare (1 set apart as hooks or generateName objects)',
    );
    expect(result.skipped).toHaveLength(1);
  });
});

describe('a render that is not manifests (direct mode)', () => {
  const direct = clusterOf({ kubernetes: { context: 'shop', manifests: { kustomize: 'overlays/prod' } } });

  it.each([
    ['a tool log line', 'E1203 14:01:02.123456 1234 run.go:72] boom: [x', 'YAML syntax'],
    ['a plain text banner', 'Rendering overlays/prod...\ndone\n', 'a document is not a mapping'],
    ['a mapping that is no object', 'replicas: 3\n', 'document 1 is not a Kubernetes object'],
  ])('%s is one failed scan naming the render, the problem and the fix', async (_, render, problem) => {
    const result = await scan(direct, { render });
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]).toMatchObject({ kind: 'scan-failed', ruleId: 'scan.cluster-manifests' });
    const reason = result.findings[0]!.evidence?.reason ?? '';
    expect(reason).toMatch(
      /^desired manifests: the render of kustomize overlays\/prod is not Kubernetes manifests \(.+\): make it print only YAML or JSON objects with apiVersion, kind and metadata\.name$/,
    );
    expect(reason).toContain(problem);
    expect(reason).not.toContain('\n');
  });
});
