/**
 * Benchmark: the diff of a changed IAM policy document versus merely parsing it.
 *
 * A bucket policy of N statements (20 actions, two resources, an account principal each) whose
 * stored copy AWS handed back reversed, with one statement gaining a condition: the attribute diff
 * (diffAttributes, as the compactor runs it on a policy string) versus `JSON.parse` of the two
 * documents, median of interleaved rounds, for N = 30, 300 and 1,000 statements. The diff keys every
 * level of the documents the way IAM reads them (json-document.ts iamKey), once per level: the ratio
 * should stay flat as N grows, not grow with the depth of the walk.
 *
 * Run: `node bin/run-ts.js bench/iam-diff.ts` (or through bench/run.ts, which calls `run()`).
 * Prints ratios; asserts nothing.
 */
import { pathToFileURL } from 'node:url';
import { createSensitiveHasher } from '../functions/core/redaction/secrets.js';
import { diffAttributes } from '../functions/core/terraform/attribute-diff.js';
import { createSensitiveKeyTest } from '../functions/core/terraform/sensitivity.js';

const ROUNDS = 7;
const REPEATS = 10;

function policy(statements: number, changed: boolean): string {
  const list = Array.from({ length: statements }, (_, i) => ({
    Sid: `S${i}`,
    Effect: 'Allow',
    Principal: { AWS: [`arn:aws:iam::${String(100_000_000_000 + (i % 100))}:root`] },
    Action: Array.from({ length: 20 }, (_, j) => `s3:Action${j}`),
    Resource: [`arn:aws:s3:::bucket-${i}/*`, `arn:aws:s3:::bucket-${i}`],
    ...(changed && i === 7 ? { Condition: { Bool: { 'aws:SecureTransport': 'false' } } } : {}),
  }));
  return JSON.stringify({ Version: '2012-10-17', Statement: changed ? list.reverse() : list });
}

function medianMs(work: () => void): number {
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    for (let repeat = 0; repeat < REPEATS; repeat++) work();
    times.push((performance.now() - started) / REPEATS);
  }
  return times.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!;
}

export async function run(): Promise<void> {
  const options = {
    hashSensitive: createSensitiveHasher('bench-iam-diff-salt-0123'),
    isSensitiveKey: createSensitiveKeyTest(),
  };
  console.log('\n## IAM policy diff versus JSON.parse of both documents (median per diff)');
  console.log('| statements | parse ms | diff ms | ratio | changes |');
  console.log('|---:|---:|---:|---:|---:|');
  for (const statements of [30, 300, 1000]) {
    const before = { policy: policy(statements, false) };
    const after = { policy: policy(statements, true) };
    let changes = 0;
    const diff = () => {
      changes = diffAttributes(before, after, {}, options).length;
    };
    const parse = () => {
      JSON.parse(before.policy);
      JSON.parse(after.policy);
    };
    diff();
    parse();
    const parseMs = medianMs(parse);
    const diffMs = medianMs(diff);
    console.log(
      `| ${statements} | ${parseMs.toFixed(2)} | ${diffMs.toFixed(2)} | ${(diffMs / parseMs).toFixed(1)}× | ${changes} |`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
