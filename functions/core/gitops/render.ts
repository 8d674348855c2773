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
 * the kustomization's `helmCharts` with `helm template`, which both need told which helm to run,
 * and, as Argo CD does for kustomize 5.3 and later, the cluster's capabilities
 * (`--helm-kube-version`, `--helm-api-versions` once each; see kustomizePassesCapabilities).
 */
export function kustomizeCommand(
  dir: string,
  enableHelm: boolean,
  tools: RenderTools = {},
  capabilities: HelmCapabilities = {},
): RenderCommand {
  const helmFlags = enableHelm
    ? [
        '--enable-helm',
        '--helm-command',
        tools.helm ?? 'helm',
        ...capabilityFlags(capabilities, '--helm-kube-version', '--helm-api-versions'),
      ]
    : [];
  if (tools.kustomize !== undefined)
    return { command: tools.kustomize, args: ['build', dir, ...helmFlags], tool: 'kustomize' };
  return { command: tools.kubectl ?? 'kubectl', args: ['kustomize', dir, ...helmFlags], tool: 'kubectl' };
}

/** How the kustomize that renders tells its version: `kubectl version --client -o json`, or `kustomize version`. */
export function kustomizeVersionCommand(tools: RenderTools = {}): RenderCommand {
  if (tools.kustomize !== undefined)
    return { command: tools.kustomize, args: ['version'], tool: 'kustomize' };
  return {
    command: tools.kubectl ?? 'kubectl',
    args: ['version', '--client', '-o', 'json'],
    tool: 'kubectl',
  };
}

/**
 * The kustomize version in what kustomizeVersionCommand printed: kubectl's `kustomizeVersion`
 * (`"v5.5.0"`), kustomize 5's `v5.5.0`, or kustomize 4's `{Version:kustomize/v4.5.7 GitCommit:…}`.
 */
export function kustomizeVersionOf(output: string): string | undefined {
  let text = output;
  if (output.trimStart().startsWith('{"') || output.trimStart().startsWith('{\n')) {
    // kubectl's JSON: only its kustomizeVersion counts (its clientVersion is kubectl's own).
    try {
      const version = (JSON.parse(output) as { kustomizeVersion?: unknown } | null)?.kustomizeVersion;
      text = typeof version === 'string' ? version : '';
    } catch {
      text = '';
    }
  }
  return /v\d+\.\d+\.\d+/.exec(text)?.[0];
}

/**
 * Argo CD passes the cluster's capabilities to kustomize only from kustomize v5.3.0, the first with
 * `--helm-kube-version`/`--helm-api-versions`; an older kustomize would refuse the flags.
 */
export function kustomizePassesCapabilities(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  return major > 5 || (major === 5 && minor >= 3);
}

/**
 * What Argo CD tells `helm template` about the destination cluster, so that a chart's
 * `.Capabilities` match it (without them Helm assumes its own defaults: Kubernetes v1.32.0 for
 * Helm 3.17, and only the built-in group versions, no kinds and no CRDs).
 */
export interface HelmCapabilities {
  /** `--kube-version`: the server's version (see kubeVersionOf). */
  kubeVersion?: string;
  /** `--api-versions`, one flag each: see apiVersionsOf. */
  apiVersions?: readonly string[];
}

/**
 * A Helm chart as Argo CD renders a Helm source: `helm template <release> <chart> -n <namespace>
 * -f <values>... --include-crds --kube-version <v> --api-versions <gv>...` (Argo CD includes the
 * chart's CRDs unless told to skip them, and passes the cluster's version and API versions).
 * `chartDir` and `valuesFiles` are already resolved paths, in the registry's order (the last wins).
 */
export function helmTemplateCommand(
  chart: HelmChartSource,
  chartDir: string,
  valuesFiles: string[],
  tools: RenderTools = {},
  capabilities: HelmCapabilities = {},
): RenderCommand {
  const args = ['template', chart.release, chartDir];
  if (chart.namespace !== undefined) args.push('-n', chart.namespace);
  for (const file of valuesFiles) args.push('-f', file);
  args.push('--include-crds', ...capabilityFlags(capabilities, '--kube-version', '--api-versions'));
  return { command: tools.helm ?? 'helm', args, tool: 'helm' };
}

/** The capabilities as flags, under helm's names or kustomize's: the version, then one flag per API version. */
function capabilityFlags(
  capabilities: HelmCapabilities,
  kubeVersionFlag: string,
  apiVersionsFlag: string,
): string[] {
  const flags = capabilities.kubeVersion === undefined ? [] : [kubeVersionFlag, capabilities.kubeVersion];
  for (const apiVersion of capabilities.apiVersions ?? []) flags.push(apiVersionsFlag, apiVersion);
  return flags;
}

/**
 * `--kube-version` from the server's `GET /version` answer: its `gitVersion` (e.g.
 * `v1.31.4-eks-2d5f260`) with any `+` removed, as Argo CD passes it (its text.SemVer: Helm cannot
 * parse the build metadata of versions like `v1.31.0+k3s1`). Undefined when there is none.
 */
export function kubeVersionOf(versionInfo: unknown): string | undefined {
  const gitVersion = (versionInfo as { gitVersion?: unknown } | null | undefined)?.gitVersion;
  if (typeof gitVersion !== 'string' || gitVersion.trim() === '') return undefined;
  return gitVersion.trim().replaceAll('+', '');
}

/**
 * `--api-versions` from discovery, as Argo CD builds them (APIResourcesToStrings with kinds): every
 * served `group/version` and `group/version/Kind` (`v1` and `v1/Pod` for the core group), sorted,
 * each once. Subresources (`deployments/scale`) are not kinds of their own and are left out.
 */
export function apiVersionsOf(
  served: ReadonlyArray<{ groupVersion: string; resources: ReadonlyArray<{ name: string; kind: string }> }>,
): string[] {
  const versions = new Set<string>();
  for (const { groupVersion, resources } of served) {
    for (const resource of resources) {
      if (resource.name.includes('/')) continue;
      versions.add(groupVersion);
      versions.add(`${groupVersion}/${resource.kind}`);
    }
  }
  return [...versions].sort();
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
  // kustomize v5 words it `unable to run: '<helm> version -c --short' ... (is '<helm>' installed?):
  // exec: "helm": executable file not found` (`fork/exec <path>: no such file or directory` for a
  // path). It adds `(is … installed?)` to every helm failure, so the exec error decides.
  if (
    render.tool !== 'helm' &&
    failure.stderr.includes(`(is '${helm}' installed?)`) &&
    /executable file not found|no such file or directory/.test(failure.stderr)
  )
    return `the kustomization's helmCharts need ${helm}, which is not installed or not on PATH: install Helm or set clusters[].kubernetes.render.helm to its path`;
  const lines = failure.stderr
    .split('\n')
    .map((line) => line.trim())
    // Noise around the cause: Helm's hint about its --debug flag (never passed here), kubectl's
    // log wrapper of a multi-line error (`… "command failed" err=<` … `>`), and what kustomize adds
    // to a helm failure (its temporary HELM_* directories, the misleading `(is … installed?)`).
    .filter(
      (line) =>
        line !== '' && line !== '>' && !line.startsWith('Use --debug flag') && !line.endsWith('err=<'),
    )
    .map((line) => line.replace(/ with env=\[[^\]]*\]/, '').replace(/ \(is '[^']*' installed\?\)/, ''));
  const lastLines = lines.slice(-3).join(' ');
  return `${render.command} ${render.args.slice(0, 2).join(' ')} failed: ${lastLines || failure.message}`;
}
