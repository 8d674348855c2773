import { createRequire } from 'node:module';
import type { SinonStatic } from 'sinon';
import { afterAll, vi } from 'vitest';
// Log lines of handlers run in process stay out of the test output (DRIFTWATCH_TEST_LOGS=1 shows them).
import './quiet-logs.js';
import { removeScratchDirs } from './helpers/scratch-dirs.js';

// The CommonJS sinon that aws-sdk-client-mock requires (its ES build would be another sandbox).
const sinon = createRequire(import.meta.url)('sinon') as SinonStatic;

// Unit files share their worker (vitest.config.ts, isolate: false): whatever a file stubs in the
// environment or globals ends with it, so the next file starts from the worker's own; so do the SDK
// clients it mocked (aws-sdk-client-mock stubs a client class's `send` in sinon's default sandbox,
// and a later file using the real client got the mock's answers); its scratch directories
// (test/helpers/scratch-dirs.ts) go with it.
afterAll(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  sinon.restore();
  removeScratchDirs();
});
