import { describe, expect, it } from 'vitest';
import { readPlanFile } from '../../../functions/adapters/plan-file.js';
import { type CompactPlan, PlanFormatError } from '../../../functions/core/terraform/index.js';
import { hashSensitive } from '../../helpers/plan-builders.js';
import { usePlanFiles } from '../../helpers/plan-files.js';

/**
 * A plan whose members have the wrong JSON type, or that gives a member twice, is an invalid plan in
 * every reader: the whole-file JSON.parse path and the streaming one (`evaluate-plan -`, large
 * files) must not judge one file differently, and neither may read it as "no drift". Each case runs
 * through all three readers.
 */
const { writePlan } = usePlanFiles('driftwatch-plan-shape-');

const CANARY = 'CANARYshape4Jw9';
const DRIFT = JSON.stringify({
  address: 'aws_s3_bucket.x',
  mode: 'managed',
  type: 'aws_s3_bucket',
  name: 'x',
  change: { actions: ['update'], before: { acl: 'private' }, after: { acl: 'public-read' } },
});

function driftWith(change: Record<string, unknown>): string {
  return JSON.stringify({
    address: 'aws_s3_bucket.x',
    mode: 'managed',
    type: 'aws_s3_bucket',
    name: 'x',
    change,
  });
}

const readers: [string, (path: string) => Promise<CompactPlan>][] = [
  ['whole file', (path) => readPlanFile(path, { hashSensitive })],
  ['streamed', (path) => readPlanFile(path, { hashSensitive, inMemoryLimitBytes: 1, streamChunkBytes: 7 })],
  ['streamed, one chunk', (path) => readPlanFile(path, { hashSensitive, inMemoryLimitBytes: 1 })],
];

async function failureOf(read: (path: string) => Promise<CompactPlan>, text: string): Promise<string> {
  const error = await read(writePlan(text)).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(PlanFormatError);
  return (error as Error).message;
}

const INVALID: [string, string, string][] = [
  [
    'an empty object for resource_drift',
    '{"format_version":"1.2","resource_drift":{}}',
    'invalid plan: resource_drift is an object, expected a list',
  ],
  [
    'an empty object for resource_changes',
    '{"format_version":"1.2","resource_changes":{}}',
    'invalid plan: resource_changes is an object, expected a list',
  ],
  [
    'an empty list for output_changes',
    '{"format_version":"1.2","resource_drift":[],"output_changes":[]}',
    'invalid plan: output_changes is a list, expected an object',
  ],
  [
    'a change whose before is text (a secret, never quoted)',
    `{"format_version":"1.2","resource_drift":[${driftWith({ actions: ['update'], before: CANARY, after: { acl: 'public-read' } })}]}`,
    'invalid plan: resource_drift[0] (aws_s3_bucket.x) change.before is a string, expected an object or null',
  ],
  [
    'a change whose after is a list',
    `{"format_version":"1.2","resource_drift":[${driftWith({ actions: ['update'], before: {}, after: [CANARY] })}]}`,
    'invalid plan: resource_drift[0] (aws_s3_bucket.x) change.after is a list, expected an object or null',
  ],
  [
    'a planned change whose after is a number',
    `{"format_version":"1.2","resource_changes":[${driftWith({ actions: ['create'], before: null, after: 5 })}]}`,
    'invalid plan: resource_changes[0] (aws_s3_bucket.x) change.after is a number, expected an object or null',
  ],
  [
    'resource_drift given twice, the second empty (JSON.parse alone would keep the empty one)',
    `{"format_version":"1.2","resource_drift":[${DRIFT}],"resource_drift":[]}`,
    'invalid plan: resource_drift appears twice in the plan object',
  ],
  [
    'resource_drift given twice, the first empty',
    `{"format_version":"1.2","resource_drift":[],"resource_drift":[${DRIFT}]}`,
    'invalid plan: resource_drift appears twice in the plan object',
  ],
  [
    // (an unsupported first one, `2.0`, fails the streaming reader as unsupported before it sees the second)
    'format_version given twice',
    `{"format_version":"1.1","format_version":"1.2","resource_drift":[${DRIFT}]}`,
    'invalid plan: format_version appears twice in the plan object',
  ],
  [
    'errored given twice, pretty-printed',
    `{\n  "format_version": "1.2",\n  "errored": true,\n  "resource_drift": [${DRIFT}],\n  "errored" : false\n}`,
    'invalid plan: errored appears twice in the plan object',
  ],
];

describe('members of the wrong type or given twice are invalid plans in every reader', () => {
  for (const [name, text, reason] of INVALID) {
    for (const [reader, read] of readers) {
      it(`${name} (${reader})`, async () => {
        const message = await failureOf(read, text);
        expect(message.startsWith(reason)).toBe(true);
        expect(message).not.toContain(CANARY);
      });
    }
  }
});

describe('what is not a repeated member of the plan', () => {
  const VALID: [string, string][] = [
    [
      'a member driftwatch does not read, given twice',
      `{"format_version":"1.2","timestamp":"a","timestamp":"b","resource_drift":[${DRIFT}]}`,
    ],
    [
      'the same names nested deeper (prior_state has its own format_version; a variable named resource_drift)',
      `{"format_version":"1.2","variables":{"resource_drift":{"value":"x"},"errored":{"value":"{\\"resource_drift\\":[],"}},"prior_state":{"format_version":"1.0","values":{"root_module":{}}},"resource_drift":[${DRIFT}]}`,
    ],
    [
      'escaped quotes and backslashes before a member',
      `{"format_version":"1.2","variables":{"a\\\\":{"value":"\\\\\\"resource_drift\\":"}},"resource_drift":[${DRIFT}]}`,
    ],
  ];
  for (const [name, text] of VALID) {
    for (const [reader, read] of readers) {
      it(`${name} (${reader}) reads the drift`, async () => {
        const compact = await read(writePlan(text));
        expect(compact.drift.map((change) => change.address)).toEqual(['aws_s3_bucket.x']);
      });
    }
  }
});
