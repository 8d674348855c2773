import type { HelmChartSource, RenderTools } from '../registry/model.js';

/** One render: the binary, its arguments, and which tool it needs (named in a failure's fix). */
export interface RenderCommand {
  command: string;
  args: string[];
  /** The registry key that points at another binary: clusters[].kubernetes.render.<tool>. */
  tool: 'kubectl' | 'kustomize' | 'helm';
}

/**
 * A kustomize overlay as Argo CD renders it (`kustomize build`): with kubectl's embedded kustomize
 * (`kubectl kustomize <dir>`) unless a standalone `kustomize` is configured. `enableHelm` inflates
 * the kustomization's `helmCharts` with `helm template`, which both need told which helm to run.
 */
export function kustomizeCommand(dir: string, enableHelm: boolean, tools: RenderTools = {}): RenderCommand {
  const helmFlags = enableHelm ? ['--enable-helm', '--helm-command', tools.helm ?? 'helm'] : [];
  if (tools.kustomize !== undefined)
    return { command: tools.kustomize, args: ['build', dir, ...helmFlags], tool: 'kustomize' };
  return { command: tools.kubectl ?? 'kubectl', args: ['kustomize', dir, ...helmFlags], tool: 'kubectl' };
}

/**
 * A Helm chart as Argo CD renders a Helm source: `helm template <release> <chart> -n <namespace>
 * -f <values>... --include-crds` (Argo CD includes the chart's CRDs unless told to skip them).
 * `chartDir` and `valuesFiles` are already resolved paths, in the registry's order (the last wins).
 */
export function helmTemplateCommand(
  chart: HelmChartSource,
  chartDir: string,
  valuesFiles: string[],
  tools: RenderTools = {},
): RenderCommand {
  const args = ['template', chart.release, chartDir];
  if (chart.namespace !== undefined) args.push('-n', chart.namespace);
  for (const file of valuesFiles) args.push('-f', file);
  args.push('--include-crds');
  return { command: tools.helm ?? 'helm', args, tool: 'helm' };
}

/**
 * Why a render failed, for people: a missing binary names the registry key that points at it
 * (kustomize reports a helm it cannot run with `(is '<helm>' installed?)`).
 */
export function renderFailureReason(
  render: RenderCommand,
  failure: { missingBinary: boolean; stderr: string; message: string },
  tools: RenderTools = {},
): string {
  const helm = tools.helm ?? 'helm';
  if (failure.missingBinary)
    return `${render.command} is not installed or not on PATH: install ${render.tool} or set clusters[].kubernetes.render.${render.tool} to its path`;
  // kustomize v5 words it `unable to run: '<helm> version -c --short' ... (is '<helm>' installed?)`.
  if (render.tool !== 'helm' && failure.stderr.includes(`(is '${helm}' installed?)`))
    return `the kustomization's helmCharts need ${helm}, which is not installed or not on PATH: install Helm or set clusters[].kubernetes.render.helm to its path`;
  const lastLines = failure.stderr.trim().split('\n').slice(-3).join(' ');
  return `${render.command} ${render.args.slice(0, 2).join(' ')} failed: ${lastLines || failure.message}`;
}
