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

  const kustomize = kustomizeCommand('/k', false);
  const kustomizeHelm = kustomizeCommand('/k', true, { helm: '/opt/helm' });
  const helm = helmTemplateCommand({ chart: 'c', release: 'billing' }, '/c', [], { helm: '/opt/helm' });
  const klog = (message: string) =>
    `E1203 14:01:02.123456    1234 run.go:72] "command failed" err=${JSON.stringify(message)}\n`;

  // Each stderr is what the real tool prints (kubectl 1.32 with Kustomize v5.5.0, Helm 3.17).
  it.each([
    [
      'a kustomize directory without a kustomization file',
      kustomize,
      klog(
        "unable to find one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization' in directory '/k'",
      ),
      "kubectl kustomize /k failed: unable to find one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization' in directory '/k': add a kustomization.yaml there, or for plain manifests use the registry's manifests: {directory: <dir>} instead of kustomize",
    ],
    [
      'a kustomization listing a resource that does not exist',
      kustomize,
      klog(
        "accumulating resources: accumulation err='accumulating resources from 'missing.yaml': evalsymlink failure on '/k/missing.yaml' : lstat /k/missing.yaml: no such file or directory': must build at directory: not a valid directory: evalsymlink failure on '/k/missing.yaml' : lstat /k/missing.yaml: no such file or directory",
      ),
      "kubectl kustomize /k failed: accumulating resources from 'missing.yaml': /k/missing.yaml: no such file or directory: fix or remove that entry of the kustomization's resources (its paths are relative to the kustomization)",
    ],
    [
      'a kustomize path that does not exist',
      kustomize,
      klog(
        "must build at directory: not a valid directory: evalsymlink failure on '/k' : lstat /k: no such file or directory",
      ),
      'kubectl kustomize /k failed: must build at directory: not a valid directory: /k: no such file or directory: check the kustomize path: it must be a directory holding a kustomization.yaml',
    ],
    [
      'a kustomization that is not YAML',
      kustomize,
      klog('invalid Kustomization: yaml: line 1: did not find expected node content'),
      "kubectl kustomize /k failed: invalid Kustomization: yaml: line 1: did not find expected node content: fix the kustomization file's YAML",
    ],
    [
      'helmCharts without enableHelm (kubectl’s multi-line err=<, the generator’s config echoed)',
      kustomize,
      'E1203 14:40:59.398851   29501 run.go:72] "command failed" err=<\n\ttrouble configuring builtin HelmChartInflationGenerator with config: `\n\tchartHome: charts\n\tname: shop\n\tvaluesFile: values-prod.yaml\n\t`: must specify --enable-helm\n >\n',
      'kubectl kustomize /k failed: trouble configuring builtin HelmChartInflationGenerator: must specify --enable-helm: set enableHelm: true beside the kustomize path in the registry (its kustomization inflates helmCharts)',
    ],
    [
      'a chart that fails inside kustomize (Helm’s error, not kustomize’s "is helm installed?")',
      kustomizeHelm,
      [
        'E1202 14:25:01.485514    8071 run.go:72] "command failed" err=<',
        '\tError: execution error at (billing/templates/configmap.yaml:6:11): database.host is required',
        '\t',
        '\tUse --debug flag to render out invalid YAML',
        "\t: unable to run: '/opt/helm template billing /k/charts/billing -f /tmp/kustomize-helm-1/billing-kustomize-values.yaml' with env=[HELM_CONFIG_HOME=/tmp/kustomize-helm-1/helm HELM_CACHE_HOME=/tmp/kustomize-helm-1/helm/.cache] (is '/opt/helm' installed?): exit status 1",
        ' >',
        '',
      ].join('\n'),
      "kubectl kustomize /k failed: execution error at (billing/templates/configmap.yaml:6:11): database.host is required : unable to run: '/opt/helm template billing /k/charts/billing -f /tmp/kustomize-helm-1/billing-kustomize-values.yaml': exit status 1: fix the chart's template or the values it reads",
    ],
    [
      'a helm template whose `required` fails (without Helm’s hint about --debug)',
      helm,
      'Error: execution error at (billing/templates/configmap.yaml:6:11): database.host is required\n\nUse --debug flag to render out invalid YAML\n',
      "/opt/helm template billing /c failed: execution error at (billing/templates/configmap.yaml:6:11): database.host is required: fix the chart's template or the values it reads",
    ],
    [
      'a helm template error after a warning',
      helm,
      'walk.go:74: found symbolic link in path: /c/templates/x.yaml resolves to /elsewhere/x.yaml\nError: template: c/templates/cm.yaml:2:13: executing "c/templates/cm.yaml" at <.Values.foo.bar>: nil pointer evaluating interface {}.bar\n\nUse --debug flag to render out invalid YAML\n',
      '/opt/helm template billing /c failed: template: c/templates/cm.yaml:2:13: executing "c/templates/cm.yaml" at <.Values.foo.bar>: nil pointer evaluating interface {}.bar: fix the chart\'s template or the values it reads',
    ],
    [
      'a chart directory without Chart.yaml',
      helm,
      'Error: Chart.yaml file is missing\n',
      "/opt/helm template billing /c failed: Chart.yaml file is missing: point the chart at a directory holding the chart's Chart.yaml (for plain manifests, use the registry's manifests: {directory: <dir>} instead)",
    ],
    [
      'a chart path that does not exist',
      helm,
      'Error: path "/c" not found\n',
      `/opt/helm template billing /c failed: path "/c" not found: check the chart's path (a relative path is read from the directory of the registry file)`,
    ],
    [
      'a values file that does not exist',
      helm,
      'Error: open /v.yaml: no such file or directory\n',
      "/opt/helm template billing /c failed: open /v.yaml: no such file or directory: check the paths of the chart's values files (a relative path is read from the directory of the registry file)",
    ],
    [
      'a template that renders no YAML',
      helm,
      "Error: YAML parse error on c/templates/a.yaml: error converting YAML to JSON: yaml: line 1: did not find expected ',' or ']'\n\nUse --debug flag to render out invalid YAML\n",
      "/opt/helm template billing /c failed: YAML parse error on c/templates/a.yaml: error converting YAML to JSON: yaml: line 1: did not find expected ',' or ']': fix the template so that it renders YAML",
    ],
    [
      'a tool that panics (its goroutine dump left out)',
      helm,
      'panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x1a2b3c]\n\ngoroutine 1 [running]:\nhelm.sh/helm/v3/pkg/chart.(*Chart).Name(...)\n\t/home/runner/work/helm/pkg/chart/chart.go:81\nmain.main()\n\t/home/runner/work/helm/cmd/helm/helm.go:70 +0x1d\n',
      '/opt/helm template billing /c failed: panic: runtime error: invalid memory address or nil pointer dereference [signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x1a2b3c]: fix the chart or its values (helm template billing /c shows the same error)',
    ],
    [
      'a tool that says nothing',
      kustomize,
      '\n',
      'kubectl kustomize /k failed: exit status 1, with nothing on stderr: fix the kustomization (kubectl kustomize /k shows the same error)',
    ],
  ])('%s: one line, the tool’s words without its log wrapping, and the fix', (_, render, stderr, reason) => {
    const said = renderFailureReason(
      render,
      { missingBinary: false, stderr, exitCode: 1 },
      { helm: '/opt/helm' },
    );
    expect(said).toBe(reason);
    expect(said).not.toMatch(/\n|E\d{4} \d\d:|run\.go|"command failed"|goroutine|Use --debug|^Error: /);
  });

  it('a credential in the tool’s message, even Go-quoted by klog, is not quoted', () => {
    const canary = 'postgres://admin:Canary-Pa55word-7q@db.internal:5432/shop';
    for (const stderr of [klog(`failed to read "${canary}"`), `Error: cannot reach ${canary}\n`]) {
      const said = renderFailureReason(helm, { missingBinary: false, stderr, exitCode: 1 });
      expect(said).not.toContain('Canary-Pa55word-7q');
      expect(said).toContain('/opt/helm template billing /c failed: ');
    }
  });

  it('a render that times out or prints too much says so, naming the render', () => {
    expect(
      renderFailureReason(kustomize, {
        missingBinary: false,
        stderr: '',
        timedOut: true,
        timeoutMs: 120_000,
      }),
    ).toBe(
      'kubectl kustomize /k did not finish within 120 s: check that it renders locally, without network access it waits for (remote bases, chart repositories)',
    );
    expect(renderFailureReason(helm, { missingBinary: false, stderr: '', tooLarge: true })).toBe(
      '/opt/helm template billing /c printed more than a render may hold: is it the right chart?',
    );
  });

  it('a missing binary names the registry key that points at it', () => {
    expect(renderFailureReason(helm, { missingBinary: true, stderr: '' })).toBe(
      '/opt/helm is not installed or not on PATH: install helm or set clusters[].kubernetes.render.helm to its path',
    );
  });

  it('kustomize that cannot run helm says the helmCharts need Helm (not that kustomize failed)', () => {
    const render = kustomizeCommand('/o', true);
    const stderr =
      "Error: unable to run: 'helm version -c --short' with env=[...] (is 'helm' installed?): exec: \"helm\": executable file not found in $PATH";
    expect(renderFailureReason(render, { missingBinary: false, stderr })).toBe(
      "the kustomization's helmCharts need helm, which is not installed or not on PATH: install Helm or set clusters[].kubernetes.render.helm to its path",
    );
  });
});
