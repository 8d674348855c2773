import { describe, expect, it } from 'vitest';
import { SENSITIVE_MARKER } from '../../../../functions/core/redaction/secrets.js';
import { evaluatePlan } from '../../../../functions/core/terraform/index.js';
import { decodeBase64Text } from '../../../../functions/core/terraform/sensitivity.js';
import { context, entry, hashSensitive, plan } from '../../../helpers/plan-builders.js';

/**
 * Secrets in attributes whose names say nothing, held in shapes the name and value rules missed:
 * - base64 text (an encoded env file or script in a description, a tag, a Kubernetes Secret's data):
 *   `cGFzc3dvcmQ9…` printed as it was, and anyone could decode it;
 * - a `{name, value}` pair whose members carry a prefix: `{ParameterKey: "DbPassword",
 *   ParameterValue: "…"}` (CloudFormation parameters), `{OptionName, OptionValue}`,
 *   `{setting_name, setting_value}`: the value was printed in plain text.
 * Each is planted in drift and in a pending change; no finding may hold it, and the change stays
 * visible as a hash.
 */
const CANARY = 'ENCODEDCANARY7q';
const b64 = (text: string) => Buffer.from(text).toString('base64');

const PLACES: Record<string, (secret: string) => unknown> = {
  'base64 env file': (secret) => b64(`STAGE=prod\nDB_PASSWORD=${secret}\n`),
  'base64 url credential': (secret) => b64(`postgres://app:${secret}@db.internal:5432/orders`),
  'base64 JSON with a secret key': (secret) => b64(JSON.stringify({ api_key: secret })),
  'base64 with line breaks': (secret) =>
    b64(`#!/bin/sh\nexport GITHUB_TOKEN=${secret}\n${'x'.repeat(80)}`).replace(/(.{76})/g, '$1\n'),
  'ParameterKey/ParameterValue': (secret) =>
    JSON.stringify([{ ParameterKey: 'DbPassword', ParameterValue: secret }]),
  'OptionName/OptionValue': (secret) => JSON.stringify([{ OptionName: 'AuthToken', OptionValue: secret }]),
  'setting_name/setting_value': (secret) =>
    JSON.stringify([{ setting_name: 'client_secret', setting_value: secret }]),
};

function plantedPlan() {
  const drift: unknown[] = [];
  const changes: unknown[] = [];
  let index = 0;
  for (const make of Object.values(PLACES)) {
    index++;
    drift.push(
      entry(`aws_sqs_queue.drift${index}`, {
        before: { name: `drift${index}`, description: '[]' },
        after: { name: `drift${index}`, description: make(`${CANARY}d${index}`) },
      }),
    );
    changes.push(
      entry(`aws_sqs_queue.pending${index}`, {
        before: { name: `pending${index}`, description: '[]', tags: { Note: 'plain' } },
        after: { name: `pending${index}`, description: '[]', tags: { Note: make(`${CANARY}p${index}`) } },
      }),
    );
  }
  return plan({ drift, changes });
}

describe('secrets in base64 and in prefixed name/value pairs', () => {
  const result = evaluatePlan(plantedPlan(), { ...context(), hashSensitive });
  const findings = result.findings.filter((finding) => finding.kind !== 'scan-failed');

  it('appear in no finding', () => {
    expect(findings).toHaveLength(2 * Object.keys(PLACES).length);
    expect(JSON.stringify(result)).not.toContain(CANARY);
  });

  it('leave each change visible as a hash', () => {
    for (const finding of findings) {
      const changes = finding.drift?.changes ?? [];
      expect(changes.length, finding.title).toBeGreaterThan(0);
      const hashed = changes.filter((change) => SENSITIVE_MARKER.test(String(change.after)));
      expect(hashed.length, finding.title).toBeGreaterThan(0);
    }
  });

  it('hash neither plain base64 nor pairs whose name says nothing', () => {
    const raw = plan({
      drift: [
        entry('aws_sqs_queue.plain', {
          before: { name: 'plain', description: b64('hello world, nothing secret here') },
          after: {
            name: 'plain',
            description: JSON.stringify([{ ParameterKey: 'InstanceType', ParameterValue: 't3.micro' }]),
          },
        }),
      ],
    });
    const text = JSON.stringify(evaluatePlan(raw, { ...context(), hashSensitive }).findings);
    expect(text).toContain('t3.micro');
    expect(text).not.toMatch(/\(sensitive:/);
  });
});

describe('decodeBase64Text', () => {
  it('decodes base64 text, standard or URL alphabet, with line breaks', () => {
    expect(decodeBase64Text(b64('password=hunter2hunter2'))).toBe('password=hunter2hunter2');
    expect(decodeBase64Text(Buffer.from('a?b>c~d?e>f~g?h>').toString('base64url'))).toBe('a?b>c~d?e>f~g?h>');
    expect(decodeBase64Text(b64('x'.repeat(120)).replace(/(.{76})/g, '$1\n'))).toBe('x'.repeat(120));
  });

  it('leaves what is not base64 text: words, ids, digests, binary', () => {
    expect(decodeBase64Text('ProductionDatabase')).toBeUndefined();
    expect(decodeBase64Text('i-0123456789abcdef0')).toBeUndefined();
    expect(decodeBase64Text('47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=')).toBeUndefined();
    expect(
      decodeBase64Text(Buffer.from([0, 1, 2, 3, 250, 251, 252, 253, 254, 255, 0, 1]).toString('base64')),
    ).toBe(undefined);
    expect(decodeBase64Text('short')).toBeUndefined();
  });
});
