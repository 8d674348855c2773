#!/usr/bin/env node
// Runs a TypeScript entry point of this repository (benchmarks): `node bin/run-ts.js bench/run.ts`.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { register } from 'tsx/esm/api';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
register();
const entry = process.argv[2];
if (!entry) {
  console.error('usage: node bin/run-ts.js <file.ts> [args...]');
  process.exit(1);
}
// The entry point sees itself as argv[1], as if node had run it directly.
process.argv.splice(1, 2, resolve(entry));
await import(pathToFileURL(resolve(entry)).href);
