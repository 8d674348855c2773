import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../functions/core/findings/model.js';
import {
  type Canary,
  leakedCanaries,
  NORMALISED_NAMES,
  newCore,
  VALUE_CATEGORIES,
} from '../helpers/canary-generator.js';
import {
  type FakeArgoCd,
  predictFromLive,
  readArgoFixture,
  resourceDiff,
  startFakeArgoCd,
} from '../helpers/fake-argocd.js';
import { allFileText, runCli, useTempDir } from '../helpers/integration.js';

/**
 * Issue 14 §6, end to end: canary secrets planted where a Kubernetes object carries them outside a
 * Secret — container env values, ConfigMap data, annotations (one of them the
 * `last-applied-configuration`, a plaintext copy of the whole object), and Argo CD's own health
 * messages — must appear in no finding, no log line, no stored object and no output format of
 * `driftwatch cluster-diff` (json, table, markdown, sarif). The changes stay visible as hashes.
 */
const temp = useTempDir('driftwatch-cluster-secrets-');
const token = `CANARY-argocd-token-${newCore()}`;
const canaries: Canary[] = [];
const plant = (category: string, place: string): string => {
  const core = newCore();
  canaries.push({ category, place, core });
  return core;
};
const categories = Object.entries(VALUE_CATEGORIES);

// Git's side: plain values. The live side: one credential of every category in each place.
const gitEnv = categories.map((_entry, index) => ({ name: `SETTING_${index}`, value: `plain-${index}` }));
const liveEnv = [
  ...categories.map(([category, make], index) => ({
    name: `SETTING_${index}`,
    value: make(plant(category, 'env value')),
  })),
  // An env entry only the cluster has: the whole element is the change.
  { name: 'EXTRA_URL', value: VALUE_CATEGORIES['url-userinfo']!(plant('url-userinfo', 'added env entry')) },
];
const liveData: Record<string, string> = { mode: 'a' };
for (const [category, make] of categories)
  liveData[`setting-${category}`] = make(plant(category, 'ConfigMap data'));
for (const name of NORMALISED_NAMES) liveData[name] = plant(`normalised-name:${name}`, 'ConfigMap data');
const annotationSecret = VALUE_CATEGORIES['slack-webhook']!(plant('slack-webhook', 'annotation'));
// The last-applied copy holds a value no pattern recognises: only dropping or hashing it keeps it in.
const lastAppliedSecret = plant('plain', 'last-applied-configuration');
const healthSecret = VALUE_CATEGORIES['url-userinfo']!(plant('url-userinfo', 'health message'));
const resourceHealthSecret = VALUE_CATEGORIES['authorization-bearer']!(
  plant('authorization-bearer', 'resource health message'),
);

const live = readArgoFixture('guestbook-ui-live.yaml');
const liveMetadata = live.metadata as Record<string, unknown>;
const lastApplied = JSON.stringify({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'guestbook-ui', namespace: 'default' },
  spec: {
    template: {
      spec: { containers: [{ name: 'guestbook-ui', env: [{ name: 'TOKEN', value: lastAppliedSecret }] }] },
    },
  },
});
const liveDeployment = {
  ...live,
  metadata: {
    ...liveMetadata,
    annotations: {
      ...(liveMetadata.annotations as Record<string, string>),
      'kubectl.kubernetes.io/last-applied-configuration': lastApplied,
      'notifications.example.com/webhook': annotationSecret,
    },
  },
  spec: withEnv(live.spec, liveEnv),
};
const gitDeployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'guestbook-ui',
    namespace: 'default',
    annotations: { 'notifications.example.com/webhook': 'https://hooks.example.com/placeholder' },
  },
  spec: withEnv({ template: { spec: { containers: [{ name: 'guestbook-ui' }] } } }, gitEnv),
};
const gitConfigMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'guestbook-settings', namespace: 'default' },
  data: { mode: 'a' },
};
const liveConfigMap = {
  ...gitConfigMap,
  metadata: {
    ...gitConfigMap.metadata,
    // A whole annotations block git does not have.
    annotations: {
      'example.com/source': VALUE_CATEGORIES['github-token']!(
        plant('github-token', 'added annotations block'),
      ),
    },
    resourceVersion: '1184399',
    uid: '2f4e6a8c-1b3d-4f5a-9c7e-0d2b4f6a8c1e',
  },
  data: liveData,
};

function withEnv(spec: unknown, env: unknown[]): unknown {
  const copy = structuredClone(spec) as {
    template: { spec: { containers: Array<Record<string, unknown>> } };
  };
  copy.template.spec.containers[0]!.env = env;
  return copy;
}

function application(): Record<string, unknown> {
  const app = structuredClone(readArgoFixture('manual-sync-application-3x.yaml'));
  const status = app.status as Record<string, unknown>;
  status.health = { status: 'Degraded', message: `cannot reach ${healthSecret}` };
  status.resources = [
    {
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
      namespace: 'default',
      name: 'guestbook-ui',
      status: 'OutOfSync',
      health: { status: 'Degraded', message: `probe failed: ${resourceHealthSecret}` },
    },
    {
      version: 'v1',
      kind: 'ConfigMap',
      namespace: 'default',
      name: 'guestbook-settings',
      status: 'OutOfSync',
    },
  ];
  return app;
}

describe('cluster-diff never shows a secret carried by an env value, ConfigMap data or an annotation', () => {
  let argo: FakeArgoCd;
  beforeAll(async () => {
    argo = await startFakeArgoCd({
      token,
      applications: [
        {
          application: application(),
          managedResources: [
            resourceDiff({
              group: 'apps',
              kind: 'Deployment',
              namespace: 'default',
              name: 'guestbook-ui',
              target: gitDeployment,
              live: liveDeployment,
              predicted: predictFromLive(liveDeployment, gitDeployment),
            }),
            resourceDiff({
              kind: 'ConfigMap',
              namespace: 'default',
              name: 'guestbook-settings',
              target: gitConfigMap,
              live: liveConfigMap,
              predicted: predictFromLive(
                { ...liveConfigMap, data: {}, metadata: gitConfigMap.metadata },
                gitConfigMap,
              ),
            }),
          ],
        },
      ],
    });
  });
  afterAll(async () => {
    await argo?.close();
  });

  it.each(['json', 'table', 'markdown', 'sarif'])(
    '--format %s: no canary in stdout, stderr (debug logs) or the store',
    async (format) => {
      const store = join(temp.path, `store-${format}`);
      const run = await runCli(['cluster-diff', '--argocd', argo.url, '--store', store, '--format', format], {
        env: {
          DRIFTWATCH_HASH_SALT: 'cluster-secrets-test-salt-01',
          ARGOCD_AUTH_TOKEN: token,
          DRIFTWATCH_LOG_LEVEL: 'debug',
        },
      });
      expect(run.stderr).toContain('cluster diffed');
      expect(run.code, run.stderr).toBe(2);
      const everything = `${run.stdout}\n${run.stderr}\n${allFileText(store)}`;
      expect(leakedCanaries(canaries, everything)).toEqual([]);
      expect(everything).not.toContain(token);
      if (format !== 'json') return;

      // What changed stays visible: every planted value is there as a hash, on the paths that changed.
      const findings = JSON.parse(run.stdout) as Finding[];
      const drift = (name: string) =>
        findings.find(
          (finding) =>
            finding.ruleId === 'cluster.drift' && (finding.resource as { name: string }).name === name,
        )!;
      const deployment = drift('guestbook-ui').drift!.changes;
      for (const index of categories.keys()) {
        expect(deployment).toContainEqual({
          path: `spec.template.spec.containers[0].env[${index}].value`,
          before: expect.stringMatching(/^\(sensitive:[0-9a-f]{8}\)$/),
          after: expect.stringMatching(/^\(sensitive:[0-9a-f]{8}\)$/),
          sensitive: true,
        });
      }
      expect(deployment).toContainEqual(
        expect.objectContaining({
          path: 'metadata.annotations["notifications.example.com/webhook"]',
          sensitive: true,
        }),
      );
      expect(deployment.some((change) => change.path.includes('last-applied-configuration'))).toBe(false);
      const configMap = drift('guestbook-settings').drift!.changes;
      expect(configMap.filter((change) => change.path.startsWith('data')).length).toBeGreaterThanOrEqual(
        categories.length + NORMALISED_NAMES.length,
      );
      expect(configMap.every((change) => change.sensitive)).toBe(true);
      const degraded = findings.find((finding) => finding.ruleId === 'cluster.health-degraded')!;
      expect(degraded.detail).toContain('cannot reach postgres://app:(redacted)@');
    },
  );
});
