/**
 * The CodeBuild runner's entrypoint: the ScanTerraform handler run once on DRIFTWATCH_EVENT.
 * In the image it is bundled as /var/task/runner-entrypoint.mjs beside the Lambda's own index.mjs,
 * which it imports at run time (one copy of the handler code; infra/constructs/driftwatch-function.ts);
 * locally:
 *   DRIFTWATCH_EVENT_FILE=events/scan-terraform.json DRIFTWATCH_STORE=.driftwatch/store \
 *   DRIFTWATCH_HASH_SALT=… node bin/run-ts.js functions/entrypoints/scan-terraform-container.ts
 */
import { type LambdaLikeHandler, runContainerEntrypoint } from '../adapters/container-entrypoint.js';

/** Beside the bundle in the image; the handler's source in the repository. */
const HANDLER_MODULE = import.meta.url.endsWith('.mjs') ? './index.mjs' : '../handlers/scan-terraform.js';

process.exitCode = await runContainerEntrypoint({
  env: process.env,
  loadHandler: async () => ((await import(HANDLER_MODULE)) as { handler: LambdaLikeHandler }).handler,
});
