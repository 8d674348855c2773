import { describe, expect, it } from 'vitest';
import { deliveredBodies } from '../../../../functions/adapters/sns-publisher.js';
import type { Finding } from '../../../../functions/core/findings/model.js';
import { buildDigests, DIGEST_LIMITS, type Digest } from '../../../../functions/core/notify/digest.js';
import { DEFAULT_NOTIFICATION_SETTINGS } from '../../../../functions/core/registry/model.js';
import { storedFinding } from '../../../helpers/findings.js';

/** Digests built from findings whose data was written by someone who wants to abuse the channel. */
const now = new Date('2026-11-29T02:30:00Z');
const HOSTILE = [
  '<!channel>',
  '<!here>',
  '<!everyone>',
  '<@U12345>',
  '<#C12345>',
  '<https://evil.example|click>',
  '[click](https://evil.example)',
  '&amp;',
  '@channel',
  '\u001b[31m',
  '\u001b]8;;http://x\u0007',
  '\u202e',
  '\u2066',
  '\u009b',
  '\r\n*New* (1)\n• fake line',
].join(' ');
const LONG = `${HOSTILE} ${'y'.repeat(20_000)}`;

const finding = (overrides: Partial<Finding> = {}) => storedFinding(overrides);

const hostileFindings = (): Finding[] => [
  finding({
    severity: 'critical',
    environment: `prod ${HOSTILE}`,
    resource: { address: `aws_s3_bucket.x["${HOSTILE}"]`, type: 'aws_s3_bucket' },
    drift: {
      action: 'update',
      changes: [
        { path: `tags.${HOSTILE}`, before: HOSTILE, after: LONG, sensitive: false },
        { path: 'policy', before: null, after: { Statement: HOSTILE }, sensitive: false },
      ],
    },
  }),
  finding({
    resource: { address: LONG, type: 'aws_s3_bucket' },
    drift: { action: 'delete', changes: [] },
  }),
  finding({
    kind: 'stale-lock',
    ruleId: 'lock.stale',
    severity: 'high',
    resource: { bucket: `tfstate ${HOSTILE}`, key: `payments/${HOSTILE}.tfstate` },
    drift: undefined,
    title: `Stale lock held by ${HOSTILE}`,
    remediation: {
      summary: `Confirm ${HOSTILE} is gone, then terraform force-unlock ${LONG}`,
      steps: [],
    },
  }),
  finding({ kind: 'scan-failed', ruleId: 'scan.plan-errored', drift: undefined, title: LONG }),
  finding({ status: 'resolved', resource: { address: `aws_iam_role.${HOSTILE}`, type: 'aws_iam_role' } }),
];

function build(findings: Finding[]): Digest {
  const [digest] = buildDigests({
    scanId: 'scan-1',
    now,
    findings,
    fallbackOwner: 'platform',
    settings: DEFAULT_NOTIFICATION_SETTINGS,
  });
  return digest!;
}

/** Every string a chat client or a mail reader may show. */
function shown(digest: Digest): string[] {
  const { content, metadata } = digest.message;
  return [
    content.title,
    content.description,
    ...content.nextSteps,
    ...content.keywords,
    metadata.summary,
    ...metadata.relatedResources,
    ...Object.values(metadata.additionalContext),
  ];
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters.
const ACTIVE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('a digest of hostile data', () => {
  const digest = build(hostileFindings());

  it('lists the findings (the data is shown, not dropped)', () => {
    expect(digest.counts).toMatchObject({ new: 4, resolved: 1 });
    expect(digest.message.content.description).toContain('&lt;!channel&gt;');
    expect(digest.message.content.description).toContain('*New* (4)');
  });

  it('contains no mention, no link and no markup that data could form', () => {
    for (const text of shown(digest)) {
      // Our own markup never uses angle brackets: every one would be data's.
      expect(text).not.toMatch(/[<>]/);
      expect(text).not.toMatch(/&(?!amp;|lt;|gt;)/);
      expect(text).not.toMatch(/(^|\s)@(channel|here|everyone)\b/);
      expect(text).not.toMatch(/\]\(https?:/);
    }
    expect(digest.message.content.description).toContain('&amp;amp;');
  });

  it('contains no terminal controls or bidi controls, and data starts no line of its own', () => {
    for (const text of shown(digest)) expect(text.replaceAll('\n', '')).not.toMatch(ACTIVE);
    const lines = digest.message.content.description.split('\n');
    expect(lines.filter((line) => line.startsWith('*New*'))).toHaveLength(1);
    expect(lines.some((line) => line.startsWith('• fake'))).toBe(false);
  });

  it('keeps every field within its limit', () => {
    const { content, metadata } = digest.message;
    expect(content.title.length).toBeLessThanOrEqual(DIGEST_LIMITS.title);
    expect(content.description.length).toBeLessThanOrEqual(DIGEST_LIMITS.description);
    expect(content.nextSteps.length).toBeLessThanOrEqual(DIGEST_LIMITS.nextSteps);
    for (const step of content.nextSteps) expect(step.length).toBeLessThanOrEqual(DIGEST_LIMITS.nextStep);
    for (const keyword of content.keywords) expect(keyword.length).toBeLessThanOrEqual(DIGEST_LIMITS.keyword);
    expect(metadata.summary.length).toBeLessThanOrEqual(DIGEST_LIMITS.summary);
    for (const resource of metadata.relatedResources)
      expect(resource.length).toBeLessThanOrEqual(DIGEST_LIMITS.relatedResource);
    // Every finding still has a line: long data is cut per piece, not by dropping whole findings.
    expect(content.description).not.toContain('… — `driftwatch findings');
  });

  it('e-mail: data is plain text on its own lines, no controls, no bidi, and starts no line of ours', () => {
    const { subject, text } = digest.email!;
    expect(subject).toMatch(/^[\x20-\x7e]{1,99}$/);
    expect(text.replaceAll('\n', '')).not.toMatch(ACTIVE);
    const lines = text.split('\n');
    expect(lines.some((line) => line.startsWith('• fake') || line.startsWith('*New*'))).toBe(false);
    expect(lines.filter((line) => line.startsWith('NEW: '))).toEqual(['NEW: 4']);
    // Shown as it is (a mail client renders no markup), not escaped for chat.
    expect(text).toContain('<!channel>');
    expect(text).not.toContain('&lt;');
  });

  it('SQS/HTTPS: the finding list holds the data with no controls, and its body is inert on a terminal', () => {
    const body = deliveredBodies(digest).machines!;
    expect(body.replaceAll('\n', '')).not.toMatch(ACTIVE);
    const strings: string[] = [];
    JSON.parse(body, (_key, value) => {
      if (typeof value === 'string') strings.push(value);
      return value;
    });
    expect(strings.some((value) => value.includes('<!channel>'))).toBe(true);
    for (const value of strings) expect(value).not.toMatch(ACTIVE);
  });

  it('stays within the limits however many long findings there are', () => {
    const many = build(
      Array.from({ length: 60 }, () =>
        finding({ title: LONG, drift: undefined, resource: { address: LONG, type: 'aws_s3_bucket' } }),
      ),
    );
    expect(many.message.content.description.length).toBeLessThanOrEqual(DIGEST_LIMITS.description);
    for (const text of shown(many)) expect(text).not.toMatch(/[<>]/);
  });
});
