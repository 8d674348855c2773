// Handlers and adapters run in a test's own process log JSON lines to stderr
// (functions/adapters/logger.ts): most are the expected errors of negative tests, or a plugin cache
// lock wait when two integration files run `terraform init` at once. They stay out of the test output.
// Tests that check log lines capture them with the logger's own `write` or a spy, which still see every
// line; a failing test still prints its assertion, and everything else written to stderr (vitest's
// reports, a child's output a test forwards) passes. DRIFTWATCH_TEST_LOGS=1 shows them.
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
