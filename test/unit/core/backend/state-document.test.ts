import { describe, expect, it } from 'vitest';
import { parseStatePrefix } from '../../../../functions/core/backend/state-document.js';

const LINEAGE = '18e7f7ad-7a57-645d-b67a-0252b6504865';
/** The first bytes of a state as Terraform 1.11 writes it (members in this order, two-space indent). */
const TERRAFORM_HEAD = `{\n  "version": 4,\n  "terraform_version": "1.11.4",\n  "serial": 12,\n  "lineage": "${LINEAGE}",\n  "outputs": {\n    "x": {\n      "value": "s3cr3t",\n`;
const TOTAL = 700 * 1024 * 1024;

describe('parseStatePrefix', () => {
  it("reads the header from the first bytes of a state in Terraform's layout", () => {
    expect(parseStatePrefix(TERRAFORM_HEAD, TOTAL, false)).toEqual({
      ok: true,
      header: { version: 4, serial: 12, lineage: LINEAGE, terraformVersion: '1.11.4' },
    });
  });

  it('asks for more, naming the fields, when the bytes end inside the header (a value cut short is not taken)', () => {
    const cut = TERRAFORM_HEAD.slice(0, TERRAFORM_HEAD.indexOf(LINEAGE) + 10);
    expect(parseStatePrefix(cut, TOTAL, false)).toMatchObject({
      ok: false,
      incomplete: true,
      missing: ['lineage'],
    });
    // `"serial": 1` cut from `"serial": 12`: the number may go on.
    const number = TERRAFORM_HEAD.slice(0, TERRAFORM_HEAD.indexOf('12') + 1);
    expect(parseStatePrefix(number, TOTAL, false)).toMatchObject({
      incomplete: true,
      missing: ['serial', 'lineage'],
    });
  });

  it('skips members before the header without building them (a huge single line)', () => {
    const line = `{"outputs":{"big":{"value":"${'x'.repeat(100_000)}","type":"string"}},"check_results":[{"a":"}]{["}],"version":4,"serial":3,"lineage":"${LINEAGE}","resources":[`;
    expect(parseStatePrefix(line, TOTAL, false)).toMatchObject({ ok: true, header: { serial: 3 } });
  });

  it('says why, never quoting content, when the first bytes are not a state', () => {
    const reason = (text: string) => {
      const parsed = parseStatePrefix(text, TOTAL, false);
      return parsed.ok ? 'ok' : parsed.reason;
    };
    expect(reason('\u001f\uFFFD\b\u0000secret')).toBe(
      'the state is gzip-compressed (Terraform writes plain JSON)',
    );
    expect(reason('\uFEFF{"version":4')).toMatch(/byte order mark/);
    expect(reason('password=hunter2 and more')).toBe(`the state is not JSON (${TOTAL} bytes)`);
    expect(reason('[1,2,3')).toBe('the state is not a JSON object');
    expect(reason('{"version":4 "serial":1')).toBe(`the state is not JSON (${TOTAL} bytes)`);
    // Terraform 0.11's format 3 has its header where format 4 has it: state, read as such.
    expect(reason('{"version":3,"serial":1,"lineage":"x","modules":[')).toBe('ok');
    expect(reason('{"version":2,"serial":1,"modules":[')).toMatch(
      /^no lineage, .* in state format 2 \(written by Terraform 0\.11/,
    );
    expect(reason(`{"version":"4","serial":1,"lineage":"${LINEAGE}",`)).toBe(
      'state format version is a JSON string, expected the number 4',
    );
    expect(reason(`{"version":4,"serial":"hunter2","lineage":"${LINEAGE}",`)).toBe(
      'serial is not a non-negative integer',
    );
    expect(reason(`{"version":4,"serial":1,"lineage":"${LINEAGE}","resources":{"a":`)).toBe(
      'resources is not a list',
    );
    for (const text of ['password=hunter2', '{"serial":"hunter2"'])
      expect(reason(text)).not.toContain('hunter2');
  });

  it("knows OpenTofu's encrypted state by its first members (encryption_version comes after all the data)", () => {
    const encrypted = `{"meta":{"key_provider.pbkdf2.main":"eyJzYWx0IjoiQUFBQSJ9"},"encrypted_data":"${'QUJD'.repeat(1000)}`;
    expect(parseStatePrefix(encrypted, TOTAL, false)).toEqual({ ok: true, encrypted: true });
  });

  it('a reordered state (jq -S) whose serial and version come after the resources is incomplete, not invalid', () => {
    const sorted = `{"check_results":null,"lineage":"${LINEAGE}","outputs":{},"resources":[{"mode":"managed","instances":[{"attributes":{"id":"a"}}]},`;
    expect(parseStatePrefix(sorted, TOTAL, false)).toMatchObject({
      ok: false,
      incomplete: true,
      missing: ['version', 'serial'],
      reason: expect.stringMatching(
        /^the state header \(version, serial\) is not within its first \d+ (MiB|KiB|bytes):/,
      ),
    });
  });

  it('a whole object is parsed whole: empty, truncated and valid states', () => {
    expect(parseStatePrefix('', 0, true)).toEqual({ ok: false, reason: 'the state is empty' });
    expect(parseStatePrefix('{"version":4,"serial":1', 23, true)).toMatchObject({ ok: false });
    expect(
      parseStatePrefix(`{"version":4,"serial":1,"lineage":"${LINEAGE}","resources":[]}`, 60, true),
    ).toMatchObject({
      ok: true,
      header: { serial: 1 },
    });
  });
});
