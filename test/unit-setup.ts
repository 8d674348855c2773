import { afterAll, vi } from 'vitest';
// Log lines of handlers run in process stay out of the test output (DRIFTWATCH_TEST_LOGS=1 shows them).
import './quiet-logs.js';
import { removeScratchDirs } from './helpers/scratch-dirs.js';

// Unit files share their worker (vitest.config.ts, isolate: false): whatever a file stubs in the
// environment or globals ends with it, so the next file starts from the worker's own; its scratch
// directories (test/helpers/scratch-dirs.ts) go with it.
afterAll(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  removeScratchDirs();
});
