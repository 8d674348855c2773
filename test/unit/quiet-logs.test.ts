import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/integration.js';
import { runNode } from '../helpers/processes.js';

/**
 * test/quiet-logs.ts (the setup of both projects) keeps the JSON log lines of in-process runs out of
 * the test output and lets everything else through; DRIFTWATCH_TEST_LOGS=1 shows them.
 */
const SCRIPT = [
  "await import('./test/quiet-logs.ts');",
  'process.stderr.write(\'{"level":"error","message":"expected by a negative test"}\\n\');',
  "process.stderr.write('AssertionError: a real failure\\n');",
  'process.stdout.write(\'{"level":"info"} on stdout\\n\');',
].join('\n');

const run = (env: NodeJS.ProcessEnv) =>
  runNode(['--import', 'tsx', '--input-type=module', '-e', SCRIPT], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
  });

describe('log lines in the test output', () => {
  it('hides JSON log lines on stderr, nothing else; DRIFTWATCH_TEST_LOGS=1 shows them', async () => {
    const quiet = await run({ DRIFTWATCH_TEST_LOGS: '' });
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('AssertionError: a real failure\n');
    expect(quiet.stdout).toBe('{"level":"info"} on stdout\n');
    const shown = await run({ DRIFTWATCH_TEST_LOGS: '1' });
    expect(shown.stderr).toBe(
      '{"level":"error","message":"expected by a negative test"}\nAssertionError: a real failure\n',
    );
  });
});
