import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  configurationAddress,
  hasInstanceKeys,
  parseResourceAddress,
} from '../../../../functions/core/remediation/address.js';
import { parseChangePath } from '../../../../functions/core/remediation/paths.js';
import { shellQuote, targetArgument } from '../../../../functions/core/remediation/shell-quote.js';
import { formatPath } from '../../../../functions/core/terraform/attribute-path.js';

/** What a real POSIX shell makes of `words`: each argument printf receives, NUL-terminated. */
function argumentsAfterShell(words: string): string[] {
  const run = spawnSync('sh', ['-c', `printf '%s\\0' ${words}`], { encoding: 'utf8' });
  expect(run.status).toBe(0);
  return run.stdout.split('\0').slice(0, -1);
}

const HOSTILE_ADDRESSES = [
  'aws_s3_bucket.data',
  'module.net["eu-west-1"].aws_security_group.db[0]',
  `aws_s3_bucket.b["it's"]`,
  'aws_s3_bucket.b["$(touch /tmp/pwned)"]',
  'aws_s3_bucket.b["`id`"]',
  'aws_s3_bucket.b["with space and\ttab"]',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: HCL template syntax in data, not a JS template
  'aws_s3_bucket.b["$HOME ${HOME} $$ !! * ? ~ ; & | < > #"]',
  `aws_s3_bucket.b["'; rm -rf / #"]`,
  'aws_s3_bucket.b["\\"quoted\\" \\\\ back"]',
  'aws_s3_bucket.b["\'\'"]',
  'aws_s3_bucket.b["日本 😀"]',
  'aws_s3_bucket.b["line\nbreak"]',
];

describe('shell quoting of -target addresses (a real sh round trip)', () => {
  it.each(HOSTILE_ADDRESSES)('%s is one argument equal to the address', (address) => {
    expect(argumentsAfterShell(shellQuote(address))).toEqual([address]);
    expect(argumentsAfterShell(targetArgument(address))).toEqual([`-target=${address}`]);
    // Next to other words it stays one argument.
    expect(argumentsAfterShell(`plan ${targetArgument(address)} -out=x`)).toEqual([
      'plan',
      `-target=${address}`,
      '-out=x',
    ]);
  });

  it('leaves safe words bare and quotes the empty word', () => {
    expect(shellQuote('env/prod.tfvars')).toBe('env/prod.tfvars');
    expect(shellQuote('region=eu-west-1')).toBe('region=eu-west-1');
    expect(shellQuote('')).toBe("''");
    expect(targetArgument('aws_s3_bucket.data')).toBe("-target='aws_s3_bucket.data'");
  });
});

describe('change paths back into segments', () => {
  it.each([
    [[], ''],
    [['tags', 'Owner'], 'tags.Owner'],
    [['ingress', 0, 'cidr_blocks', 1], 'ingress[0].cidr_blocks[1]'],
    [['tags', 'kubernetes.io/role'], 'tags["kubernetes.io/role"]'],
    [['tags', '0'], 'tags["0"]'],
    [['tags', 'a"b\\c]d'], 'tags["a\\"b\\\\c]d"]'],
    [['policy', 'Statement', 0, 'Action'], 'policy.Statement[0].Action'],
    [['m', ''], 'm[""]'],
  ] as const)('%j ⇄ %s', (segments, path) => {
    expect(formatPath(segments as never)).toBe(path);
    expect(parseChangePath(path)).toEqual(segments);
  });

  it('rejects text formatPath cannot have written', () => {
    for (const bad of ['.x', 'a..b', 'a[', 'a[x]', 'a["x"', 'a b', '[0'])
      expect(parseChangePath(bad), bad).toBeUndefined();
  });
});

describe('resource addresses', () => {
  it('takes modules, type, name and instance keys apart', () => {
    expect(parseResourceAddress('aws_s3_bucket.data')).toEqual({
      modules: [],
      type: 'aws_s3_bucket',
      name: 'data',
    });
    const nested = parseResourceAddress('module.net["e]u"].module.sg[2].aws_security_group.db["k\\"x"]')!;
    expect(nested).toEqual({
      modules: [
        { name: 'net', key: '["e]u"]' },
        { name: 'sg', key: '[2]' },
      ],
      type: 'aws_security_group',
      name: 'db',
      key: '["k\\"x"]',
    });
    expect(configurationAddress(nested)).toBe('module.net.module.sg.aws_security_group.db');
    expect(hasInstanceKeys(nested)).toBe(true);
    expect(hasInstanceKeys(parseResourceAddress('module.a.aws_x.y')!)).toBe(false);
  });

  it('refuses what is not a managed resource address', () => {
    for (const bad of ['output.x', 'data.aws_x.y', 'aws_x', 'aws_x.y[', 'aws_x.y["a"]z', 'module.a'])
      expect(parseResourceAddress(bad), bad).toBeUndefined();
  });
});
