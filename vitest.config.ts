import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/sequencer.js';

// Three projects: `unit` (pure core, adapters against aws-sdk-client-mock, handlers, CLI) runs in
// parallel workers that each run many files without re-importing the shared modules (isolate: false:
// 1.5 min instead of 3 on 2 cores, the import of the SDK and the core is most of a unit file's time;
// a file that changes the environment or needs a handler loaded with its own settings stubs the
// environment with vi.stubEnv and calls vi.resetModules first); `integration` runs real terraform
// against a real moto_server per worker slot, emptied for each test file.
// Each terraform plan holds ~0.8 GB for the AWS provider, so integration files run three at a time.
// `corpus` reads third-party plans from the folder DRIFTWATCH_CORPUS_DIR names, which a clone does
// not have: it is opt-in (`npm run test:corpus`), and `npm test` names only unit and integration.
export default defineConfig({
  test: {
    // The AWS SDK warns that its 2027 releases need Node 22; the versions pinned here run on 20.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    // The longest integration files start first, also on a clone without vitest's timing cache.
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        test: {
          name: 'unit',
          // Fast feedback first; the integration project runs after it.
          sequence: { groupOrder: 0 },
          // vitest's default is one worker fewer than the cores: one, on the 2 cores CI has.
          maxWorkers: 2,
          include: ['test/unit/**/*.test.ts', 'test/handlers/**/*.test.ts', 'test/infra/**/*.test.ts'],
          globalSetup: ['test/global-build.ts'],
          isolate: false,
          setupFiles: ['test/unit-setup.ts'],
          // A timeout catches a hang, never slowness: CLI tests start the built CLI several times,
          // and a loaded machine takes seconds per start.
          testTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'integration',
          sequence: { groupOrder: 1 },
          include: ['test/integration/**/*.test.ts'],
          // One moto_server per worker slot for the whole run, reset by each file (test/global-moto.ts).
          globalSetup: ['test/global-build.ts', 'test/global-moto.ts'],
          // A worker runs file after file with the dependencies loaded once (the AWS SDK, the
          // Kubernetes client: the sum of import times 50 → 25 s); each file still gets fresh modules
          // of this repository and the environment it started with (test/integration-setup.ts), which
          // also keeps expected error logs and lock waits of in-process runs out of the output.
          setupFiles: ['test/integration-setup.ts'],
          isolate: false,
          testTimeout: 600_000,
          hookTimeout: 600_000,
          pool: 'forks',
          // A file waits on Terraform, moto and its own children much of the time: with two files at
          // a time the 2 cores were a third idle; three keep them busy (9.0 instead of 10.5 min).
          maxWorkers: 3,
        },
      },
      {
        test: {
          name: 'corpus',
          include: ['test/corpus/**/*.test.ts'],
          testTimeout: 60_000,
        },
      },
    ],
  },
});
