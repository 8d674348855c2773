import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { ClusterSourceError } from '../core/gitops/ports.js';
import { redactText } from '../core/redaction/secrets.js';
import type { ManifestSource } from '../core/registry/model.js';
import { parseS3Uri, readS3Text } from './s3-bundle.js';

/**
 * The desired manifests of a cluster in direct mode: a kustomize overlay rendered with
 * `kubectl kustomize` (locally, where kubectl is installed), or a render CI stored in S3 (in AWS).
 * The render can hold Secret data (secretGenerator): it is returned, never logged or stored.
 */
export interface ManifestSourceOptions {
  /** Relative overlays resolve against the registry file's directory. */
  registryDir: string;
  s3: () => S3Client;
  kubectl?: string;
  timeoutMs?: number;
}

const MAX_RENDER_BYTES = 64 * 1024 * 1024;

export function createManifestReader(options: ManifestSourceOptions) {
  return async (source: ManifestSource): Promise<{ text: string; source: string }> => {
    if ('kustomize' in source) {
      const dir = resolve(options.registryDir, source.kustomize);
      return { text: await kustomize(dir, options), source: `kustomize ${source.kustomize}` };
    }
    const { bucket, key } = parseS3Uri(source.s3);
    try {
      return { text: await readS3Text(options.s3(), bucket, key), source: source.s3 };
    } catch (error) {
      throw new ClusterSourceError('failed', `cannot read ${source.s3}: ${(error as Error).name}`, {
        cause: error,
      });
    }
  };
}

function kustomize(dir: string, options: ManifestSourceOptions): Promise<string> {
  const kubectl = options.kubectl ?? 'kubectl';
  return new Promise((resolvePromise, reject) => {
    execFile(
      kubectl,
      ['kustomize', dir],
      {
        maxBuffer: MAX_RENDER_BYTES,
        timeout: options.timeoutMs ?? 120_000,
        encoding: 'utf8',
        // Rendering needs no cluster: without this, kubectl asks the kubeconfig's server for /version.
        env: { ...process.env, KUBECONFIG: '/dev/null' },
      },
      (error, stdout, stderr) => {
        if (!error) return resolvePromise(stdout);
        const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
        const reason = missing
          ? `${kubectl} is not on PATH: install kubectl (it renders kustomize overlays)`
          : `kubectl kustomize ${dir} failed: ${redactText(stderr.trim().split('\n').slice(-3).join(' ')) || error.message}`;
        reject(new ClusterSourceError('failed', reason, { cause: error }));
      },
    );
  });
}
