import { describe, expect, it } from 'vitest';
import {
  chatCode,
  escapeForChat,
  escapeJsonText,
  jsonForTerminal,
  limitText,
  REPLACEMENT,
  stripForTerminal,
} from '../../../../functions/core/text/sanitize.js';

/** Anything a terminal acts on: ESC, 8-bit C1, other controls, bidi controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters.
const ACTIVE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('stripForTerminal', () => {
  it.each([
    ['a colour', 'red\u001b[31mALERT\u001b[0m', 'redALERT'],
    ['a cursor move and a screen clear', 'x\u001b[2J\u001b[1;1Hy', 'xy'],
    ['an 8-bit CSI', 'x\u009b31my', 'xy'],
    ['an OSC 8 hyperlink ended by BEL', '\u001b]8;;http://x\u0007click\u001b]8;;\u0007', 'click'],
    ['a window title ended by ST', 'a\u001b]0;pwned\u001b\\b', 'ab'],
    ['an unterminated OSC (to the end)', 'a\u001b]52;c;ZXZpbA==', 'a'],
    ['a DCS string', 'a\u001bPq#0;2;0;0;0\u001b\\b', 'ab'],
    ['a lone ESC sequence (reset)', 'a\u001bcb', 'ab'],
  ])('removes %s whole', (_name, input, expected) => {
    expect(stripForTerminal(input)).toBe(expected);
  });

  it('shows every other control and bidi control as U+FFFD, so altered data looks altered', () => {
    const input = 'a\rb\u0007c\u0000d\u007fe\u0085f\u202eg\u2066h\u200fi\u061cj';
    const output = stripForTerminal(input);
    expect(output).toBe(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join(REPLACEMENT));
    expect(output).not.toMatch(ACTIVE);
  });

  it('keeps text on one line unless asked for several', () => {
    expect(stripForTerminal('a\nb\r\nc\td\u2028e')).toBe('a b c d e');
    expect(stripForTerminal('a\nb\r\nc\td\u2028e', { multiline: true })).toBe('a\nb\nc\td\ne');
  });

  it('leaves ordinary text alone, wide characters and emoji included', () => {
    const text = 'aws_s3_bucket.ledger["ünïcødé 日本 👩‍👩‍👧"]: a → b';
    expect(stripForTerminal(text)).toBe(text);
  });
});

describe('JSON for a terminal', () => {
  it('escapes what JSON.stringify leaves raw, and stays the same data', () => {
    const value = { title: 'a\u202eb\u009b31mc\u0085d\u2028e\u007f', plain: 'ok "x"\n' };
    const text = jsonForTerminal(value);
    expect(JSON.stringify(value, null, 2)).toMatch(ACTIVE);
    expect(text).not.toMatch(ACTIVE);
    expect(text).toContain('\\u202e');
    expect(text).toContain('\\u009b');
    expect(JSON.parse(text)).toEqual(value);
    expect(escapeJsonText(JSON.stringify(value))).not.toMatch(ACTIVE);
  });
});

describe('escapeForChat', () => {
  it.each([
    ['<!channel>'],
    ['<!here>'],
    ['<!everyone>'],
    ['<@U12345>'],
    ['<#C12345|general>'],
    ['<!subteam^S123>'],
    ['<https://evil.example|click here>'],
    ['<at>Alice</at>'],
  ])('cannot form %s', (input) => {
    const output = escapeForChat(`before ${input} after`);
    expect(output).not.toContain('<');
    expect(output).not.toContain('>');
    expect(output).toContain('&lt;');
  });

  it('escapes & so existing entities show as written', () => {
    expect(escapeForChat('a &amp; b & c')).toBe('a &amp;amp; b &amp; c');
  });

  it('breaks plain @-mentions but not e-mail addresses', () => {
    const output = escapeForChat('@channel @here hi @alice, mail bob@example.com');
    expect(output).not.toMatch(/(^|\s)@(channel|here|alice)/);
    expect(output).toContain('@\u200Bchannel');
    expect(output).toContain('bob@example.com');
  });

  it('breaks markdown links whose target hides behind their text', () => {
    const output = escapeForChat('[click](https://evil.example) ![i](https://evil.example/x.png)');
    expect(output).not.toMatch(/\]\(/);
  });

  it('keeps data on its line and out of our code spans', () => {
    expect(escapeForChat('a\n*New* (1)\n• fake')).not.toContain('\n');
    expect(chatCode('x` <!channel> `y')).toMatch(/^`[^`]*`$/);
  });

  it('removes terminal controls and bidi controls too (mail and chat clients show them raw)', () => {
    expect(escapeForChat('a\u001b[31mb\u202ec')).not.toMatch(ACTIVE);
  });
});

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe('limitText', () => {
  it('leaves short text alone and cuts long text to the limit, with an ellipsis', () => {
    expect(limitText('short', 10)).toBe('short');
    const cut = limitText('x'.repeat(500), 100);
    expect(cut).toHaveLength(100);
    expect(cut.endsWith('…')).toBe(true);
  });

  it('never splits a character: no lone surrogate, no half of a joined emoji', () => {
    const family = '👩‍👩‍👧';
    for (let max = 2; max < 30; max++) {
      const cut = limitText(`ab${family.repeat(5)}`, max);
      expect(cut.length).toBeLessThanOrEqual(max);
      expect(cut).not.toMatch(LONE_SURROGATE);
      expect(cut.replace(/…$/, '').replace(/^ab?/, '').replaceAll(family, '')).toBe('');
    }
  });

  it('never cuts inside an escape, which would leave a bare &', () => {
    const escaped = escapeForChat('<'.repeat(100));
    for (let max = 5; max < 30; max++) {
      expect(limitText(escaped, max)).toMatch(/^(&lt;)*…$/);
    }
  });
});
