import { describe, expect, it } from 'vitest';
import { decodePlanText, readPlanFile } from '../../../functions/adapters/plan-file.js';
import { PlanFormatError } from '../../../functions/core/terraform/index.js';
import { hashSensitive } from '../../helpers/plan-builders.js';
import { usePlanFiles } from '../../helpers/plan-files.js';

/**
 * A plan that cannot be read fails with a reason that reaches stderr, logs and the stored
 * scan-failed finding. The reason must name what is wrong without quoting plan text that may be a
 * secret: a `for_each` key that is a sensitive value, an action or version field holding one, or
 * the text around a syntax error (a password whose quotes were lost). Both readers: the whole-file
 * JSON.parse path and the streaming one (byte by byte in small chunks).
 */
const { writePlan } = usePlanFiles('driftwatch-plan-error-secrets-');

const CANARY = 'CANARYplanerr7Q2x';
const SECRET_KEY = `aws_s3_bucket.c["${CANARY}"]`;

function driftEntry(address: string, change: unknown): string {
  return JSON.stringify({ address, mode: 'managed', type: 'aws_s3_bucket', name: 'c', change });
}
function plan(driftEntries: string, extra = ''): string {
  return `{"format_version":"1.2","terraform_version":"1.11.4"${extra},"resource_drift":[${driftEntries}]}`;
}
function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level++) value = { a: value };
  return value;
}

const HOSTILE: [string, string, RegExp][] = [
  [
    'an unknown action of an entry whose for_each key is a secret',
    plan(driftEntry(SECRET_KEY, { actions: ['bogus'], before: {}, after: {} })),
    /resource_drift\[0\] \(aws_s3_bucket\.c\["…"\]\) has an unknown action "bogus"/,
  ],
  [
    'no change object',
    plan(driftEntry(SECRET_KEY, null)),
    /resource_drift\[0\] \(aws_s3_bucket\.c\["…"\]\) has no change/,
  ],
  [
    'no actions',
    plan(driftEntry(SECRET_KEY, { before: {}, after: {} })),
    /resource_drift\[0\] \(aws_s3_bucket\.c\["…"\]\) has no actions/,
  ],
  [
    'values nested beyond the limit',
    plan(driftEntry(SECRET_KEY, { actions: ['update'], before: {}, after: nested(300) })),
    /resource_drift\[0\] \(aws_s3_bucket\.c\["…"\]\) nests values deeper than/,
  ],
  [
    'a module key and a credential-shaped key',
    plan(driftEntry(`module.m["${CANARY}"].aws_s3_bucket.c["AKIAIOSFODNN7EXAMPLE"]`, null)),
    /\(module\.m\["…"\]\.aws_s3_bucket\.c\["…"\]\) has no change/,
  ],
  [
    'an action that is itself a secret',
    plan(driftEntry('aws_s3_bucket.c', { actions: [CANARY], before: {}, after: {} })),
    /has an unknown action a string \(not shown\)/,
  ],
  [
    'a format_version object holding a password',
    `{"format_version":{"password":"${CANARY}"},"resource_drift":[]}`,
    /invalid format_version: an object \(not shown\)/,
  ],
  [
    'a syntax error next to a password that lost its quotes',
    plan(driftEntry('aws_s3_bucket.c', { actions: ['update'], before: {}, after: {} })).replace(
      '"after":{}',
      `"after":{"db_password": ${CANARY}-pw}`,
    ),
    /^plan is not JSON: Unexpected/,
  ],
  [
    'a syntax error at the start of a short document',
    `{"format_version":"1.2","x": ${CANARY}}`,
    /^plan is not JSON: /,
  ],
];

const readers: [string, (path: string) => Promise<unknown>][] = [
  ['whole file', (path) => readPlanFile(path, { hashSensitive })],
  ['streamed', (path) => readPlanFile(path, { hashSensitive, inMemoryLimitBytes: 1, streamChunkBytes: 7 })],
  ['streamed, one chunk', (path) => readPlanFile(path, { hashSensitive, inMemoryLimitBytes: 1 })],
];

describe('plan errors never quote plan text that may be secret', () => {
  for (const [name, text, reason] of HOSTILE) {
    for (const [reader, read] of readers) {
      it(`${name} (${reader})`, async () => {
        const path = writePlan(text);
        const error = await read(path).then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(error).toBeInstanceOf(PlanFormatError);
        const { message } = error as PlanFormatError;
        expect(message).not.toContain(CANARY);
        expect(message).not.toContain('AKIAIOSFODNN7EXAMPLE');
        // Still says what is wrong (the whole-file and streamed wording of a syntax error differ).
        if (!/^plan is not JSON/.test(message) || reader === 'whole file') expect(message).toMatch(reason);
        else expect(message).toMatch(/^plan is not JSON: /);
      });
    }
  }

  it('redacts credential-shaped text in any reason, whoever builds it (the backstop)', () => {
    const message = new PlanFormatError(
      'invalid plan: postgres://admin:hunter2secret@db:5432/app AKIAIOSFODNN7EXAMPLE',
    ).message;
    expect(message).not.toContain('hunter2secret');
    expect(message).not.toContain('AKIAIOSFODNN7EXAMPLE');
  });
});

describe('inputs that are not what they seem are named for what they are (both readers)', () => {
  const cases: [string, string | Uint8Array, RegExp][] = [
    [
      'the binary plan file (a zip archive)',
      Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(64, 1)]),
      /^this is a binary plan file .*: run `terraform show -json \S+ > \S+\.json` in the root module's directory/,
    ],
    [
      'binary junk starting with NUL',
      Buffer.from([0x00, 0x01, 0x02, 0xff, 0x80, 0x00]),
      /^plan is not UTF-8 text/,
    ],
    [
      'errored as a string',
      '{"format_version":"1.2","errored":"true","resource_drift":[]}',
      /errored is a string, expected true or false/,
    ],
    [
      'complete as a string',
      '{"format_version":"1.2","complete":"false","resource_drift":[]}',
      /complete is a string, expected true or false/,
    ],
  ];
  for (const [name, content, reason] of cases) {
    for (const [reader, read] of readers) {
      it(`${name} (${reader})`, async () => {
        const error = await read(writePlan(content)).then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(error).toBeInstanceOf(PlanFormatError);
        expect((error as Error).message).toMatch(reason);
      });
    }
  }
});

describe('the binary plan file: the command to run names the file given', () => {
  const zip = Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(64, 1)]);
  const reasonFor = (path?: string) => {
    try {
      decodePlanText(zip, path);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('a binary plan was read as text');
  };

  it.each([
    ['plans/plan.tfplan', '`terraform show -json plans/plan.tfplan > plan.json`', 'pass plan.json'],
    ['tfplan', '`terraform show -json tfplan > tfplan.json`', 'pass tfplan.json'],
    // Saved under the name its JSON would take: the JSON goes elsewhere, not over the plan.
    ['out/plan.json', '`terraform show -json out/plan.json > plan.show.json`', 'pass plan.show.json'],
    [
      "my plan's.out",
      "`terraform show -json 'my plan'\\''s.out' > 'my plan'\\''s.json'`",
      "pass 'my plan'\\''s.json'",
    ],
  ])('%s', (path, command, pass) => {
    const reason = reasonFor(path);
    expect(reason).toContain(command);
    expect(reason).toContain(pass);
  });

  it('stdin has no name: the usual one', () => {
    expect(reasonFor()).toContain('`terraform show -json plan.tfplan > plan.json`');
  });
});
