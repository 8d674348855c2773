import { describe, expect, it } from 'vitest';
import {
  helmTemplateCommand,
  kustomizeCommand,
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
