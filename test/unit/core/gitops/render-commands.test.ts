import { describe, expect, it } from 'vitest';
import {
  apiVersionsOf,
  helmTemplateCommand,
  kubeVersionOf,
  kustomizeCommand,
  kustomizePassesCapabilities,
  kustomizeVersionCommand,
  kustomizeVersionOf,
  renderFailureReason,
} from '../../../../functions/core/gitops/render.js';

describe('render command lines (issue 14 §3)', () => {
  it('a kustomize overlay renders with the kubectl on PATH by default', () => {
    expect(kustomizeCommand('/repo/overlays/prod', false)).toEqual({
      command: 'kubectl',
      args: ['kustomize', '/repo/overlays/prod'],
      tool: 'kubectl',
    });
  });

  it('enableHelm passes --enable-helm and the configured helm to kubectl kustomize', () => {
    expect(
      kustomizeCommand('/repo/o', true, { kubectl: '/opt/kubectl', helm: '/opt/helm-3.16/helm' }),
    ).toEqual({
      command: '/opt/kubectl',
      args: ['kustomize', '/repo/o', '--enable-helm', '--helm-command', '/opt/helm-3.16/helm'],
      tool: 'kubectl',
    });
    expect(kustomizeCommand('/repo/o', true).args).toEqual([
      'kustomize',
      '/repo/o',
      '--enable-helm',
      '--helm-command',
      'helm',
    ]);
  });

  it('the cluster’s capabilities go to kustomize’s helm flags, only with enableHelm (as Argo CD passes them)', () => {
    const capabilities = {
      kubeVersion: 'v1.29.8',
      apiVersions: ['policy/v1', 'policy/v1/PodDisruptionBudget'],
    };
    expect(kustomizeCommand('/o', true, { helm: '/opt/helm' }, capabilities).args).toEqual([
      'kustomize',
      '/o',
      '--enable-helm',
      '--helm-command',
      '/opt/helm',
      '--helm-kube-version',
      'v1.29.8',
      '--helm-api-versions',
      'policy/v1',
      '--helm-api-versions',
      'policy/v1/PodDisruptionBudget',
    ]);
    expect(kustomizeCommand('/o', false, {}, capabilities).args).toEqual(['kustomize', '/o']);
  });

  it('kustomize’s version: asked of kubectl or the standalone kustomize; flags from v5.3.0 as in Argo CD', () => {
    expect(kustomizeVersionCommand({}).args).toEqual(['version', '--client', '-o', 'json']);
    expect(kustomizeVersionCommand({ kustomize: '/k' })).toEqual({
      command: '/k',
      args: ['version'],
      tool: 'kustomize',
    });
    // `kubectl version --client -o json` (kubectl 1.32), kustomize 5 and kustomize 4 output.
    expect(kustomizeVersionOf('{"clientVersion":{"gitVersion":"v1.32.4"},"kustomizeVersion":"v5.5.0"}')).toBe(
      'v5.5.0',
    );
    expect(kustomizeVersionOf('v5.4.3\n')).toBe('v5.4.3');
    expect(
      kustomizeVersionOf('{Version:kustomize/v4.5.7 GitCommit:56d82a8 BuildDate:2022-08-02T16:35:54Z}'),
    ).toBe('v4.5.7');
    expect(kustomizeVersionOf('{"clientVersion":{"gitVersion":"v1.32.4"}}')).toBeUndefined();
    expect(['v5.2.1', 'v5.3.0', 'v5.5.0', 'v4.5.7', 'v6.0.0'].map(kustomizePassesCapabilities)).toEqual([
      false,
      true,
      true,
      false,
      true,
    ]);
  });

  it('a standalone kustomize runs `kustomize build`, with the same helm flags', () => {
    expect(
      kustomizeCommand('/repo/o', true, { kustomize: '/usr/local/bin/kustomize', kubectl: 'ignored' }),
    ).toEqual({
      command: '/usr/local/bin/kustomize',
      args: ['build', '/repo/o', '--enable-helm', '--helm-command', 'helm'],
      tool: 'kustomize',
    });
  });

  it('helm template: release, chart, namespace, every values file in order, CRDs included as Argo CD does', () => {
    const chart = { chart: 'charts/shop', release: 'shop', namespace: 'payments' };
    expect(
      helmTemplateCommand(chart, '/repo/charts/shop', ['/repo/values.yaml', '/repo/prod.yaml'], {
        helm: '/opt/helm',
      }),
    ).toEqual({
      command: '/opt/helm',
      args: [
        'template',
        'shop',
        '/repo/charts/shop',
        '-n',
        'payments',
        '-f',
        '/repo/values.yaml',
        '-f',
        '/repo/prod.yaml',
        '--include-crds',
      ],
      tool: 'helm',
    });
  });

  it('helm template without a namespace or values files leaves those flags out', () => {
    expect(helmTemplateCommand({ chart: 'c', release: 'r' }, '/c', []).args).toEqual([
      'template',
      'r',
      '/c',
      '--include-crds',
    ]);
  });

  it('the cluster’s capabilities follow as Argo CD passes them: --kube-version, then --api-versions once each', () => {
    const capabilities = {
      kubeVersion: 'v1.31.4-eks-2d5f260',
      apiVersions: ['policy/v1', 'policy/v1/PodDisruptionBudget'],
    };
    expect(helmTemplateCommand({ chart: 'c', release: 'r' }, '/c', [], {}, capabilities).args).toEqual([
      'template',
      'r',
      '/c',
      '--include-crds',
      '--kube-version',
      'v1.31.4-eks-2d5f260',
      '--api-versions',
      'policy/v1',
      '--api-versions',
      'policy/v1/PodDisruptionBudget',
    ]);
  });

  it('--kube-version is the server’s gitVersion without `+` (Argo CD’s text.SemVer); none without a gitVersion', () => {
    // GET /version answers of an EKS and a k3s server (Kubernetes API docs, version.Info).
    expect(kubeVersionOf({ major: '1', minor: '31+', gitVersion: 'v1.31.4-eks-2d5f260' })).toBe(
      'v1.31.4-eks-2d5f260',
    );
    expect(kubeVersionOf({ major: '1', minor: '31', gitVersion: 'v1.31.2+k3s1' })).toBe('v1.31.2k3s1');
    expect(kubeVersionOf({ major: '1', minor: '31' })).toBeUndefined();
    expect(kubeVersionOf(undefined)).toBeUndefined();
  });

  it('--api-versions: every group/version and group/version/Kind served, sorted, once; subresources left out', () => {
    expect(
      apiVersionsOf([
        {
          groupVersion: 'v1',
          resources: [
            { name: 'pods', kind: 'Pod' },
            { name: 'pods/log', kind: 'Pod' },
            { name: 'configmaps', kind: 'ConfigMap' },
          ],
        },
        {
          groupVersion: 'apps/v1',
          resources: [
            { name: 'deployments', kind: 'Deployment' },
            { name: 'deployments/scale', kind: 'Scale' },
          ],
        },
        {
          groupVersion: 'policy/v1',
          resources: [{ name: 'poddisruptionbudgets', kind: 'PodDisruptionBudget' }],
        },
        // A group version whose discovery failed has no resources: it is not claimed to be served.
        { groupVersion: 'metrics.k8s.io/v1beta1', resources: [] },
      ]),
    ).toEqual([
      'apps/v1',
      'apps/v1/Deployment',
      'policy/v1',
      'policy/v1/PodDisruptionBudget',
      'v1',
      'v1/ConfigMap',
      'v1/Pod',
    ]);
  });

  it('a failed helm template quotes Helm’s error, without its hint about --debug', () => {
    const render = helmTemplateCommand({ chart: 'c', release: 'billing' }, '/c', [], { helm: '/opt/helm' });
    const stderr =
      'Error: execution error at (billing/templates/configmap.yaml:6:11): database.host is required\n\nUse --debug flag to render out invalid YAML\n';
    expect(renderFailureReason(render, { missingBinary: false, stderr, message: 'exit 1' })).toBe(
      '/opt/helm template billing failed: Error: execution error at (billing/templates/configmap.yaml:6:11): database.host is required',
    );
  });

  it('a chart that fails inside kustomize quotes Helm’s error, not kustomize’s "is helm installed?"', () => {
    // The shape kubectl 1.32 (Kustomize v5.5.0) prints when the helm it runs exits 1.
    const stderr = [
      'E1202 14:25:01.485514    8071 run.go:72] "command failed" err=<',
      '\tError: execution error at (billing/templates/configmap.yaml:6:11): database.host is required',
      '\t',
      '\tUse --debug flag to render out invalid YAML',
      "\t: unable to run: '/opt/helm template billing /k/charts/billing -f /tmp/kustomize-helm-1/billing-kustomize-values.yaml' with env=[HELM_CONFIG_HOME=/tmp/kustomize-helm-1/helm HELM_CACHE_HOME=/tmp/kustomize-helm-1/helm/.cache] (is '/opt/helm' installed?): exit status 1",
      ' >',
      '',
    ].join('\n');
    const render = kustomizeCommand('/k', true, { helm: '/opt/helm' });
    expect(
      renderFailureReason(render, { missingBinary: false, stderr, message: 'exit 1' }, { helm: '/opt/helm' }),
    ).toBe(
      "kubectl kustomize /k failed: Error: execution error at (billing/templates/configmap.yaml:6:11): database.host is required : unable to run: '/opt/helm template billing /k/charts/billing -f /tmp/kustomize-helm-1/billing-kustomize-values.yaml': exit status 1",
    );
  });

  it('a missing binary names the registry key that points at it', () => {
    const helm = helmTemplateCommand({ chart: 'c', release: 'r' }, '/c', [], { helm: '/opt/helm' });
    expect(renderFailureReason(helm, { missingBinary: true, stderr: '', message: 'spawn ENOENT' })).toBe(
      '/opt/helm is not installed or not on PATH: install helm or set clusters[].kubernetes.render.helm to its path',
    );
  });

  it('kustomize that cannot run helm says the helmCharts need Helm (not that kustomize failed)', () => {
    const render = kustomizeCommand('/o', true);
    const stderr =
      "Error: unable to run: 'helm version -c --short' with env=[...] (is 'helm' installed?): exec: \"helm\": executable file not found in $PATH";
    expect(renderFailureReason(render, { missingBinary: false, stderr, message: 'exit 1' })).toBe(
      "the kustomization's helmCharts need helm, which is not installed or not on PATH: install Helm or set clusters[].kubernetes.render.helm to its path",
    );
  });

  it('any other render failure quotes the last lines of stderr', () => {
    const render = kustomizeCommand('/o', false);
    expect(
      renderFailureReason(render, {
        missingBinary: false,
        stderr: 'a\nb\nc\nError: no kustomization in /o\n',
        message: 'x',
      }),
    ).toBe('kubectl kustomize /o failed: b c Error: no kustomization in /o');
  });
});
