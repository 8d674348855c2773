import { describe, expect, it } from 'vitest';
import type { StateSubject, StateVersionFacts } from '../../../../functions/core/backend/rule.js';
import { STATE_RULES } from '../../../../functions/core/backend/rules/index.js';
import { stateLineageChangedRule } from '../../../../functions/core/backend/rules/state-lineage-changed.js';
import { stateSerialRegressedRule } from '../../../../functions/core/backend/rules/state-serial-regressed.js';
import { stateUnreadableRule } from '../../../../functions/core/backend/rules/state-unreadable.js';
import { parseStateHeader } from '../../../../functions/core/backend/state-document.js';
import { redactText } from '../../../../functions/core/redaction/secrets.js';
import { stateBody } from '../../../helpers/backend.js';

const SECRET = 'CANARY-state-secret-7f3a91';

describe('parseStateHeader', () => {
  it('keeps only version, serial, lineage, Terraform version and how many resources it holds', () => {
    const parsed = parseStateHeader(stateBody({ outputs: { db: { value: SECRET, sensitive: true } } }));
    expect(parsed).toEqual({
      ok: true,
      header: {
        version: 4,
        serial: 3,
        lineage: '5e0c1c2d-7a0b-4a37-9d7e-0c8a1d1f0001',
        terraformVersion: '1.11.4',
        resources: 0,
      },
    });
    expect(JSON.stringify(parsed)).not.toContain(SECRET);
  });

  it.each([
    ['', /empty/],
    [`{"password": "${SECRET}"`, /^the state is not JSON \(\d+ characters\)$/],
    [`["${SECRET}"]`, /not a JSON object/],
    [
      stateBody({ version: 3, lineage: undefined }),
      /^no lineage, or a lineage that is not an id, in state format 3 \(written by Terraform 0\.11 or older; /,
    ],
    [stateBody({ version: 5 }), /^state format version 5, expected 4$/],
    [stateBody({ version: '4' }), /^state format version is a JSON string, expected the number 4$/],
    [stateBody({ version: undefined }), /^state format version missing, expected 4$/],
    [stateBody({ lineage: SECRET.repeat(3) }), /lineage/],
    [stateBody({ lineage: `has spaces ${SECRET}` }), /lineage/],
    [stateBody({ serial: -1 }), /serial/],
    [stateBody({ resources: SECRET }), /resources is not a list/],
  ])('gives a reason that never quotes the content: %#', (body, reason) => {
    const parsed = parseStateHeader(body);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.reason).toMatch(reason);
      expect(parsed.reason).not.toContain(SECRET);
      expect(parsed.reason).not.toContain('password');
    }
  });

  it('drops a Terraform version that is not a version', () => {
    const parsed = parseStateHeader(stateBody({ terraform_version: SECRET }));
    expect(parsed.ok && 'header' in parsed && parsed.header.terraformVersion).toBeUndefined();
  });

  // OpenTofu 1.7+ with an `encryption` block writes the whole state encrypted, as JSON of this shape
  // (OpenTofu's encryption docs and internal/encryption: meta per key provider, the base64 payload,
  // the format version). It is state, not an unreadable object to restore from an older version.
  const encryptedEnvelope = (extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      meta: { 'key_provider.pbkdf2.main': 'eyJzYWx0IjoiQUFBQSIsIml0ZXJhdGlvbnMiOjYwMDAwMH0=' },
      encrypted_data: Buffer.from(`{"version":4,"outputs":{"pw":"${SECRET}"}}`).toString('base64'),
      encryption_version: 'v0',
      ...extra,
    });

  it('takes OpenTofu-encrypted state for state whose lineage and serial it cannot read', () => {
    expect(parseStateHeader(encryptedEnvelope())).toEqual({ ok: true, encrypted: true });
    expect(parseStateHeader(encryptedEnvelope({ meta: {} }))).toEqual({ ok: true, encrypted: true });
  });

  it.each([
    ['no encryption_version', { encryption_version: undefined }],
    ['a payload that is not text', { encrypted_data: 42 }],
  ])('an envelope with %s is not taken for one', (_, extra) => {
    const parsed = parseStateHeader(encryptedEnvelope(extra));
    expect(parsed.ok).toBe(false);
  });
});

function version(versionId: string, serial: number, lineage = 'lineage-a'): StateVersionFacts {
  return {
    versionId,
    lastModified: `2026-11-2${versionId.slice(-1)}T00:00:00.000Z`,
    header: { version: 4, serial, lineage },
  };
}

function subject(...versions: StateVersionFacts[]): StateSubject {
  return { bucket: 'tfstate', key: 'payments/terraform.tfstate', versions };
}

describe('state.unreadable', () => {
  it('flags an unreadable current version and points at the last good one', () => {
    const [violation] = stateUnreadableRule.evaluate(
      subject({ versionId: 'v3', unreadable: 'not JSON (12 characters)' }, version('v2', 2)),
    );
    expect(violation).toMatchObject({
      resource: { bucket: 'tfstate', key: 'payments/terraform.tfstate' },
      evidence: { reason: 'not JSON (12 characters)', current: { versionId: 'v3' } },
    });
    expect(violation?.remediation.steps.join('\n')).toContain('--version-id v2');
  });

  it("names S3's version id null (written while versioning was off) as such, not as 'version null'", () => {
    const [violation] = stateUnreadableRule.evaluate(
      subject({ versionId: 'null', unreadable: 'the state is empty' }),
    );
    expect(violation?.remediation.steps[0]).toMatch(
      /^Find out who wrote the version written while the bucket's versioning was off \(version id null\)/,
    );
    const [unversioned] = stateUnreadableRule.evaluate(subject({ unreadable: 'the state is empty' }));
    expect(unversioned?.remediation.steps[0]).toMatch(/^Find out who wrote the current version /);
  });

  it('ignores unreadable older versions', () => {
    expect(
      stateUnreadableRule.evaluate(subject(version('v3', 3), { versionId: 'v2', unreadable: 'x' })),
    ).toEqual([]);
  });
});

describe('state.lineage-changed and state.serial-regressed', () => {
  it('find nothing in a normal history (serials going up, one lineage)', () => {
    const history = subject(version('v3', 7), version('v2', 6), version('v1', 5));
    expect(stateLineageChangedRule.evaluate(history)).toEqual([]);
    expect(stateSerialRegressedRule.evaluate(history)).toEqual([]);
  });

  it('name both versions of a lineage change, and do not call it a serial regression too', () => {
    const history = subject(version('v3', 1, 'lineage-b'), version('v2', 6), version('v1', 5));
    const [violation] = stateLineageChangedRule.evaluate(history);
    expect(violation?.title).toBe(
      'State lineage of s3://tfstate/payments/terraform.tfstate changed in version v3',
    );
    expect(violation?.evidence).toMatchObject({
      before: { versionId: 'v2', lineage: 'lineage-a', serial: 6 },
      after: { versionId: 'v3', lineage: 'lineage-b', serial: 1 },
    });
    expect(stateSerialRegressedRule.evaluate(history)).toEqual([]);
  });

  it('name both versions of a serial regression, the most recent one first', () => {
    const history = subject(version('v4', 2), version('v3', 9), version('v2', 4), version('v1', 5));
    const [violation] = stateSerialRegressedRule.evaluate(history);
    expect(violation?.detail).toContain(
      'Version v4 of s3://tfstate/payments/terraform.tfstate has serial 2, lower than 9',
    );
    expect(violation?.evidence).toMatchObject({ before: { versionId: 'v3' }, after: { versionId: 'v4' } });
    expect(violation?.remediation.steps.join('\n')).toContain('terraform state push -force good.tfstate');
  });

  // `terraform workspace delete` then `terraform workspace new` of the name (short-lived environments).
  it('take a state written after a deletion of a state that held no resources for a new state', () => {
    const deleted = (resources: number) => ({
      ...version('v2', 3),
      header: { ...version('v2', 3).header!, resources },
    });
    const recreated = { ...version('v3', 0, 'lineage-b'), recreated: true as const };
    expect(stateLineageChangedRule.evaluate(subject(recreated, deleted(0), version('v1', 2)))).toEqual([]);
    // Resources in the deleted state (a forced delete, a state removed by hand): they are now unmanaged.
    expect(stateLineageChangedRule.evaluate(subject(recreated, deleted(2), version('v1', 2)))).toHaveLength(
      1,
    );
    // Another lineage pushed over an empty state, with no deletion between: still a lineage change.
    const pushed = version('v3', 0, 'lineage-b');
    expect(stateLineageChangedRule.evaluate(subject(pushed, deleted(0), version('v1', 2)))).toHaveLength(1);
  });

  it('compare across an unreadable version', () => {
    const history = subject(version('v3', 1), { versionId: 'v2', unreadable: 'empty' }, version('v1', 5));
    expect(stateSerialRegressedRule.evaluate(history)[0]?.evidence).toMatchObject({
      before: { versionId: 'v1' },
      after: { versionId: 'v3' },
    });
  });
});

describe('state rules on states named like secrets (auth/, token-…, secrets- are common in keys and buckets)', () => {
  // Finding text is redacted again wherever it is shown; a sentence that puts a word after
  // `<secret-looking name>:` loses it. Product sentences must read the same (as bucket-rules.test.ts).
  it.each([
    ['auth-tfstate', 'auth/terraform.tfstate'],
    ['token-service-tfstate', 'env:/blue/api-key/terraform.tfstate'],
    ['secrets-tfstate', 'password-rotation/terraform.tfstate'],
  ])('%s %s', (bucket, key) => {
    const histories = [
      [
        { versionId: 'v3', lastModified: '2026-11-23T00:00:00.000Z', unreadable: 'not JSON (12 characters)' },
        version('v2', 2),
      ],
      [version('v3', 1, 'lineage-b'), version('v2', 6), version('v1', 5)],
      [version('v4', 2), version('v3', 9), version('v2', 4), version('v1', 5)],
    ];
    let texts = 0;
    for (const versions of histories)
      for (const rule of STATE_RULES)
        for (const violation of rule.evaluate({ bucket, key, versions })) {
          for (const text of [violation.title, violation.detail, violation.remediation.summary]) {
            expect(redactText(text), rule.id).toBe(text);
            texts++;
          }
        }
    expect(texts).toBeGreaterThanOrEqual(9);
  });
});
