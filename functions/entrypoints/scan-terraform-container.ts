/**
 * The CodeBuild runner's entrypoint: the ScanTerraform handler run once on DRIFTWATCH_EVENT.
 * In the image it is bundled as /var/task/runner-entrypoint.mjs, importing the Lambda's own
 * index.mjs (infra/constructs/driftwatch-function.ts); locally:
 *   DRIFTWATCH_EVENT_FILE=events/scan-terraform.json DRIFTWATCH_STORE=.driftwatch/store \
 *   DRIFTWATCH_HASH_SALT=… node bin/run-ts.js functions/entrypoints/scan-terraform-container.ts
 */
import { type LambdaLikeHandler, runContainerEntrypoint } from '../adapters/container-entrypoint.js';

process.exitCode = await runContainerEntrypoint({
  env: process.env,
  loadHandler: async () =>
    ((await import('../handlers/scan-terraform.js')) as unknown as { handler: LambdaLikeHandler }).handler,
});
