import { afterAll, vi } from 'vitest';
// Log lines of in-process runs stay out of the test output, as in unit (DRIFTWATCH_TEST_LOGS=1 shows them).
import './quiet-logs.js';

// Integration files share their worker process (vitest.config.ts, isolate: false): each starts from
// fresh modules of this repository (a client a module made for the last file's moto is not reused;
// the dependencies, the AWS SDK most of all, stay loaded), and leaves the environment as it found it
// (useMoto points it at the file's own moto).
vi.resetModules();
const environment = { ...process.env };
afterAll(() => {
  for (const name of Object.keys(process.env)) if (!(name in environment)) delete process.env[name];
  Object.assign(process.env, environment);
});
