import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runLocalScan } from '../../cli/local-runner.js';
import { loadRegistryFile } from '../../cli/registry-file.js';
import { createLogger } from '../../functions/adapters/logger.js';
import { createFsObjectStore } from '../../functions/adapters/object-store/fs-object-store.js';
import type { Finding } from '../../functions/core/findings/model.js';
import { createSensitiveHasher } from '../../functions/core/redaction/secrets.js';

/**
 * What the integration files that apply a Terraform root against moto and scan it in process share:
 * the scan itself, the finding of one address, and a Lambda handler zipped at test time.
 */

/**
 * `driftwatch scan` in process into a store of its own under `dir`, its JSON log lines kept in
 * `logLines` (for the canary checks). Drift is under test: the harness's state bucket has backend
 * findings of its own, so the backend checks do not run.
 */
export async function scanInProcess(options: {
  registryPath: string;
  dir: string;
  salt: string;
  logLines: string[];
}) {
  mkdirSync(options.dir, { recursive: true });
  return runLocalScan({
    loaded: loadRegistryFile(options.registryPath),
    store: createFsObjectStore(options.dir),
    hashSensitive: createSensitiveHasher(options.salt),
    logger: createLogger({ format: 'json', write: (line) => options.logLines.push(line) }),
    backendChecks: false,
  });
}

export function findingFor(findings: readonly Finding[], address: string): Finding | undefined {
  return findings.find(
    (finding) => finding.resource && 'address' in finding.resource && finding.resource.address === address,
  );
}

/** A Lambda handler's code zipped at test time (moto keeps it; it never runs), for TF_VAR_lambda_zip. */
export function zippedHandler(dir: string): string {
  const code = join(dir, 'fn');
  mkdirSync(code);
  writeFileSync(join(code, 'index.js'), 'exports.handler = async () => ({ ok: true });\n');
  const zip = join(dir, 'fn.zip');
  execFileSync('zip', ['-q', '-j', zip, join(code, 'index.js')]);
  return zip;
}
