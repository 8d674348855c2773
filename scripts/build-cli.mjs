#!/usr/bin/env node
// Compiles the CLI (and the Lambda handlers `driftwatch invoke` runs) to JavaScript in dist/, so the
// `driftwatch` binary starts without a TypeScript compiler. Runs at `npm ci`/`npm install`
// (`prepare`) and before the test suite (test/global-build.ts), so neither ever runs stale output.
// Dependencies are bundled too, as the Lambdas' are (infra/constructs/driftwatch-function.ts): Node
// loads a few chunks instead of a package file at a time (zod alone is 92 ES modules, the S3 client
// about fifty CommonJS files), which nearly halves what a command reading a bucket costs to start
// (measured: `locks --bucket` 1.1 → 0.6 s of CPU, `findings --store <dir>` 0.34 → 0.26 s). The
// output is split so that commands load what they use (the demo, the SDK clients, Argo CD and
// Kubernetes clients load on first use); CommonJS packages get `require` from the banner, and a
// package's ES module build is preferred (mainFields). Sources stay out of the maps: they are in the
// checkout, and the maps still name every module a chunk holds (test/unit/cli/lazy-commands.test.ts
// reads them to see which dependencies a command loads).
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ESM_REQUIRE_BANNER =
  "import { createRequire as __driftwatchCreateRequire } from 'node:module'; const require = __driftwatchCreateRequire(import.meta.url);";
const HANDLER_HELPERS = new Set(['common.ts', 'env.ts', 'middleware.ts']);

export async function buildCli() {
  const handlers = readdirSync(join(root, 'functions', 'handlers'))
    .filter((file) => file.endsWith('.ts') && !HANDLER_HELPERS.has(file))
    .map((file) => join('functions', 'handlers', file));
  const outdir = join(root, 'dist');
  const result = await build({
    absWorkingDir: root,
    entryPoints: ['cli/main.ts', ...handlers],
    outdir,
    outbase: '.',
    bundle: true,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    mainFields: ['module', 'main'],
    banner: { js: ESM_REQUIRE_BANNER },
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'warning',
    write: false,
  });
  // Another process may be running the previous build (a test file, a scan): chunks first, entry
  // points last, each written whole and renamed into place, and old chunks kept for a while.
  const outputs = [...result.outputFiles].sort((a, b) => isChunk(b.path) - isChunk(a.path));
  for (const file of outputs) {
    mkdirSync(dirname(file.path), { recursive: true });
    const temporary = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temporary, file.contents);
    renameSync(temporary, file.path);
  }
  removeOldFiles(outdir, new Set(outputs.map((file) => file.path)));
}

function isChunk(path) {
  return relative(root, path).split(/[\\/]/).includes('chunks') ? 1 : 0;
}

/** Files of earlier builds, once no process started from them can still be loading them. */
function removeOldFiles(dir, keep) {
  const cutoff = Date.now() - 10 * 60_000;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) removeOldFiles(path, keep);
    else if (!keep.has(path) && statSync(path).mtimeMs < cutoff) rmSync(path, { force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildCli();
}
