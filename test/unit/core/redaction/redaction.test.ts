import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  createSensitiveHasher,
  isSensitiveName,
  REDACTED,
  redactText,
  SENSITIVE_MARKER,
} from '../../../../functions/core/redaction/secrets.js';
import { summarizeTerraformErrors } from '../../../../functions/core/redaction/terraform-diagnostics.js';

describe('sensitive value hashing', () => {
  const hash = createSensitiveHasher('a-salt-of-sixteen-chars');
  it('hides the value and shows whether it changed', () => {
    expect(hash('hunter2')).toMatch(SENSITIVE_MARKER);
    expect(hash('hunter2')).toBe(hash('hunter2'));
    expect(hash('hunter3')).not.toBe(hash('hunter2'));
    expect(hash({ b: 1, a: 2 })).toBe(hash({ a: 2, b: 1 }));
  });
  it('depends on the salt, so hashes cannot be looked up in a table made elsewhere', () => {
    expect(createSensitiveHasher('another-salt-sixteen!')('hunter2')).not.toBe(hash('hunter2'));
  });
  it('refuses a short salt', () => {
    expect(() => createSensitiveHasher('short')).toThrow(/at least 16/);
  });
  it('canonical JSON sorts keys at every depth', () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[{"c":2,"d":1}]}');
  });
  it('canonical JSON is the same text whether a subtree is already sorted or not', () => {
    // Sorted subtrees are serialised natively (JSON.stringify); the text must be the recursive form's.
    expect(canonicalJson({ a: { b: 1, c: [true, 'x', null] }, d: 2.5 })).toBe(
      '{"a":{"b":1,"c":[true,"x",null]},"d":2.5}',
    );
    // Integer-like keys come first in property order but sort as text: "10" before "9".
    expect(canonicalJson({ 9: 'a', 10: 'b' })).toBe('{"10":"b","9":"a"}');
    // Where JSON.stringify would differ from the recursive form, the recursive form is kept.
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"a":null,"b":1}');
    expect(canonicalJson([undefined, 1])).toBe('[null,1]');
    expect(canonicalJson({ a: new Date(0) })).toBe('{"a":{}}');
    expect(canonicalJson({ a: () => 1 })).toBe('{"a":null}');
    expect(canonicalJson({ a: Number.NaN, b: -0 })).toBe('{"a":null,"b":0}');
    const bare = Object.create(null) as Record<string, unknown>;
    bare.b = 1;
    bare.a = { d: 'é\u2028', c: 0 };
    expect(canonicalJson(bare)).toBe('{"a":{"c":0,"d":"é\u2028"},"b":1}');
    expect(canonicalJson(undefined)).toBe('null');
    // A copy cannot hold `__proto__` as a key, nor put "9" after "10": the recursive form does.
    expect(canonicalJson(JSON.parse('{"b":1,"__proto__":{"y":1,"x":2}}'))).toBe(
      '{"__proto__":{"x":2,"y":1},"b":1}',
    );
    expect(canonicalJson({ b: { 9: 'a', 10: 'b' }, a: 1 })).toBe('{"a":1,"b":{"10":"b","9":"a"}}');
    // Holes are written as nothing, as the recursive form always wrote them.
    // biome-ignore lint/suspicious/noSparseArray: the hole is the case under test
    expect(canonicalJson({ b: [1, , 2], a: 0 })).toBe('{"a":0,"b":[1,,2]}');
    // Deeper than a plan value may nest: still canonical, through the recursive form.
    let deep: unknown = { b: 1, a: 2 };
    for (let level = 0; level < 300; level++) deep = { x: deep };
    expect(canonicalJson(deep)).toBe(`${'{"x":'.repeat(300)}{"a":2,"b":1}${'}'.repeat(300)}`);
  });
});

describe('canonical JSON against the recursive definition', () => {
  /** The definition: keys sorted at every level, built recursively (what the hashes were made with). */
  function reference(value: unknown): string {
    if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
    if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
    const entries = Object.keys(value as object)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${reference((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  /** A small deterministic generator (xorshift), so a failure reproduces. */
  function generator(seed: number) {
    let state = seed;
    const next = () => {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      return (state >>> 0) / 4294967296;
    };
    const keys = ['a', 'b', 'Z', '_x', '10', '9', '0', 'é', 'key with space', 'toJSON', 'path', 'after'];
    const scalar = () =>
      [null, true, false, 0, -1.5, 1e21, Number.NaN, 'text', '\u2028', undefined][Math.floor(next() * 10)];
    const value = (depth: number): unknown => {
      const pick = next();
      if (depth > 3 || pick < 0.4) return scalar();
      if (pick < 0.65) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
      const object: Record<string, unknown> = {};
      for (let count = Math.floor(next() * 5); count > 0; count--)
        object[keys[Math.floor(next() * keys.length)]!] = value(depth + 1);
      return object;
    };
    return value;
  }
  it('gives the same text for generated values (key orders, integer-like keys, undefined, NaN)', () => {
    const value = generator(0x5eed);
    for (let round = 0; round < 5000; round++) {
      const sample = value(0);
      expect(canonicalJson(sample)).toBe(reference(sample));
    }
  });
});

describe('secret names', () => {
  it.each([
    'password',
    'master_password',
    'db_passwd',
    'client_secret',
    'api_token',
    'private_key',
    'api_key',
    'secret_string',
    'user_data',
  ])('%s is secret', (name) => expect(isSensitiveName(name)).toBe(true));
  it.each([
    'name',
    'arn',
    'kms_key_id',
    'secret_arn',
    'token_count',
    'password_length',
    'tags',
    'description',
    // The name of an environment variable holding a secret (`--token-env KUBE_TOKEN`).
    'token-env',
    'password_env',
  ])('%s is not', (name) => expect(isSensitiveName(name)).toBe(false));
  it('usage text naming --token-env keeps the variable it names', () => {
    const text = "driftwatch: --token-env: '1TOKEN' is not an environment variable name";
    expect(redactText(text)).toBe(text);
    expect(redactText('the token goes in the variable that --token-env names')).toMatch(/--token-env names$/);
  });
});

describe('redactText', () => {
  it('removes known secrets, named values, keys, PEM blocks and URL credentials', () => {
    const text = [
      'using key AKIAABCDEFGHIJKLMNOP and the literal S3cr3tLiteral',
      'password = "pw-canary-1"',
      'db_password: pw-canary-2',
      'local.api_token is "pw-canary-3"',
      'Authorization: Bearer eyJhbGciOi.canary4',
      'postgres://admin:pw-canary-5@db.example.com/app',
      '-----BEGIN RSA PRIVATE KEY-----\nMIIEcanary6\n-----END RSA PRIVATE KEY-----',
    ].join('\n');
    const redacted = redactText(text, ['S3cr3tLiteral']);
    for (const secret of [
      'AKIAABCDEFGHIJKLMNOP',
      'S3cr3tLiteral',
      'pw-canary-1',
      'pw-canary-2',
      'pw-canary-3',
      'canary4',
      'pw-canary-5',
      'canary6',
    ]) {
      expect(redacted).not.toContain(secret);
    }
    expect(redacted).toContain(`password = ${REDACTED}`);
    expect(redacted).toContain('postgres://admin:(redacted)@db.example.com');
  });

  it('removes a known secret written escaped, as a JSON string or a diagnostic quotes it', () => {
    const secret = 'Ab"CNRYESC4&<x>';
    const text = [
      `Error: invalid value "Ab\\"CNRYESC4&<x>" for input`,
      `input: {"key":"Ab\\"CNRYESC4\\u0026\\u003cx\\u003e"}`,
      `config: "{\\"key\\":\\"Ab\\\\\\"CNRYESC4&<x>\\"}"`,
    ].join('\n');
    expect(redactText(text, [secret])).not.toContain('CNRYESC4');
  });
});

describe('summarizeTerraformErrors', () => {
  // Verbatim shape of Terraform 1.11 stderr (-no-color) for two expression errors.
  const stderr = `
Error: Invalid function argument

  on main.tf line 4, in locals:
   4:   x         = file(local.api_token)
    ├────────────────
    │ while calling file(path)
    │ local.api_token is "CANARY-in-stderr-123"

Invalid value for "path" parameter: no file exists at "CANARY-in-stderr-123";
this function works only with files that are distributed as part of the
configuration source code.

Error: Invalid operand

  on main.tf line 5, in locals:
   5:   y         = local.db_conn + "CANARY-literal-789"
    ├────────────────
    │ local.db_conn is "CANARY-conn-456"

Unsuitable value for left operand: a number is required.
`;

  it('keeps the reason and location, drops snippets and the values they revealed', () => {
    const summary = summarizeTerraformErrors(stderr) ?? '';
    expect(summary).toContain('Error: Invalid function argument');
    expect(summary).toContain('on main.tf line 4, in locals:');
    expect(summary).toContain('Unsuitable value for left operand');
    expect(summary).not.toMatch(/CANARY/);
    expect(summary).toContain('no file exists at "(redacted)"');
  });

  it('redacts credentials handed to Terraform and bounds the length', () => {
    const summary = summarizeTerraformErrors(
      `Error: denied for AbCdEfGhIjKlMnOpQrSt\n${'x'.repeat(9000)}`,
      ['AbCdEfGhIjKlMnOpQrSt'],
      100,
    );
    expect(summary).not.toContain('AbCdEfGhIjKlMnOpQrSt');
    expect(summary?.length).toBeLessThan(200);
  });

  it('returns undefined when Terraform printed nothing useful', () => {
    expect(summarizeTerraformErrors('\n\n')).toBeUndefined();
  });

  it("starts at init's first real error, not its preamble about problems described below", () => {
    // Verbatim Terraform 1.11 `init` stderr for a root with a syntax error.
    const stderr = [
      '',
      'Error: Terraform encountered problems during initialisation, including problems',
      'with the configuration, described below.',
      '',
      'The Terraform configuration must be valid before initialization so that',
      'Terraform can determine which modules and providers need to be installed.',
      '',
      '',
      'Error: Invalid single-argument block definition',
      '',
      '  on main.tf line 14, in resource "aws_s3_bucket" "b":',
      '  14: resource "aws_s3_bucket" "b" { bucket = "good-bucket"',
      '',
      'An argument definition on the same line as its containing block creates a',
      '',
    ].join('\n');
    const summary = summarizeTerraformErrors(stderr) ?? '';
    expect(summary.split('\n')[0]).toBe('Error: Invalid single-argument block definition');
    expect(summary).not.toContain('encountered problems');
    // Alone (nothing follows it), the preamble is all there is to say, and stays.
    expect(summarizeTerraformErrors(stderr.split('\n').slice(0, 6).join('\n'))).toContain(
      'encountered problems during initialisation',
    );
  });
});
