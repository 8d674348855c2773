#!/usr/bin/env node
// The driftwatch CLI runs the JavaScript that `npm ci` builds into dist/ (scripts/build-cli.mjs, the
// `prepare` script); TypeScript is compiled once there, not at every start.
import { existsSync } from 'node:fs';

// The SDK warns that releases after January 2027 need Node 22; the versions pinned here run on 20.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write('driftwatch: the CLI is not built (no dist/cli/main.js); run: npm run build\n');
  process.exit(1);
}
await import(main.href);
