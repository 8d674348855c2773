import { join, relative } from 'node:path';

/**
 * The lines the demo ends its findings with: where to look closer and how to prepare a fix. The
 * remediate command names the demo's registry: without it remediate cannot tell the workspace's
 * Terraform root, and its revert said "The root module directory is not known" and left out the
 * `terraform init` with the workspace's backend.
 */
export function demoNextSteps(options: {
  /** The demo's findings store, as given (`.driftwatch/demo`). */
  storeDir: string;
  /** The night's report for everyone, relative to the store, when one was written. */
  everyoneReport?: string;
  /** The demo's registry file (absolute), shown relative to `cwd`. */
  registryFile: string;
  cwd: string;
}): string[] {
  const { storeDir, everyoneReport, registryFile, cwd } = options;
  const registry = relative(cwd, registryFile) || registryFile;
  return [
    `\nLook closer: npx driftwatch findings --store ${storeDir}   (add --format json, --owner, --health)`,
    ...(everyoneReport
      ? [`The night's report (one HTML file, opens offline): ${join(storeDir, everyoneReport)}`]
      : []),
    `Prepare a reviewed fix: npx driftwatch remediate <id> --revert (or --adopt) --store ${storeDir} --registry ${registry}`,
  ];
}
