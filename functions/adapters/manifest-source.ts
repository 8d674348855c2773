import { execFile } from 'node:child_process';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { GetObjectCommand, type GetObjectCommandOutput, type S3Client } from '@aws-sdk/client-s3';
import { isMap, parseAllDocuments } from 'yaml';
import { KUBERNETES_YAML } from '../core/gitops/manifests.js';
import { ClusterSourceError } from '../core/gitops/ports.js';
import {
  type HelmCapabilities,
  helmTemplateCommand,
  kustomizeCommand,
  kustomizePassesCapabilities,
  kustomizeVersionCommand,
  kustomizeVersionOf,
  type RenderCommand,
  renderFailureReason,
} from '../core/gitops/render.js';
import { redactText } from '../core/redaction/secrets.js';
import type { ManifestSource, RenderTools } from '../core/registry/model.js';
import type { ClusterCapabilities } from './kubernetes-client.js';
import { isWithin } from './path-within.js';
import { parseS3Uri, refuseLargerThan } from './s3-bundle.js';

/**
 * The desired manifests of a cluster in direct mode: a kustomize overlay rendered with
 * `kubectl kustomize` (or a standalone `kustomize build`), a Helm chart rendered with `helm template`
 * (locally, where the binaries are installed), a directory of plain manifests, or a render CI
 * stored in S3 (in AWS).
 * The render can hold Secret data (secretGenerator): it is returned, never logged or stored.
 */
export interface ManifestSourceOptions {
  /** Relative overlays resolve against the registry file's directory. */
  registryDir: string;
  s3: () => S3Client;
  kubectl?: string;
  timeoutMs?: number;
}

/** The most a render may hold, whatever its source (kustomize's and helm's output are cut there too). */
const MAX_RENDER_BYTES = 64 * 1024 * 1024;

function renderTooLarge(what: string, bytes: number): ClusterSourceError {
  return new ClusterSourceError(
    'failed',
    `${what} is ${Math.ceil(bytes / 1048576)} MiB, over the ${MAX_RENDER_BYTES / 1048576} MiB limit of a render: is it the right render?`,
  );
}

/** A render, and what it could not do as the GitOps tool does (for the scan's log, never a failure). */
export interface RenderedManifests {
  text: string;
  source: string;
  notes?: string[];
}

/** The destination cluster, for renders that depend on it (`helm template`'s `.Capabilities`). */
export interface RenderTarget {
  capabilities(): Promise<ClusterCapabilities>;
}

export function createManifestReader(options: ManifestSourceOptions) {
  return async (
    source: ManifestSource,
    tools: RenderTools = {},
    target?: RenderTarget,
  ): Promise<RenderedManifests> => {
    if ('kustomize' in source) {
      const dir = resolve(options.registryDir, source.kustomize);
      const enableHelm = source.enableHelm ?? false;
      const kustomizeTools = withKubectl(tools, options);
      const { capabilities, notes } = enableHelm
        ? await kustomizeCapabilitiesOf(target, kustomizeTools, options)
        : { capabilities: {}, notes: [] };
      const render = kustomizeCommand(dir, enableHelm, kustomizeTools, capabilities);
      return {
        text: await run(render, tools, options),
        source: `kustomize ${source.kustomize}`,
        ...(notes.length > 0 ? { notes } : {}),
      };
    }
    if ('helm' in source) {
      const chart = source.helm;
      const values = (chart.values ?? []).map((file) => resolve(options.registryDir, file));
      const { capabilities, notes } = await capabilitiesOf(target);
      const render = helmTemplateCommand(
        chart,
        resolve(options.registryDir, chart.chart),
        values,
        tools,
        capabilities,
      );
      const text = await run(render, tools, options);
      return {
        text: chart.namespace === undefined ? text : inReleaseNamespace(text, chart.namespace),
        source: `helm ${chart.release} ${chart.chart}`,
        ...(notes.length > 0 ? { notes } : {}),
      };
    }
    if ('directory' in source)
      return {
        text: await readManifestDirectory(resolve(options.registryDir, source.directory), source.recurse),
        source: `directory ${source.directory}`,
      };
    const { bucket, key } = parseS3Uri(source.s3);
    let response: GetObjectCommandOutput;
    try {
      response = await options.s3().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    } catch (error) {
      throw new ClusterSourceError('failed', `cannot read ${source.s3}: ${(error as Error).name}`, {
        cause: error,
      });
    }
    refuseLargerThan(response, MAX_RENDER_BYTES, (length) => renderTooLarge(source.s3, length));
    try {
      return { text: (await response.Body?.transformToString('utf8')) ?? '', source: source.s3 };
    } catch (error) {
      throw new ClusterSourceError('failed', `cannot read ${source.s3}: ${(error as Error).name}`, {
        cause: error,
      });
    }
  };
}

/** The files Argo CD reads from a directory source (reposerver: `.yaml`, `.yml`, `.json`). */
const MANIFEST_FILE = /\.(ya?ml|json)$/i;

/**
 * Plain manifests as Argo CD's directory source reads them: the manifest files of the directory in
 * lexical order, those of its subdirectories only with `recurse` (Argo CD's `directory.recurse`).
 * JSON is YAML, so the files join into one multi-document render. A missing or empty directory
 * fails the render, as a kustomize overlay that is not there does.
 */
export async function readManifestDirectory(dir: string, recurse = false): Promise<string> {
  let files: string[];
  try {
    files = await manifestFilesOf(dir, recurse);
  } catch (error) {
    throw new ClusterSourceError(
      'failed',
      `cannot read the manifests directory ${dir}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  if (files.length === 0)
    throw new ClusterSourceError(
      'failed',
      `the manifests directory ${dir} has no .yaml, .yml or .json file${recurse ? '' : ' (subdirectories are read with recurse: true)'}`,
    );
  const sizes = await Promise.all(files.map(async (file) => (await stat(file)).size));
  const total = sizes.reduce((sum, size) => sum + size, 0);
  if (total > MAX_RENDER_BYTES) throw renderTooLarge(`the manifests directory ${dir}`, total);
  const texts = await Promise.all(files.map((file) => readFile(file, 'utf8')));
  return texts.map((text) => (text.startsWith('---') ? text : `---\n${text}`)).join('\n');
}

/**
 * Symbolic links as Argo CD's repo server takes them: a link to a file inside the directory is read
 * as that file (its walk lists the link, then reads through it), a link to a directory is not
 * walked into (Go's filepath.Walk does not follow them), and a link that leads outside fails the
 * render as Argo CD's out-of-bounds check fails the repository. Skipping file links left the objects
 * they hold uncompared, with nothing saying so.
 */
async function manifestFilesOf(dir: string, recurse: boolean, root?: string): Promise<string[]> {
  const top = root ?? (await realpath(dir));
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  const files: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (recurse) files.push(...(await manifestFilesOf(path, recurse, top)));
    } else if (entry.isFile()) {
      if (MANIFEST_FILE.test(entry.name)) files.push(path);
    } else if (
      entry.isSymbolicLink() &&
      (await linkedFileInside(path, top)) &&
      MANIFEST_FILE.test(entry.name)
    )
      files.push(path);
  }
  return files;
}

/** Whether a link leads to a file (not a directory) inside `top`; throws for one that leads outside. */
async function linkedFileInside(link: string, top: string): Promise<boolean> {
  const target = await realpath(link).catch(() => undefined);
  if (target === undefined) throw new Error(`the link ${link} leads nowhere (its target is missing)`);
  if (!isWithin(target, top))
    throw new Error(
      `the link ${link} leads outside the manifests directory (to ${target}); Argo CD refuses such links too: copy the file in instead`,
    );
  return (await stat(target)).isFile();
}

/**
 * `helm template -n` only sets `.Release.Namespace`; charts often leave `metadata.namespace` out and
 * `helm install -n` (or Argo CD's destination namespace) puts those objects in the release's
 * namespace, so the render says so explicitly instead of letting the kubeconfig's default apply.
 * (The API server ignores a namespace on a cluster-scoped object, and reads resolve scope by
 * discovery.) A render with a YAML error is returned as is, for the parser to report.
 */
export function inReleaseNamespace(text: string, namespace: string): string {
  // Read as the render's parser reads it: `0644` is 420, and is written back as 420.
  const documents = parseAllDocuments(text, KUBERNETES_YAML);
  if (!Array.isArray(documents) || documents.some((document) => document.errors.length > 0)) return text;
  const parts: string[] = [];
  for (const document of documents) {
    if (document.contents === null) continue;
    if (isMap(document.get('metadata')) && document.getIn(['metadata', 'namespace']) == null)
      document.setIn(['metadata', 'namespace'], namespace);
    parts.push(document.toString({ lineWidth: 0 }));
  }
  return parts.map((part) => (part.startsWith('---') ? part : `---\n${part}`)).join('');
}

/**
 * The cluster's version and API versions for `helm template`, as Argo CD passes them. Discovery
 * that fails does not fail the scan: Helm renders with its defaults and a note says why (the live
 * reads that follow report an unreachable or refusing server themselves).
 */
async function capabilitiesOf(
  target: RenderTarget | undefined,
  render: { subject: string; kubeVersionFlag: string; apiVersionsFlag: string } = HELM_FLAGS,
): Promise<{ capabilities: HelmCapabilities; notes: string[] }> {
  if (target === undefined) return { capabilities: {}, notes: [] };
  const { subject, kubeVersionFlag, apiVersionsFlag } = render;
  try {
    const { kubeVersion, apiVersions, unavailable } = await target.capabilities();
    const notes: string[] = [];
    if (kubeVersion === undefined)
      notes.push(`GET /version gave no gitVersion: ${subject} ran without ${kubeVersionFlag}`);
    if (unavailable.length > 0)
      notes.push(
        `${apiVersionsFlag} leave out group versions whose discovery failed: ${unavailable.join('; ')}`,
      );
    return { capabilities: { ...(kubeVersion === undefined ? {} : { kubeVersion }), apiVersions }, notes };
  } catch (error) {
    const reason = error instanceof ClusterSourceError ? error.reason : (error as Error).message;
    return {
      capabilities: {},
      notes: [
        `${subject} ran without ${kubeVersionFlag}/${apiVersionsFlag} (.Capabilities are Helm's defaults, not the cluster's): discovery failed: ${reason}`,
      ],
    };
  }
}

const HELM_FLAGS = {
  subject: 'helm template',
  kubeVersionFlag: '--kube-version',
  apiVersionsFlag: '--api-versions',
};
const KUSTOMIZE_FLAGS = {
  subject: "kustomize's helmCharts",
  kubeVersionFlag: '--helm-kube-version',
  apiVersionsFlag: '--helm-api-versions',
};

/**
 * The cluster's capabilities for a kustomization's `helmCharts`, passed as Argo CD passes them:
 * only to kustomize v5.3.0 and later (older ones have no such flags, and Argo CD passes nothing to
 * them either), so the kustomize that renders is asked its version first.
 */
async function kustomizeCapabilitiesOf(
  target: RenderTarget | undefined,
  tools: RenderTools,
  options: ManifestSourceOptions,
): Promise<{ capabilities: HelmCapabilities; notes: string[] }> {
  if (target === undefined) return { capabilities: {}, notes: [] };
  const versionCommand = kustomizeVersionCommand(tools);
  let version: string | undefined;
  try {
    version = kustomizeVersionOf(await run(versionCommand, tools, options));
  } catch (error) {
    const reason = error instanceof ClusterSourceError ? error.reason : (error as Error).message;
    return {
      capabilities: {},
      notes: [
        `kustomize's helmCharts ran without the cluster's capabilities: cannot tell kustomize's version: ${reason}`,
      ],
    };
  }
  if (version === undefined)
    return {
      capabilities: {},
      notes: [
        `kustomize's helmCharts ran without the cluster's capabilities: ${versionCommand.command} ${versionCommand.args.join(' ')} printed no kustomize version`,
      ],
    };
  if (!kustomizePassesCapabilities(version)) return { capabilities: {}, notes: [] };
  return capabilitiesOf(target, KUSTOMIZE_FLAGS);
}

function withKubectl(tools: RenderTools, options: ManifestSourceOptions): RenderTools {
  return tools.kubectl === undefined && options.kubectl !== undefined
    ? { ...tools, kubectl: options.kubectl }
    : tools;
}

function run(render: RenderCommand, tools: RenderTools, options: ManifestSourceOptions): Promise<string> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  return new Promise((resolvePromise, reject) => {
    execFile(
      render.command,
      render.args,
      {
        maxBuffer: MAX_RENDER_BYTES,
        timeout: timeoutMs,
        encoding: 'utf8',
        // Rendering needs no cluster: without this, kubectl asks the kubeconfig's server for /version
        // (and helm template would read the kubeconfig for nothing).
        env: { ...process.env, KUBECONFIG: '/dev/null' },
      },
      (error, stdout, stderr) => {
        if (!error) return resolvePromise(stdout);
        // Not error.message: it repeats the command line and the stderr, unredacted.
        const { code, killed } = error as NodeJS.ErrnoException & { killed?: boolean };
        const reason = renderFailureReason(
          render,
          {
            missingBinary: code === 'ENOENT',
            stderr: redactText(stderr),
            timedOut: killed === true && code !== 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER',
            timeoutMs,
            tooLarge: code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER',
            exitCode: code,
          },
          tools,
        );
        reject(new ClusterSourceError('failed', reason, { cause: error }));
      },
    );
  });
}
