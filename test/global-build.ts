import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Tests run the `driftwatch` binary as users do, and it runs the compiled dist/: build it from the
 * sources under test first, so a test never runs stale output.
 */
export default function buildCompiledCli(): void {
  execFileSync(process.execPath, [join(import.meta.dirname, '..', 'scripts', 'build-cli.mjs')], {
    stdio: 'inherit',
  });
}
