/**
 * Benchmark: S3 requests of a full backend and lock check, versus a naive one-request-per-key scan.
 *
 * A bucket in a local moto with 5,000 state objects (some under `env:/<workspace>/`) and 20 locks
 * taken after the states were written (thresholds of one second, so they are proven stale). Every S3 request is counted by an SDK middleware (each HTTP attempt, retries
 * included) while, in the same run:
 *   driftwatch: CheckBackend (listing + bucket settings), ObserveLocks (listing + one GET per lock),
 *               ConfirmLocks after the window (listing; unchanged locks are not read again)
 *   naive:      the same listing, then a HEAD of `<key>.tflock` for every state object and a GET
 *               of each lock found, twice (observe and confirm)
 * Goal per listing: ceil(objects / 1000) pages; per check, a small constant; one GET per lock.
 * Prints the counts and their ratio; asserts nothing.
 *
 * Run: `node bin/run-ts.js bench/backend-requests.ts` (or `npm run bench`).
 */
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { motoEnvironment, startMoto } from '../cli/demo/moto.js';
import { createStateBucket } from '../cli/demo/provision.js';
import { createAwsBackendReader } from '../functions/adapters/backend/aws-backend-reader.js';
import { checkBackend } from '../functions/core/backend/check-backend.js';
import { discoverBackend } from '../functions/core/backend/discovery.js';
import { adhocTarget } from '../functions/core/backend/target.js';
import { confirmLocks, observeLocks } from '../functions/core/locks/check-locks.js';
import { mapConcurrently } from '../functions/core/scan/map-concurrently.js';

const BUCKET = 'bench-tfstate';
const STATES = 5_000;
const LOCKS = 20;
const CONFIRM_AFTER_MS = 1_000;

export async function run(): Promise<void> {
  console.log(`\n## backend requests: full check vs one request per key (${STATES} states, ${LOCKS} locks)`);
  const moto = await startMoto();
  try {
    Object.assign(process.env, motoEnvironment(moto.endpoint));
    const setup = new S3Client({});
    await createStateBucket(setup, BUCKET, 'eu-west-1');
    const keys = Array.from({ length: STATES }, (_, index) =>
      index % 10 === 0
        ? `env:/ws${index % 7}/team-${index}/terraform.tfstate`
        : `team-${index}/terraform.tfstate`,
    );
    const started = performance.now();
    await mapConcurrently(keys, 32, (key) =>
      setup.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: stateBody(key) })),
    );
    // S3 keeps last-modified to the second: take the locks in a later second than the state writes.
    await sleep(1_100);
    const taken = new Date().toISOString();
    await mapConcurrently(keys.slice(0, LOCKS), 8, (key) =>
      setup.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${key}.tflock`, Body: lockBody(key, taken) })),
    );
    const objects = STATES + LOCKS;
    console.log(`created ${objects} objects in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    const target = adhocTarget({ bucket: BUCKET, staleAfterMs: 1_000, confirmAfterMs: CONFIRM_AFTER_MS });
    const counted = countingS3();
    const reader = createAwsBackendReader({ s3: counted.s3, dynamodb: new DynamoDBClient({}) });
    const now = () => new Date();

    const check = await counted.measure(() => checkBackend(reader, target));
    const observed = await counted.measure(() => observeLocks(reader, target, 'bench', now));
    await sleep(Date.parse(observed.result.confirmAt) - Date.now());
    const confirmed = await counted.measure(() => confirmLocks(reader, target, observed.result, now));
    const stale = confirmed.result.verdicts.filter((entry) => entry.verdict === 'stale').length;

    const naiveLook = () =>
      counted.measure(async () => {
        const { stateKeys } = await discoverBackend(reader, target);
        const locked = await mapConcurrently(stateKeys, 32, async (key) => {
          try {
            await counted.s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: `${key}.tflock` }));
            return key;
          } catch {
            return undefined;
          }
        });
        for (const key of locked.filter((entry) => entry !== undefined))
          await counted.s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: `${key}.tflock` }));
      });
    const naiveFirst = await naiveLook();
    const naiveSecond = await naiveLook();

    const pages = Math.ceil(objects / 1000);
    const row = (name: string, counts: Record<string, number>) =>
      console.log(`${name.padEnd(30)} ${String(total(counts)).padStart(6)}  ${describe(counts)}`);
    console.log(
      `goal per listing: ceil(${objects} / 1000) = ${pages} pages; ${LOCKS} lock GETs on the first look`,
    );
    row('driftwatch check-backend', check.counts);
    row('driftwatch observe-locks', observed.counts);
    row('driftwatch confirm-locks', confirmed.counts);
    row('naive first look', naiveFirst.counts);
    row('naive second look', naiveSecond.counts);
    const driftwatch = total(check.counts) + total(observed.counts) + total(confirmed.counts);
    const naive = total(check.counts) + total(naiveFirst.counts) + total(naiveSecond.counts);
    console.log(`locks proven stale: ${stale} of ${LOCKS}`);
    console.log(
      `requests: driftwatch ${driftwatch}, naive ${naive} (same bucket settings reads); ratio naive / driftwatch ${(naive / driftwatch).toFixed(1)}x`,
    );
    console.log(
      `time: check ${seconds(check.ms)} s, observe ${seconds(observed.ms)} s, confirm ${seconds(confirmed.ms)} s; naive looks ${seconds(naiveFirst.ms)} s + ${seconds(naiveSecond.ms)} s`,
    );
  } finally {
    await moto.stop();
  }
}

/** An S3 client whose every HTTP request (retries included) is counted by command. */
function countingS3() {
  const s3 = new S3Client({});
  let counts: Record<string, number> = {};
  s3.middlewareStack.add(
    (next, context) => async (args) => {
      counts[context.commandName ?? 'unknown'] = (counts[context.commandName ?? 'unknown'] ?? 0) + 1;
      return next(args);
    },
    { step: 'finalizeRequest', name: 'countRequests', priority: 'low' },
  );
  return {
    s3,
    async measure<T>(
      work: () => Promise<T>,
    ): Promise<{ result: T; counts: Record<string, number>; ms: number }> {
      counts = {};
      const started = performance.now();
      const result = await work();
      return { result, counts, ms: performance.now() - started };
    },
  };
}

function total(counts: Record<string, number>): number {
  return Object.values(counts).reduce((sum, count) => sum + count, 0);
}

function describe(counts: Record<string, number>): string {
  return Object.entries(counts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([command, count]) => `${command.replace(/Command$/, '')} ${count}`)
    .join(', ');
}

function stateBody(key: string): string {
  return JSON.stringify({
    version: 4,
    terraform_version: '1.11.4',
    serial: 1,
    lineage: createHash('sha256').update(key).digest('hex').slice(0, 32),
    outputs: {},
    resources: [],
  });
}

function lockBody(key: string, created: string): string {
  return JSON.stringify({
    ID: `00000000-0000-4000-8000-${createHash('sha256').update(key).digest('hex').slice(0, 12)}`,
    Operation: 'OperationTypeApply',
    Info: '',
    Who: 'ci@runner',
    Version: '1.11.4',
    Created: created,
    Path: `${BUCKET}/${key}`,
  });
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(2);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolvePromise) => setTimeout(resolvePromise, Math.max(0, ms)));
}

if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) {
  await run();
}
