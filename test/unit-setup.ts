import { afterAll, vi } from 'vitest';

// Unit files share their worker (vitest.config.ts, isolate: false): whatever a file stubs in the
// environment or globals ends with it, so the next file starts from the worker's own.
afterAll(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});
