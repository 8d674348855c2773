import { describe, expect, it } from 'vitest';
import type { Finding } from '../../../../functions/core/findings/model.js';
import { buildDigests, isReminderDue } from '../../../../functions/core/notify/digest.js';
import { DEFAULT_NOTIFICATION_SETTINGS } from '../../../../functions/core/registry/model.js';
import { driftDraft, storedFinding } from '../../../helpers/findings.js';

const now = new Date('2026-11-29T02:30:00Z');
let counter = 0;
/** Each on its own bucket, so no two findings share a resource. */
const finding = (overrides: Partial<Finding> = {}) =>
  storedFinding(
    overrides,
    driftDraft({ resource: { address: `aws_s3_bucket.b${++counter}`, type: 'aws_s3_bucket' } }),
  );
const digests = (findings: Finding[], settings = DEFAULT_NOTIFICATION_SETTINGS) =>
  buildDigests({ scanId: 'scan-1', now, findings, fallbackOwner: 'platform', settings });

describe('owner digests', () => {
  it('is one Chatbot custom notification per owner with news, and nothing on a quiet night', () => {
    const result = digests([
      finding({ owner: 'payments', severity: 'critical' }),
      finding({ owner: 'payments', status: 'changed' }),
      finding({ owner: 'platform', status: 'resolved' }),
      finding({ owner: 'dba', status: 'ongoing' }),
      finding({ owner: 'dba', status: 'suppressed' }),
    ]);
    expect(result.map((digest) => digest.owner)).toEqual(['payments', 'platform']);
    const payments = result[0]!;
    expect(payments.message).toMatchObject({
      version: '1.0',
      source: 'custom',
      id: 'scan-1.payments',
      content: { textType: 'client-markdown' },
      metadata: { eventType: 'DriftwatchDigest', threadId: 'driftwatch-payments-payments-prod' },
    });
    expect(payments.message.content.title).toContain('1 new, 1 changed');
    expect(payments.message.content.description).toContain('*New* (1)');
    expect(payments.message.content.description).toContain('tags.Owner: payments → finance');
    expect(payments.attributes).toEqual({
      owner: 'payments',
      severity: 'critical',
      environment: ['prod'],
      kinds: ['terraform-drift'],
      digestId: 'scan-1.payments',
    });
    expect(result[1]!.message.content.description).toMatch(/\*Resolved\* \(1\)/);
    expect(result[1]!.attributes).toMatchObject({
      severity: 'info',
      environment: ['prod'],
      kinds: ['terraform-drift'],
    });
    expect(digests([finding({ status: 'ongoing' }), finding({ status: 'suppressed' })])).toEqual([]);
  });

  it('sends findings without an owner to the fallback owner', () => {
    const orphan = finding({ owner: undefined });
    expect(digests([orphan]).map((digest) => digest.owner)).toEqual(['platform']);
  });

  it('proposes reviewed remediations as next steps: revert or adopt per workspace, recreate or remove, the rest as they say', () => {
    const deletion = finding({
      owner: 'payments',
      severity: 'high',
      drift: { action: 'delete', changes: [] },
    });
    const lock = finding({
      owner: 'payments',
      kind: 'stale-lock',
      severity: 'high',
      drift: undefined,
      remediation: {
        summary: 'Confirm the holder is gone, then terraform force-unlock 1234 from payments-prod.',
        steps: [],
      },
    });
    const steps = digests([
      finding({ owner: 'payments' }),
      finding({ owner: 'payments' }),
      deletion,
      lock,
    ])[0]!.message.content.nextSteps;
    expect(steps).toHaveLength(3);
    expect(steps[0]).toMatch(
      /^payments-prod: recreate `aws_s3_bucket\.b\d+` with a reviewed plan through the pipeline/,
    );
    expect(steps[1]).toBe('Confirm the holder is gone, then terraform force-unlock 1234 from payments-prod.');
    expect(steps[2]).toMatch(
      /^payments-prod: revert \(a normal `terraform plan` through the team's pipeline.*adopt.*: `aws_s3_bucket\.b\d+`, `aws_s3_bucket\.b\d+`$/,
    );
    const many = Array.from({ length: 8 }, (_, index) => finding({ workspace: `ws-${index}` }));
    expect(digests(many)[0]!.message.content.nextSteps).toHaveLength(5);
  });

  it('stays short: lists the configured number in full and counts the rest', () => {
    const many = Array.from({ length: 40 }, () => finding({ owner: 'payments' }));
    const [digest] = digests(many, { ...DEFAULT_NOTIFICATION_SETTINGS, maxFindingsPerDigest: 10 });
    expect(digest!.counts).toMatchObject({ new: 40, notListed: 30 });
    // Chat lists whole items while they fit (fewer than ten here) and counts the rest into "+N more".
    const description = digest!.message.content.description;
    const shown = description.split('\n').filter((line) => line.startsWith('• ')).length;
    expect(shown).toBeGreaterThan(0);
    expect(description).toContain(
      `+${40 - shown} more — \`driftwatch findings --owner payments --status new,changed,regressed\``,
    );
    expect(digest!.message.content.description.length).toBeLessThanOrEqual(3500);
    expect(Buffer.byteLength(JSON.stringify(digest!.message))).toBeLessThan(256 * 1024);
  });

  it('keeps an over-long description to whole items and counts the others into "+N more"', () => {
    const long = Array.from({ length: 40 }, () =>
      finding({ owner: 'payments', title: 'x'.repeat(400), drift: undefined }),
    );
    const [digest] = digests(long, { ...DEFAULT_NOTIFICATION_SETTINGS, maxFindingsPerDigest: 40 });
    const description = digest!.message.content.description;
    expect(description.length).toBeLessThanOrEqual(3000);
    const items = description.split('\n').filter((line) => line.startsWith('• '));
    const advice = description.split('\n').filter((line) => line.startsWith('    ↳ '));
    expect(advice).toHaveLength(items.length);
    expect(description).toMatch(
      new RegExp(
        `\\+${40 - items.length} more — \`driftwatch findings --owner payments --status new,changed,regressed\`$`,
      ),
    );
  });

  it('reminds of findings open a whole number of periods, on that day only', () => {
    const opened = (days: number) =>
      finding({ status: 'ongoing', firstSeenAt: new Date(now.getTime() - days * 86_400_000).toISOString() });
    const week = DEFAULT_NOTIFICATION_SETTINGS.remindEveryMs;
    expect([0, 6, 7, 8, 14, 15].map((days) => isReminderDue(opened(days), now, week))).toEqual([
      false,
      false,
      true,
      false,
      true,
      false,
    ]);
    expect(isReminderDue({ ...opened(7), status: 'suppressed' }, now, week)).toBe(false);
    const [digest] = digests([opened(7), opened(3)]);
    expect(digest!.counts.reminders).toBe(1);
    expect(digest!.message.content.description).toContain('*Still open (reminder every 7d)* (1)');
    expect(digest!.message.content.description).toContain('open 7d');
  });
});
