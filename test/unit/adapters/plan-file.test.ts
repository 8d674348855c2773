import { execFileSync } from 'node:child_process';
import { createWriteStream, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPlanFile, readPlanStream } from '../../../functions/adapters/plan-file.js';
import { compactPlan, PlanFormatError } from '../../../functions/core/terraform/index.js';
import {
  bucketMask,
  bucketValues,
  entry,
  hashSensitive,
  ingressRule,
  plan,
  queueValues,
  securityGroupValues,
  ssmMask,
  ssmParameterValues,
  stateResource,
  versioningCompanion,
} from '../../helpers/plan-builders.js';
import { usePlanFiles } from '../../helpers/plan-files.js';

const { dir, writePlan } = usePlanFiles('driftwatch-plan-file-');

const inMemory = (path: string) => readPlanFile(path, { hashSensitive });
const streamed = (path: string, streamChunkBytes?: number) =>
  readPlanFile(path, { hashSensitive, inMemoryLimitBytes: 1, streamChunkBytes });

function awsDriftPlan() {
  return plan({
    drift: [
      entry('aws_s3_bucket.data', {
        before: bucketValues(),
        after: bucketValues({
          tags: { Owner: 'someone-else' },
          versioning: [{ enabled: true, mfa_delete: false }],
        }),
        beforeSensitive: bucketMask,
        afterSensitive: bucketMask,
      }),
      entry('aws_security_group.db', {
        before: securityGroupValues(),
        after: securityGroupValues({
          ingress: [ingressRule('0.0.0.0/0', 22), ingressRule('10.0.0.0/16', 5432)],
        }),
      }),
      entry('aws_sqs_queue.q', { actions: ['delete'], before: queueValues(), after: null }),
      entry('aws_ssm_parameter.pw', {
        before: ssmParameterValues('plan-file-secret-1'),
        after: ssmParameterValues('plan-file-secret-2'),
        beforeSensitive: ssmMask,
        afterSensitive: ssmMask,
      }),
    ],
    outputs: {
      bucket: {
        actions: ['update'],
        before: 'a',
        after: 'b',
        before_sensitive: false,
        after_sensitive: false,
      },
    },
    prior: [stateResource('aws_s3_bucket.data', bucketValues()), versioningCompanion],
  });
}

describe('readPlanFile: the streaming path produces exactly the in-memory CompactPlan', () => {
  it('for a realistic AWS refresh-only plan, pretty-printed or compact, in small chunks', async () => {
    for (const text of [JSON.stringify(awsDriftPlan()), JSON.stringify(awsDriftPlan(), null, 2)]) {
      const path = writePlan(text);
      const expected = compactPlan(text, { hashSensitive });
      expect(await inMemory(path)).toEqual(expected);
      expect(await streamed(path)).toEqual(expected);
      for (const chunk of [1, 7, 64, 1000]) expect(await streamed(path, chunk)).toEqual(expected);
      expect(JSON.stringify(await streamed(path, 5))).not.toContain('plan-file-secret');
    }
  });

  // The same check over the real OpenTofu / terraform-json plans is in test/corpus (npm run test:corpus).

  it('keeps the order of keys that Terraform does not sort (equivalence fixtures are sorted)', async () => {
    const raw = awsDriftPlan();
    const sorted = Object.fromEntries(Object.entries(raw).sort(([a], [b]) => (a < b ? -1 : 1)));
    const path = writePlan(JSON.stringify(sorted));
    expect(await streamed(path, 3)).toEqual(await inMemory(path));
  });
});

/**
 * The bytes in chunks of `size`, all in one buffer that is scribbled over as soon as the next chunk
 * is asked for, as a reader that reuses its buffers (readPlanFile does) may: whatever the reader
 * kept without copying turns to garbage.
 */
async function* reusedChunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  // A Buffer, as file reads give: its slice() is a view, where a Uint8Array's copies.
  const buffer = Buffer.alloc(size);
  for (let start = 0; start < bytes.length; start += size) {
    const chunk = bytes.subarray(start, start + size);
    buffer.set(chunk);
    yield buffer.subarray(0, chunk.length);
    buffer.fill(0xff);
  }
}

describe('readPlanStream: chunks whose memory is reused once the next is read', () => {
  // Multi-byte characters split across chunks (the UTF-8 check carries them over), in keys the
  // reader builds from several chunks, in captured values and in skipped prior_state strings.
  const unicodePlan = () => {
    const text = JSON.stringify(awsDriftPlan()).replaceAll('someone-else', 'équipe-données-€-😀');
    return text.replace('"tags":{', '"tags":{"Propriétaire-😀-€":"ça-va-😀",');
  };

  it('give the same CompactPlan as one read of the whole file, at every chunk size', async () => {
    const text = unicodePlan();
    expect(text).toContain('😀');
    const expected = compactPlan(text, { hashSensitive });
    const bytes = new TextEncoder().encode(text);
    for (const size of [1, 2, 3, 5, 7, 64, 1000]) {
      expect(await readPlanStream(reusedChunks(bytes, size), { hashSensitive })).toEqual(expected);
    }
  });

  it('from a file, leave no file open when the plan is rejected half-way', async () => {
    const path = writePlan(JSON.stringify(plan()).replace('"resource_drift":[', '"resource_drift":[{]'));
    const open = () => readdirSync('/proc/self/fd').length;
    const before = open();
    for (let run = 0; run < 20; run++)
      await expect(streamed(path, 8)).rejects.toBeInstanceOf(PlanFormatError);
    expect(open()).toBe(before);
  });
});

/** The shape of Terraform's machine-readable UI (`terraform plan -json`): one JSON object per line. */
const STREAMED_LOG = [
  {
    '@level': 'info',
    '@message': 'Terraform 1.11.4',
    '@module': 'terraform.ui',
    terraform: '1.11.4',
    type: 'version',
    ui: '1.2',
  },
  {
    '@level': 'info',
    '@message': 'aws_s3_bucket.data: Refreshing state... [id=data]',
    '@module': 'terraform.ui',
    hook: { resource: { addr: 'aws_s3_bucket.data' }, id_key: 'id', id_value: 'data' },
    type: 'refresh_start',
  },
  {
    '@level': 'info',
    '@message': 'Plan: 0 to add, 0 to change, 0 to destroy.',
    '@module': 'terraform.ui',
    type: 'change_summary',
  },
]
  .map((message) => JSON.stringify(message))
  .join('\n');

describe('readPlanFile: bad files', () => {
  const cases: Array<[string, string | Uint8Array, RegExp]> = [
    ['empty', '', /^plan is empty$/],
    ['whitespace', '  \n ', /^plan is empty$/],
    ['not JSON', 'Error: no plan file', /^plan is not JSON: /],
    ['truncated', JSON.stringify(plan()).slice(0, -20), /^plan is not JSON: /],
    ['an array', '[{"format_version":"1.2"}]', /^plan is not a JSON object$/],
    ['a number', '42', /^plan is not a JSON object$/],
    ['unknown format', JSON.stringify(plan({ formatVersion: '2.0' })), /^unsupported format_version 2\.0$/],
    // `terraform plan -json | driftwatch evaluate-plan -`: the streamed log, one message per line.
    ['the log of plan -json', STREAMED_LOG, /^this is the log that `terraform plan -json` streams/],
    [
      'one line of that log',
      STREAMED_LOG.split('\n', 1)[0]!,
      /^this is the log that `terraform plan -json` streams/,
    ],
  ];

  it.each(cases)('%s → PlanFormatError with the reason (both paths)', async (_name, content, reason) => {
    const path = writePlan(content);
    for (const read of [() => inMemory(path), () => streamed(path), () => streamed(path, 4)]) {
      const error = await read().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(PlanFormatError);
      expect((error as Error).message).toMatch(reason);
    }
  });

  it('a missing file is an I/O error, not a plan error', async () => {
    await expect(inMemory(join(dir, 'missing.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('readPlanFile: a pipe', () => {
  /** `evaluate-plan <(terraform show -json plan.tfplan)`: a FIFO, whose size is 0 until it is read. */
  function pipeOf(name: string, content: string): string {
    const path = join(dir, name);
    execFileSync('mkfifo', [path]);
    // Opening the write end waits for the reader (in libuv's thread pool, not this thread).
    createWriteStream(path).end(content);
    return path;
  }

  it('is read, not taken for an empty file', async () => {
    const text = JSON.stringify(awsDriftPlan());
    const fromPipe = await inMemory(pipeOf('plan.fifo', text));
    expect(fromPipe).toEqual(await inMemory(writePlan(text)));
    expect(fromPipe.drift.length).toBeGreaterThan(0);
  });

  it('that stays empty is an empty plan', async () => {
    await expect(inMemory(pipeOf('empty.fifo', ''))).rejects.toThrow(/^plan is empty$/);
  });
});
