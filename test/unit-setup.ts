import { afterAll, vi } from 'vitest';

// Unit files share their worker (vitest.config.ts, isolate: false): whatever a file stubs in the
// environment or globals ends with it, so the next file starts from the worker's own.
afterAll(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});

// Handlers run in process log JSON lines to stderr (functions/adapters/logger.ts), most of them the
// expected errors of negative tests: they stay out of the test output. Tests that check log lines
// capture them with the logger's own `write` or a spy, which still see every line.
// DRIFTWATCH_TEST_LOGS=1 shows them.
const QUIET = Symbol.for('driftwatch.quietLogs');
const stderr = process.stderr as typeof process.stderr & { [QUIET]?: true };
if (!process.env.DRIFTWATCH_TEST_LOGS && !stderr[QUIET]) {
  const write = stderr.write.bind(stderr);
  stderr.write = ((chunk: unknown, ...rest: unknown[]) =>
    typeof chunk === 'string' && chunk.startsWith('{"level":')
      ? true
      : (write as (...args: unknown[]) => boolean)(chunk, ...rest)) as typeof stderr.write;
  stderr[QUIET] = true;
}
