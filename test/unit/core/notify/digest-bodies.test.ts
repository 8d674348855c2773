import { describe, expect, it } from 'vitest';
import { deliveredBodies, messagesOf } from '../../../../functions/adapters/sns-publisher.js';
import type { Finding } from '../../../../functions/core/findings/model.js';
import {
  buildDigests,
  type ChatbotNotification,
  type Digest,
} from '../../../../functions/core/notify/digest.js';
import {
  DIGEST_DOCUMENT_SCHEMA,
  type DigestDocument,
} from '../../../../functions/core/notify/digest-document.js';
import { DEFAULT_NOTIFICATION_SETTINGS } from '../../../../functions/core/registry/model.js';
import { driftDraft, storedFinding } from '../../../helpers/findings.js';

/**
 * What each kind of destination receives of one digest, from the messages the publisher gives
 * SNS: chat (the structure's `default`), e-mail (its `email`) and SQS/HTTPS (the finding list).
 */
const now = new Date('2026-11-29T02:30:00Z');
const SECRET = 'CANARY-digest-bodies-7f3a9c';
const id = (digit: string) => digit.repeat(64);

function findings(): Finding[] {
  return [
    storedFinding(
      {
        id: id('a'),
        severity: 'critical',
        detail: `the group was opened; the plan also held ${SECRET}`,
        evidence: {
          severityReasons: ['open-ingress: security group ingress opened to 0.0.0.0/0 or ::/0: critical'],
          planned: SECRET,
        },
      },
      driftDraft({
        resource: { address: 'aws_security_group.edge', type: 'aws_security_group' },
        drift: {
          action: 'update',
          changes: [
            {
              path: 'ingress',
              before: [{ cidr_blocks: ['10.0.0.0/16'], from_port: 443 }],
              after: [{ cidr_blocks: ['0.0.0.0/0'], from_port: 22 }],
              sensitive: false,
            },
          ],
        },
        title: 'aws_security_group.edge changed outside Terraform: ingress',
      }),
    ),
    storedFinding({ id: id('b'), severity: 'low' }, driftDraft()),
    storedFinding(
      { id: id('c'), severity: 'high', status: 'changed' },
      driftDraft({
        ruleId: 'drift.update',
        resource: { address: 'aws_db_instance.main', type: 'aws_db_instance' },
        drift: {
          action: 'update',
          changes: [
            {
              path: 'password',
              before: '(sensitive:1a2b3c4d)',
              after: '(sensitive:5e6f7a8b)',
              sensitive: true,
            },
          ],
        },
        title: 'aws_db_instance.main changed outside Terraform: password',
        remediation: { summary: 'Decide whether to revert or adopt: password.', steps: [SECRET] },
      }),
    ),
    storedFinding(
      { id: id('d'), severity: 'high' },
      driftDraft({
        kind: 'stale-lock',
        ruleId: 'lock.stale',
        resource: { bucket: 'tfstate', key: 'payments.tfstate', lockId: '5f7c-11ee' },
        drift: undefined,
        title: 'Stale lock on s3://tfstate/payments.tfstate held by ci@runner-7',
        evidence: { holder: 'ci@runner-7', lockId: '5f7c-11ee' },
        remediation: {
          summary:
            'Confirm the holder is gone, then run terraform force-unlock 5f7c-11ee from the workspace, then a fresh plan.',
          steps: [
            "From that workspace's configuration (backend s3://tfstate/payments.tfstate), release the lock:\nterraform force-unlock 5f7c-11ee",
          ],
        },
      }),
    ),
    storedFinding(
      { id: id('e'), status: 'resolved' },
      driftDraft({ resource: { address: 'aws_iam_role.ci', type: 'aws_iam_role' } }),
    ),
  ];
}

function digestOf(list: Finding[], options: { reportUrl?: string; max?: number } = {}): Digest {
  const [digest] = buildDigests({
    scanId: 'scan-1',
    now,
    findings: list,
    fallbackOwner: 'platform',
    settings: { ...DEFAULT_NOTIFICATION_SETTINGS, maxFindingsPerDigest: options.max ?? 15 },
    store: 's3://driftwatch-findings-1234',
    regions: { 'payments-prod': 'eu-west-1' },
    ...(options.reportUrl ? { reportUrls: { payments: options.reportUrl } } : {}),
  });
  return digest!;
}

describe('the bodies of one digest, per destination', () => {
  const digest = digestOf(findings());
  const bodies = deliveredBodies(digest);

  it('chat: a Chatbot custom notification of the shape used today, with the id, advice and commands per item', () => {
    const chat = JSON.parse(bodies.chat) as ChatbotNotification;
    expect(chat).toEqual({
      version: '1.0',
      source: 'custom',
      id: 'scan-1.payments',
      content: {
        textType: 'client-markdown',
        title: expect.any(String),
        description: expect.any(String),
        nextSteps: expect.any(Array),
        keywords: expect.any(Array),
      },
      metadata: {
        threadId: 'driftwatch-payments-payments-prod',
        summary: 'driftwatch for payments: 3 new, 1 changed, 1 resolved',
        eventType: 'DriftwatchDigest',
        relatedResources: expect.any(Array),
        additionalContext: expect.objectContaining({ digestId: 'scan-1.payments' }),
      },
    });
    const { description } = chat.content;
    expect(description).toContain('id `aaaaaaaaaaaa`');
    expect(description).toContain('↳ Close it now: aws_security_group.edge lets the whole internet in');
    expect(description).toContain(
      '`aws cloudtrail lookup-events --region eu-west-1 --lookup-attributes AttributeKey=ResourceName,AttributeValue=GROUP_ID` · `driftwatch findings show aaaaaaaaaaaa --store s3://driftwatch-findings-1234` · `driftwatch remediate aaaaaaaaaaaa --revert --store s3://driftwatch-findings-1234`',
    );
    expect(description).toContain('↳ At the next change: only tags changed on aws_s3_bucket.ledger');
    expect(description).toContain(
      '`terraform force-unlock 5f7c-11ee` · `driftwatch findings show dddddddddddd --store',
    );
    // A lock has no revert or adopt: no remediate command for it.
    expect(description).not.toContain('driftwatch remediate dddddddddddd');
  });

  it('e-mail: readable plain text with a subject, no chat markup and no JSON', () => {
    expect(digest.email!.subject).toBe('driftwatch for payments: 3 new, 1 changed, 1 resolved');
    const text = bodies.email;
    expect(text).not.toMatch(/[*<{`]/);
    expect(text).not.toMatch(/:[a-z_]+_circle:|&lt;|&amp;/);
    expect(() => JSON.parse(text)).toThrow();
    expect(text).toContain(
      [
        '[CRITICAL] aws_security_group.edge in payments-prod (prod)',
        '  What: ingress (a structured value: the finding shows it)',
        '  Rule: drift.update. Finding aaaaaaaaaaaa',
      ].join('\n'),
    );
    expect(text).toContain(
      [
        '    aws cloudtrail lookup-events --region eu-west-1 --lookup-attributes AttributeKey=ResourceName,AttributeValue=GROUP_ID',
        '  Go further:',
        '    driftwatch findings show aaaaaaaaaaaa --store s3://driftwatch-findings-1234',
        '    driftwatch remediate aaaaaaaaaaaa --revert --store s3://driftwatch-findings-1234',
      ].join('\n'),
    );
    expect(text).toContain('    terraform force-unlock 5f7c-11ee');
    expect(text).toContain('RESOLVED: 1\n  - aws_iam_role.ci in payments-prod (eeeeeeeeeeee)');
  });

  it('SQS and HTTPS: the finding list, driftwatch.digest/v1', () => {
    const document = JSON.parse(bodies.machines!) as DigestDocument;
    expect(document).toEqual(digest.document);
    expect(document).toMatchObject({
      schema: DIGEST_DOCUMENT_SCHEMA,
      digestId: 'scan-1.payments',
      owner: 'payments',
      scanId: 'scan-1',
      severity: 'critical',
      counts: { new: 3, changed: 1, regressed: 0, resolved: 1, reminders: 0, notListed: 0 },
      resolved: [
        { id: id('e'), shortId: 'eeeeeeeeeeee', resource: 'aws_iam_role.ci', workspace: 'payments-prod' },
      ],
    });
    expect(document.more).toBeUndefined();
    expect(
      document.items.map((item) => [item.shortId, item.section, item.severity, item.advice.source]),
    ).toEqual([
      ['aaaaaaaaaaaa', 'new', 'critical', 'content:open-ingress'],
      ['dddddddddddd', 'new', 'high', 'rule:lock.stale'],
      ['bbbbbbbbbbbb', 'new', 'low', 'kind:terraform-drift'],
      ['cccccccccccc', 'changed', 'high', 'kind:terraform-drift'],
    ]);
    for (const item of document.items) {
      expect(Object.keys(item).sort()).toEqual(
        [
          'advice',
          'commands',
          'environment',
          'id',
          'kind',
          'openDays',
          'resource',
          'ruleId',
          'section',
          'severity',
          'shortId',
          'title',
          'what',
          'whatInWords',
          'workspace',
        ].sort(),
      );
      expect(item.commands[0]).toBe(
        `driftwatch findings show ${item.shortId} --store s3://driftwatch-findings-1234`,
      );
    }
  });

  it('carries no secret in any body (detail, evidence and remediation steps are not message content)', () => {
    for (const body of [bodies.chat, bodies.email, bodies.machines!]) expect(body).not.toContain(SECRET);
  });

  it('adds the owner report link to every body when there is one', () => {
    const url =
      'https://findings.s3.eu-west-1.amazonaws.com/reports/payments.html?X-Amz-Signature=ab&X-Amz-Expires=604800';
    const linked = deliveredBodies(digestOf(findings(), { reportUrl: url }));
    const chat = JSON.parse(linked.chat) as ChatbotNotification;
    expect(chat.content.nextSteps[0]).toBe(`Report: ${url.replaceAll('&', '&amp;')}`);
    expect(linked.email).toContain(`\nReport: ${url}\n`);
    expect((JSON.parse(linked.machines!) as DigestDocument).reportUrl).toBe(url);
    expect(bodies.email).not.toContain('Report:');
  });

  it('lists at most the configured number of items everywhere and gives a "+N more" command', () => {
    const limited = digestOf(findings(), { max: 2 });
    const more =
      'driftwatch findings --store s3://driftwatch-findings-1234 --owner payments --status new,changed,regressed';
    const chat = JSON.parse(deliveredBodies(limited).chat) as ChatbotNotification;
    expect(chat.content.description).toContain(`+2 more — \`${more}\``);
    expect(deliveredBodies(limited).email).toContain(
      `2 more not listed here. All of them, with the ones above:\n    ${more}`,
    );
    expect(limited.document!.more).toEqual({ count: 2, command: more, exact: true });
    expect(limited.document!.items).toHaveLength(2);
  });

  it('with reminders among the items, "+N more" lists every open finding of the owner and says so', () => {
    const weekOld = new Date(now.getTime() - 7 * 86_400_000).toISOString();
    const reminded = storedFinding({ id: id('f'), status: 'ongoing', firstSeenAt: weekOld }, driftDraft());
    const limited = digestOf([...findings(), reminded], { max: 2 });
    const more = 'driftwatch findings --store s3://driftwatch-findings-1234 --owner payments';
    expect(limited.counts.reminders).toBe(1);
    expect(limited.document!.more).toEqual({ count: 3, command: more, exact: false });
    expect(deliveredBodies(limited).email).toContain(
      `3 more not listed here. Every open finding of the owner, these among them:\n    ${more}\n`,
    );
  });

  /** Findings of one owner, numbered from `from` (ids unique across a variant). */
  const numbered = (count: number, make: (index: number) => Partial<Finding>, from = 0) =>
    Array.from({ length: count }, (_, index) =>
      storedFinding(
        { id: (from + index).toString(16).padStart(64, '7'), ...make(from + index) },
        driftDraft(),
      ),
    );
  const MEGABYTE = 'x'.repeat(1024 * 1024);
  const QUOTES = '"\\'.repeat(400);
  const WIDE = '漢"'.repeat(400);
  const address = (index: number, text: string) => ({
    resource: { address: `aws_s3_bucket.b["${index}${text}"]`, type: 'aws_s3_bucket' },
  });
  const SIZE_VARIANTS: Array<[string, Finding[]]> = [
    [
      '3000 long findings',
      numbered(3000, (index) => ({ title: 't'.repeat(2000), ...address(index, 'x'.repeat(150)) })),
    ],
    [
      '3000 resolved findings',
      [
        ...numbered(3000, (index) => ({ status: 'resolved', ...address(index, 'x'.repeat(150)) })),
        ...numbered(2, () => ({}), 3000),
      ],
    ],
    [
      'a 1 MB title first',
      [
        ...numbered(1, () => ({ severity: 'critical', title: MEGABYTE, drift: undefined })),
        ...numbered(5, () => ({}), 1),
      ],
    ],
    [
      'a 1 MB address first',
      [
        ...numbered(1, (index) => ({ severity: 'critical', ...address(index, MEGABYTE) })),
        ...numbered(5, () => ({}), 1),
      ],
    ],
    [
      'a 1 MB remediation first',
      [
        ...numbered(1, () => ({
          severity: 'critical',
          ruleId: 'drift.replace',
          remediation: { summary: MEGABYTE, steps: [] },
        })),
        ...numbered(5, () => ({}), 1),
      ],
    ],
    [
      // Subscriptions filter on the environment attribute, which no body's budget covers.
      'a 1 MB environment, and 3000 distinct ones',
      [
        ...numbered(1, () => ({ environment: MEGABYTE })),
        ...numbered(3000, (index) => ({ environment: `env-${index}-${'e'.repeat(100)}` }), 1),
      ],
    ],
    [
      '1000 findings of quotes and backslashes',
      numbered(1000, (index) => ({
        title: QUOTES,
        ...address(index, QUOTES),
        remediation: { summary: QUOTES, steps: [] },
      })),
    ],
    [
      '1000 findings of wide characters',
      numbered(1000, (index) => ({
        title: WIDE,
        ...address(index, WIDE),
        remediation: { summary: WIDE, steps: [] },
      })),
    ],
  ];

  it('keeps the environments subscriptions filter on when one recorded environment is too long to send', () => {
    const [big] = numbered(1, () => ({ environment: MEGABYTE }), 9000);
    const digest = digestOf([big!, ...numbered(2, () => ({ environment: 'prod' }), 9001)], { max: 10 });
    expect(digest.attributes.environment).toEqual(['prod']);
  });

  it.each(SIZE_VARIANTS)('%s: every message fits SNS (256 KiB) and says what it left out', (_name, all) => {
    const big = digestOf(all, { max: 10_000 });
    for (const { entry } of messagesOf(big)) {
      const attributes = Object.entries(entry.MessageAttributes ?? {}).map(
        ([name, value]) => name + value.StringValue,
      );
      const bytes = [entry.Message!, entry.Subject!, ...attributes].reduce(
        (sum, text) => sum + Buffer.byteLength(text),
        0,
      );
      expect(bytes).toBeLessThan(256 * 1024);
    }
    const { email, machines } = deliveredBodies(big);
    const reported = big.counts.new + big.counts.changed + big.counts.regressed + big.counts.reminders;
    const document = JSON.parse(machines!) as DigestDocument;
    expect(document.items.length + (document.more?.count ?? 0)).toBe(reported);
    expect(document.resolved.length + (document.resolvedNotListed ?? 0)).toBe(big.counts.resolved);
    // One long value takes its own room, not the others': a short digest is listed whole.
    if (reported <= 6) expect(document.items).toHaveLength(reported);
    const emailed = email.match(/^\[[A-Z]+\] /gm)?.length ?? 0;
    if (emailed < reported) expect(email).toContain(`${reported - emailed} more not listed here`);
  });
});

describe('the remediate command of a digest item', () => {
  it('is proposed with --revert, and only where a revert applies (not to a failed check or a refactor)', () => {
    const applies = storedFinding({ id: id('1'), severity: 'high' }, driftDraft());
    const check = storedFinding(
      { id: id('2'), severity: 'medium' },
      driftDraft({ ruleId: 'drift.check-failed', resource: { address: 'check.cert', type: 'check' } }),
    );
    const moved = storedFinding(
      { id: id('3'), severity: 'low' },
      driftDraft({
        ruleId: 'drift.moved',
        resource: { address: 'aws_s3_bucket.new', type: 'aws_s3_bucket' },
      }),
    );
    const items = digestOf([applies, check, moved]).document!.items;
    const remediations = (digit: string) =>
      items
        .find((item) => item.id === id(digit))!
        .commands.filter((command) => command.startsWith('driftwatch remediate'));
    expect(remediations('1')).toEqual([
      'driftwatch remediate 111111111111 --revert --store s3://driftwatch-findings-1234',
    ]);
    expect(remediations('2')).toEqual([]);
    expect(remediations('3')).toEqual([]);
  });
});
