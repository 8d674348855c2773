import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createManifestReader, inReleaseNamespace } from '../../../functions/adapters/manifest-source.js';
import { parseRender } from '../../../functions/core/gitops/manifests.js';
import { ClusterSourceError } from '../../../functions/core/gitops/ports.js';

/**
 * Rendering as the GitOps tool renders (issue 14 §3): kustomize for real with the kubectl on this
 * machine (its embedded Kustomize v5), Helm through a stand-in script (Helm cannot be installed
 * here; see test/fixtures/gitops-render/README.md): these tests prove the command lines and the
 * handling of Helm-shaped output, not Helm's own rendering.
 */
const FIXTURES = join(import.meta.dirname, '../../fixtures/gitops-render');
const FAKE_HELM = join(FIXTURES, 'helm/fake-helm.sh');
const reader = createManifestReader({ registryDir: FIXTURES, s3: () => new S3Client({}) });

let argvFile: string;
beforeEach(() => {
  argvFile = join(tmpdir(), `driftwatch-fake-helm-${process.pid}-${Date.now()}.argv`);
  vi.stubEnv('FAKE_HELM_ARGV', argvFile);
});
afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(argvFile, { force: true });
});

function helmCalls(): string[][] {
  return readFileSync(argvFile, 'utf8')
    .trim()
    .split('\n')
    .map((line) => line.split('\t'));
}

describe('kustomize rendered by the real kubectl kustomize', () => {
  it('renders the overlay (namePrefix, namespace, label) and sets its PreSync hook apart', async () => {
    const rendered = await reader({ kustomize: 'kustomize/overlay' });
    expect(rendered.source).toBe('kustomize kustomize/overlay');
    const render = parseRender(rendered.text);
    expect(render.objects).toHaveLength(1);
    expect(render.objects[0]).toMatchObject({
      kind: 'Deployment',
      metadata: { name: 'prod-api', namespace: 'shop', labels: { env: 'prod' } },
    });
    expect(render.skipped).toEqual([
      {
        kind: 'Job',
        name: 'prod-migrate',
        namespace: 'shop',
        reason: 'Argo CD hook (argocd.argoproj.io/hook: PreSync)',
      },
    ]);
  });

  it('a directory without a kustomization fails the render with kubectl’s own words', async () => {
    const failure = await reader({ kustomize: 'helm' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ClusterSourceError);
    expect((failure as ClusterSourceError).reason).toMatch(
      /^kubectl kustomize .*helm failed: .*kustomization/,
    );
  });
});

describe('helmCharts in a kustomization (--enable-helm), kubectl kustomize calling a stand-in helm', () => {
  it('passes the configured helm; kustomize runs helm template with the release, chart, namespace and values', async () => {
    const rendered = await reader({ kustomize: 'kustomize-helm', enableHelm: true }, { helm: FAKE_HELM });
    const calls = helmCalls();
    const template = calls.find((call) => call[0] === 'template');
    expect(template?.slice(0, 5)).toEqual([
      'template',
      'shop',
      join(FIXTURES, 'kustomize-helm/charts/shop'),
      '--namespace',
      'shop',
    ]);
    expect(template).toContain('-f');
    const render = parseRender(rendered.text);
    expect(
      render.objects.map((object) => `${object.kind}/${(object.metadata as { name: string }).name}`),
    ).toEqual(['ServiceAccount/shop', 'Service/shop']);
    expect(render.skipped).toEqual([
      { kind: 'Pod', name: 'shop-test-connection', reason: 'Helm hook (helm.sh/hook: test)' },
    ]);
  });

  it('without enableHelm, kustomize refuses the helmCharts and the render fails (no helm is run)', async () => {
    const failure = await reader({ kustomize: 'kustomize-helm' }, { helm: FAKE_HELM }).catch(
      (error: unknown) => error,
    );
    expect((failure as ClusterSourceError).reason).toMatch(/kubectl kustomize .* failed: .*enable-helm/);
  });

  it('a helm that is not installed is one clear failure naming the fix', async () => {
    const failure = await reader(
      { kustomize: 'kustomize-helm', enableHelm: true },
      { helm: '/nonexistent/helm' },
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ClusterSourceError);
    expect((failure as ClusterSourceError).reason).toBe(
      "the kustomization's helmCharts need /nonexistent/helm, which is not installed or not on PATH: install Helm or set clusters[].kubernetes.render.helm to its path",
    );
  });
});

describe('a Helm chart rendered with helm template (stand-in helm)', () => {
  const chart = {
    chart: 'helm/chart',
    release: 'shop',
    namespace: 'shop',
    values: ['helm/values-prod.yaml', 'helm/values-override.yaml'],
  };

  it('runs exactly helm template <release> <chart> -n <ns> -f <values>... --include-crds and reads its output', async () => {
    const rendered = await reader({ helm: chart }, { helm: FAKE_HELM });
    expect(rendered.source).toBe('helm shop helm/chart');
    expect(helmCalls()).toEqual([
      [
        'template',
        'shop',
        join(FIXTURES, 'helm/chart'),
        '-n',
        'shop',
        '-f',
        join(FIXTURES, 'helm/values-prod.yaml'),
        '-f',
        join(FIXTURES, 'helm/values-override.yaml'),
        '--include-crds',
      ],
    ]);
    const render = parseRender(rendered.text);
    expect(render.objects.map((object) => object.kind)).toEqual(['ServiceAccount', 'Service']);
    expect(render.skipped.map((object) => object.name)).toEqual(['shop-test-connection']);
    // The chart sets no namespace: its objects go to the release namespace, as helm install -n puts them.
    expect(render.objects.map((object) => (object.metadata as { namespace?: string }).namespace)).toEqual([
      'shop',
      'shop',
    ]);
  });

  it('an object the chart puts in a namespace keeps it; a render with a YAML error is left for the parser', () => {
    const two =
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: other}\n';
    const objects = parseRender(inReleaseNamespace(two, 'shop')).objects;
    expect(objects.map((object) => (object.metadata as { namespace?: string }).namespace)).toEqual([
      'shop',
      'other',
    ]);
    const broken = 'apiVersion: v1\nkind: [unclosed\n';
    expect(inReleaseNamespace(broken, 'shop')).toBe(broken);
  });

  it('a missing helm binary is a ClusterSourceError naming the fix, not a crash', async () => {
    const failure = await reader({ helm: chart }, { helm: '/nonexistent/helm' }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ClusterSourceError);
    expect((failure as ClusterSourceError).reason).toBe(
      '/nonexistent/helm is not installed or not on PATH: install helm or set clusters[].kubernetes.render.helm to its path',
    );
  });
});
