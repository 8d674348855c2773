import { describe, expect, it } from 'vitest';
import { renderFindingDetail } from '../../../../cli/finding-detail.js';
import { changeSummary, resourceLabel, shortValue } from '../../../../functions/core/findings/describe.js';
import type { Finding, JsonValue } from '../../../../functions/core/findings/model.js';
import { visibleValue } from '../../../../functions/core/text/sanitize.js';

/**
 * Two values that differ must never read the same where people read them: a table's WHAT CHANGED,
 * a digest line, `findings show`. Stripping what a terminal would act on made a value that gained
 * an escape sequence read `private → private`; a trailing or no-break space, a zero-width character,
 * a tab or a line break were as invisible. Each pair below differs only in such a character.
 */
const LOOK_ALIKES: [string, string, string][] = [
  ['an escape sequence', 'private', 'private\u001b[0m'],
  ['a bare ESC', 'private', 'private\u001b'],
  ['an 8-bit CSI', 'private', 'private\u009b0m'],
  ['a trailing space', 'private', 'private '],
  ['a leading space', 'private', ' private'],
  ['a doubled space', 'read only', 'read  only'],
  ['a no-break space', 'read only', 'read\u00a0only'],
  ['an ideographic space', 'read only', 'read\u3000only'],
  ['a tab', 'read only', 'read\tonly'],
  ['a line break', 'read only', 'read\nonly'],
  ['CRLF against LF', 'a\nb', 'a\r\nb'],
  ['a line separator', 'read only', 'read\u2028only'],
  ['a zero-width space', 'private', 'priv\u200bate'],
  ['a word joiner', 'private', 'priv\u2060ate'],
  ['a soft hyphen', 'private', 'priv\u00adate'],
  ['a byte order mark', 'private', '\ufeffprivate'],
  ['a bidi override', 'admin.exe', 'admin\u202e.exe'],
  ['an empty string against a space', '', ' '],
  ['a NUL', 'a', 'a\u0000'],
  ['DEL', 'a', 'a\u007f'],
];

/** Anything a reader cannot see or tell from a space (what visibleValue must write out). */
const INVISIBLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters.
  /[\u0000-\u001f\u007f-\u00a0\u00ad\u061c\u1680\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\ufeff]/;

function finding(before: JsonValue, after: JsonValue): Finding {
  return {
    kind: 'terraform-drift',
    ruleId: 'drift.update',
    severity: 'medium',
    workspace: 'w',
    resource: { address: 'aws_s3_bucket.x', type: 'aws_s3_bucket' },
    drift: { action: 'update', changes: [{ path: 'acl', before, after, sensitive: false }] },
    title: 'aws_s3_bucket.x changed outside Terraform: acl',
    detail: 'd',
    evidence: {},
    remediation: { summary: 's', steps: [] },
    id: 'a'.repeat(64),
    status: 'new',
    check: 'terraform',
    valueHash: 'v',
    scanId: 's',
    firstSeenAt: '2026-12-01T00:00:00.000Z',
    lastSeenAt: '2026-12-01T00:00:00.000Z',
  } as Finding;
}

/** The `before → after` part of `findings show`'s change line for acl. */
function detailChange(before: JsonValue, after: JsonValue): string {
  const text = renderFindingDetail(finding(before, after), [], new Date('2026-12-02T00:00:00Z'));
  const line = text.split('\n').find((row) => row.trimStart().startsWith('acl: '));
  if (line === undefined) throw new Error(`no change line in:\n${text}`);
  return line.trim();
}

describe('values that differ read differently', () => {
  it.each(LOOK_ALIKES)('%s', (_name, plain, altered) => {
    expect(visibleValue(plain)).not.toBe(visibleValue(altered));
    for (const shown of [visibleValue(altered), shortValue(altered, 40), detailChange(plain, altered)])
      expect(shown).not.toMatch(INVISIBLE);
    const [summaryBefore, summaryAfter] = changeSummary(finding(plain, altered)).slice(5).split(' → ');
    expect(summaryBefore).not.toBe(summaryAfter);
    const [detailBefore, detailAfter] = detailChange(plain, altered).slice(5).split(' → ');
    expect(detailBefore).not.toBe(detailAfter);
  });

  it('plain text is shown as it is; what is not plain as a quoted JSON string', () => {
    expect(visibleValue('private')).toBe('private');
    expect(visibleValue('read only')).toBe('read only');
    expect(visibleValue('café ☕ 東京')).toBe('café ☕ 東京');
    expect(visibleValue('private\u001b[0m')).toBe('"private\\u001b[0m"');
    expect(visibleValue('read\u00a0only')).toBe('"read\\u00a0only"');
    expect(visibleValue('admin\u202e.exe')).toBe('"admin\\u202e.exe"');
    expect(visibleValue('')).toBe('""');
    expect(visibleValue(null)).toBe('null');
    expect(visibleValue(22)).toBe('22');
    expect(visibleValue({ a: 'x\u200by' })).toBe('{"a":"x\\u200by"}');
    expect(changeSummary(finding('private', 'private\u001b[0m'))).toBe('acl: private → "private\\u001b[0m"');
  });

  it('a resource label that holds invisible characters is written out, never shown as another key', () => {
    const lock = (key: string) => resourceLabel({ workspace: 'w', resource: { bucket: 'b', key } });
    expect(lock('app/terraform.tfstate.tflock')).toBe('s3://b/app/terraform.tfstate.tflock');
    const hostile = lock('esc/\u001b[2J\u001b]0;x\u0007/terraform.tfstate.tflock');
    expect(hostile).toBe('"s3://b/esc/\\u001b[2J\\u001b]0;x\\u0007/terraform.tfstate.tflock"');
    expect(hostile).not.toMatch(INVISIBLE);
    expect(
      resourceLabel({
        workspace: 'w',
        resource: { address: 'aws_s3_bucket.x["a\u202eb"]', type: 'aws_s3_bucket' },
      }),
    ).toBe('"aws_s3_bucket.x[\\"a\\u202eb\\"]"');
  });

  it('a long value is cut with an ellipsis, never inside a character pair', () => {
    const shown = shortValue(`${'x'.repeat(38)}😀😀`, 40);
    expect(shown).toBe(`${'x'.repeat(38)}…`);
  });
});
