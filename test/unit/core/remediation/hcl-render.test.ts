import { describe, expect, it } from 'vitest';
import {
  attributeLines,
  commentLine,
  escapeHclText,
  hclInline,
  hclKey,
  hclString,
  inertText,
  layoutHcl,
  renderHclAttribute,
} from '../../../../functions/core/remediation/hcl-render.js';

describe('HCL values from plan JSON', () => {
  it('renders every JSON type', () => {
    expect(hclInline(null)).toBe('null');
    expect(hclInline(true)).toBe('true');
    expect(hclInline(false)).toBe('false');
    expect(hclInline(7200)).toBe('7200');
    expect(hclInline(-1.5)).toBe('-1.5');
    expect(hclInline(1e21)).toBe('1e+21');
    expect(hclInline(-0)).toBe('0');
    expect(hclInline('x')).toBe('"x"');
    expect(hclInline([])).toBe('[]');
    expect(hclInline({})).toBe('{}');
    expect(hclInline(['a', 1, null])).toBe('["a", 1, null]');
    expect(hclInline({ Owner: 'x', 'a.b': [true] })).toBe('{ Owner = "x", "a.b" = [true] }');
  });

  it('lays out lists, maps and nested values as terraform fmt does (aligned =, one member per line)', () => {
    expect(renderHclAttribute('tags', { Owner: 'payments', 'kubernetes.io/role': 'db', e: [], o: {} })).toBe(
      [
        'tags = {',
        '  Owner                = "payments"',
        '  "kubernetes.io/role" = "db"',
        '  e                    = []',
        '  o                    = {}',
        '}',
        '',
      ].join('\n'),
    );
    expect(renderHclAttribute('cidr_blocks', ['10.0.0.0/16', '0.0.0.0/0'])).toBe(
      'cidr_blocks = ["10.0.0.0/16", "0.0.0.0/0"]\n',
    );
    expect(renderHclAttribute('rules', [{ port: 22, cidrs: ['a'] }, [1, [2]]])).toBe(
      [
        'rules = [',
        '  {',
        '    port  = 22',
        '    cidrs = ["a"]',
        '  },',
        '  [',
        '    1,',
        '    [2],',
        '  ],',
        ']',
        '',
      ].join('\n'),
    );
  });

  it('a comment, a block header or a multi-line value ends a run of aligned = signs', () => {
    const text = layoutHcl([
      ...attributeLines(0, 'a', 1),
      ...attributeLines(0, 'longer', 2),
      commentLine(0, 'note'),
      ...attributeLines(0, 'b', 3),
      ...attributeLines(0, 'map', { k: 1 }),
      ...attributeLines(0, 'c', 4),
    ]);
    expect(text).toBe(
      ['a      = 1', 'longer = 2', '# note', 'b = 3', 'map = {', '  k = 1', '}', 'c = 4', ''].join('\n'),
    );
  });

  it('aligns by characters, not UTF-16 units (an emoji key is one column per emoji)', () => {
    expect(renderHclAttribute('m', { '😀': 1, ab: 2 })).toBe('m = {\n  "😀" = 1\n  ab  = 2\n}\n');
  });
});

describe('hostile strings', () => {
  it('escapes quotes, backslashes, line breaks and tabs', () => {
    expect(hclString('say "hi"\\ now\nnext\r\tend')).toBe('"say \\"hi\\"\\\\ now\\nnext\\r\\tend"');
  });

  it('doubles template sequences, so ${ and %{ stay literal text', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: HCL template syntax in data, not a JS template
    expect(escapeHclText('${var.secret}')).toBe('$${var.secret}');
    expect(escapeHclText('%{ if true }x%{ endif }')).toBe('%%{ if true }x%%{ endif }');
    // Already-doubled text keeps its meaning: each ${ is escaped once more.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: HCL template syntax in data, not a JS template
    expect(escapeHclText('$${x} %%{y}')).toBe('$$${x} %%%{y}');
    expect(escapeHclText('$ alone, % alone, {braces}')).toBe('$ alone, % alone, {braces}');
  });

  it('writes control, bidi and invisible characters as \\u escapes; other unicode stays', () => {
    const hostile = 'a\u0000b\u001bc\u007fd\u009be\u202ef\u2066g\u200bh\u2028i\ufeffj';
    const escaped = hclString(hostile);
    expect(escaped).toBe('"a\\u0000b\\u001bc\\u007fd\\u009be\\u202ef\\u2066g\\u200bh\\u2028i\\ufeffj"');
    expect([...escaped].filter((char) => inertText(char) !== char)).toEqual([]);
    expect(hclString('café 😀 日本')).toBe('"café 😀 日本"');
    // A lone surrogate cannot be held by Terraform: written as U+FFFD.
    expect(hclString('x\ud800y')).toBe('"x\\ufffdy"');
  });

  it('keys are bare identifiers, else quoted (and keywords are quoted)', () => {
    expect(hclKey('Owner')).toBe('Owner');
    expect(hclKey('cost-center')).toBe('cost-center');
    expect(hclKey('_x1')).toBe('_x1');
    expect(hclKey('1st')).toBe('"1st"');
    expect(hclKey('-x')).toBe('"-x"');
    expect(hclKey('kubernetes.io/role')).toBe('"kubernetes.io/role"');
    expect(hclKey('has space')).toBe('"has space"');
    expect(hclKey('')).toBe('""');
    expect(hclKey('null')).toBe('"null"');
    expect(hclKey('true')).toBe('"true"');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: HCL template syntax in data, not a JS template
    expect(hclKey('${x}')).toBe('"$${x}"');
    expect(hclKey('a"b')).toBe('"a\\"b"');
  });

  it('comments are one inert line whatever the data holds', () => {
    const line = layoutHcl([commentLine(1, 'path\nwith\u202e bidi and \u001b[31m escape')]);
    expect(line).toBe('  # path\\nwith\\u202e bidi and \\u001b[31m escape\n');
    expect(inertText('ok é')).toBe('ok é');
  });
});
