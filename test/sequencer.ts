import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Integration files, longest first (file time with two files at a time on 2 cores, measured with
 * `npx vitest run --project integration --reporter=json`). Without vitest's results cache (a fresh
 * clone in CI) files start largest first, and a short file can still take minutes (demo.test.ts is
 * 4 KB and runs a whole demo): started last, it runs alone while the other worker sits idle.
 * Files not listed start after these, in vitest's own order.
 */
const LONGEST_FIRST = [
  'test/integration/drift-scenarios.test.ts',
  'test/integration/demo.test.ts',
  'test/integration/cluster-diff.test.ts',
  'test/integration/scan-safety.test.ts',
  'test/integration/backend-checks.test.ts',
  'test/integration/backend-locks.test.ts',
  'test/integration/engine-versions.test.ts',
  'test/integration/provider-mirror.test.ts',
  'test/integration/interrupted-scans.test.ts',
  'test/integration/invoke-handler.test.ts',
  'test/integration/scan-failures.test.ts',
  'test/integration/notifications.test.ts',
  'test/integration/private-modules.test.ts',
];

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const rank = (spec: TestSpecification) => {
      const index = LONGEST_FIRST.indexOf(relative(root, spec.moduleId));
      return index < 0 ? LONGEST_FIRST.length : index;
    };
    // Projects stay in the blocks vitest put them in; within a project, listed files go first.
    const order = new Map(sorted.map((spec, index) => [spec, index]));
    return [...sorted].sort(
      (a, b) => (a.project.name === b.project.name ? rank(a) - rank(b) : 0) || order.get(a)! - order.get(b)!,
    );
  }
}
