import { redactText } from '../redaction/secrets.js';
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

/** How a render ended without a render (what run() saw of the process). */
export interface RenderFailure {
  missingBinary: boolean;
  /** The tool's stderr, already redacted. */
  stderr: string;
  /** Killed after the render's time limit. */
  timedOut?: boolean;
  timeoutMs?: number;
  /** Its output went past the most a render may hold. */
  tooLarge?: boolean;
  exitCode?: number | string | null;
}

/**
 * Why a render failed, for people, on one line: which render of which path failed, the tool's own
 * message without its log wrapping (kubectl's klog line, Helm's `Error:` and --debug hint, Go stack
 * traces), and what to do. A missing binary names the registry key that points at it (kustomize
 * reports a helm it cannot run with `(is '<helm>' installed?)`).
 */
export function renderFailureReason(
  render: RenderCommand,
  failure: RenderFailure,
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
  const what = describeRender(render);
  if (failure.timedOut)
    return `${what} did not finish within ${Math.round((failure.timeoutMs ?? 0) / 1000)} s: check that it renders locally, without network access it waits for (remote bases, chart repositories)`;
  if (failure.tooLarge)
    return `${what} printed more than a render may hold: is it the right ${render.tool === 'helm' ? 'chart' : 'kustomization'}?`;
  const message = toolMessage(failure.stderr);
  const said =
    message === '' ? `exit status ${failure.exitCode ?? 'unknown'}, with nothing on stderr` : message;
  return `${what} failed: ${said}: ${renderFix(render, message)}`;
}

/** `kubectl kustomize <dir>`, `kustomize build <dir>`, `helm template <release> <chart>`: the render and its path. */
function describeRender(render: RenderCommand): string {
  return [render.command, ...render.args.slice(0, render.tool === 'helm' ? 3 : 2)].join(' ');
}

/** The longest a tool's message is quoted: past it, a long config echo or list says nothing more. */
const MAX_TOOL_MESSAGE = 500;

/**
 * The tool's own message in its stderr, on one line. kubectl logs a failure as a klog line
 * (`E1203 14:01:02.123456 1234 run.go:72] "command failed" err="…"`, or `err=<` then the message's
 * lines then ` >`); Helm and kustomize print `Error: …` after any warnings, Helm then a hint about
 * its --debug flag (never passed here); a Go panic ends in a stack trace. Kept: the message itself.
 */
function toolMessage(stderr: string): string {
  let lines = stderr.split('\n');
  // A panic's goroutine dump is no message: everything from the first goroutine header goes.
  const dump = lines.findIndex((line) => /^goroutine \d+ \[/.test(line.trim()));
  if (dump !== -1) lines = lines.slice(0, dump);
  lines = lines
    .map((line) => line.trim())
    .map((line) => line.replace(KLOG_HEADER, ''))
    .filter(
      (line) =>
        line !== '' &&
        line !== '>' &&
        line !== '"command failed" err=<' &&
        !line.startsWith('Use --debug flag'),
    )
    .map((line) => {
      const quoted = /^"command failed" err=(".*")$/.exec(line)?.[1];
      return quoted === undefined ? line : unquoteGo(quoted);
    });
  // Helm's and kustomize's own message is their last `Error:` line and what follows it; the lines
  // before are warnings (`walk.go:74: found symbolic link …`).
  const lastError = lines.findLastIndex((line) => line.startsWith('Error: '));
  if (lastError !== -1) lines = lines.slice(lastError);
  let message = lines
    .join('\n')
    .replace(/^Error: /, '')
    // The configuration kustomize echoes around a generator's error (`with config: `…``) can hold
    // a whole values file: the error is after it.
    .replace(/ with config: `[^`]*`/g, '')
    // What kustomize adds to a helm failure: its temporary HELM_* directories, and the misleading
    // `(is … installed?)` (the exec error decides whether helm is missing).
    .replace(/ with env=\[[^\]]*\]/g, '')
    .replace(/ \(is '[^']*' installed\?\)/g, '')
    // Go's path errors say each path twice: `evalsymlink failure on 'p' : lstat p: …` is `p: …`.
    .replace(/evalsymlink failure on '([^']*)' : lstat \1: /g, '$1: ')
    .replace(/\s+/g, ' ')
    .trim();
  // kustomize tries a missing resource as a file, then as a directory, and reports both: the first says it.
  const resource = /accumulating resources from '([^']*)': (.*?)': must build at directory: /.exec(message);
  if (resource) message = `accumulating resources from '${resource[1]}': ${resource[2]}`;
  // Unquoted, a Go-escaped credential reads as one again: redact the message as it is shown.
  const redacted = redactText(message);
  return redacted.length > MAX_TOOL_MESSAGE ? `${redacted.slice(0, MAX_TOOL_MESSAGE)}…` : redacted;
}

/** klog's header: severity and date, time, thread id, file:line and `] `. */
const KLOG_HEADER = /^[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+ [^\]\s]+\] /;

/** A Go quoted string (klog quotes err= values with strconv.Quote). */
function unquoteGo(quoted: string): string {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return quoted.slice(1, -1).replace(/\\(["\\])/g, '$1');
  }
}

/** What to do about a failed render, by the tool and the tool's message. */
function renderFix(render: RenderCommand, message: string): string {
  const relative = 'a relative path is read from the directory of the registry file';
  // Helm's template errors, from helm template or from a kustomization's helmCharts.
  if (/execution error at|(^|: )template: /.test(message))
    return "fix the chart's template or the values it reads";
  if (render.tool === 'helm') {
    if (/Chart\.yaml file is missing/.test(message))
      return "point the chart at a directory holding the chart's Chart.yaml (for plain manifests, use the registry's manifests: {directory: <dir>} instead)";
    if (/^path ".*" not found/.test(message)) return `check the chart's path (${relative})`;
    if (/^open .*: no such file or directory/.test(message))
      return `check the paths of the chart's values files (${relative})`;
    if (/YAML parse error/.test(message)) return 'fix the template so that it renders YAML';
    return `fix the chart or its values (helm template ${render.args[1]} ${render.args[2]} shows the same error)`;
  }
  if (/unable to find one of 'kustomization\.yaml'/.test(message))
    return "add a kustomization.yaml there, or for plain manifests use the registry's manifests: {directory: <dir>} instead of kustomize";
  if (/^accumulating resources from '/.test(message))
    return "fix or remove that entry of the kustomization's resources (its paths are relative to the kustomization)";
  if (/^must build at directory: /.test(message))
    return 'check the kustomize path: it must be a directory holding a kustomization.yaml';
  if (/must specify --enable-helm/.test(message))
    return 'set enableHelm: true beside the kustomize path in the registry (its kustomization inflates helmCharts)';
  if (/^invalid Kustomization/.test(message)) return "fix the kustomization file's YAML";
  return `fix the kustomization (${[render.command, ...render.args.slice(0, 2)].join(' ')} shows the same error)`;
}
