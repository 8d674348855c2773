import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** Set once the run has built: both projects name this setup, and one build serves them. */
const BUILT = Symbol.for('driftwatch.test.cliBuilt');

/**
 * Tests run the `driftwatch` binary as users do, and it runs the compiled dist/: build it from the
 * sources under test first, so a test never runs stale output.
 */
export default function buildCompiledCli(): void {
  const run = globalThis as { [BUILT]?: true };
  if (run[BUILT]) return;
  execFileSync(process.execPath, [join(import.meta.dirname, '..', 'scripts', 'build-cli.mjs')], {
    stdio: 'inherit',
  });
  run[BUILT] = true;
}
