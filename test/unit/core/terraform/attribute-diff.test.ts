import { describe, expect, it } from 'vitest';
import { diffAttributes } from '../../../../functions/core/terraform/attribute-diff.js';
import { formatPath } from '../../../../functions/core/terraform/index.js';
import { createSensitiveKeyTest } from '../../../../functions/core/terraform/sensitivity.js';
import { hashSensitive, ingressRule } from '../../../helpers/plan-builders.js';

function diff(before: unknown, after: unknown, masks = {}) {
  return diffAttributes(before, after, masks, {
    hashSensitive,
    isSensitiveKey: createSensitiveKeyTest(),
  }).map(({ path, before: b, after: a }) => [path, b, a]);
}

describe('formatPath', () => {
  it('uses dots for identifiers, [n] for indexes and quotes other keys', () => {
    expect(formatPath(['tags', 'Owner'])).toBe('tags.Owner');
    expect(formatPath(['ingress', 0, 'cidr_blocks', 1])).toBe('ingress[0].cidr_blocks[1]');
    expect(formatPath(['versioning', 0, 'enabled'])).toBe('versioning[0].enabled');
    expect(formatPath(['tags', 'kubernetes.io/role'])).toBe('tags["kubernetes.io/role"]');
    expect(formatPath(['tags', 'has space', 'x'])).toBe('tags["has space"].x');
    expect(formatPath(['my-attr'])).toBe('my-attr');
    expect(formatPath([])).toBe('');
    expect(formatPath([0, 'a'])).toBe('[0].a');
  });
});

describe('diffAttributes: objects', () => {
  it('diffs objects by key, recursively, and ignores unchanged keys', () => {
    expect(diff({ a: 1, b: { c: 'x', d: 'y' }, e: true }, { a: 1, b: { c: 'x', d: 'z' }, e: false })).toEqual(
      [
        ['b.d', 'y', 'z'],
        ['e', true, false],
      ],
    );
  });

  it('treats an absent key like null', () => {
    expect(diff({ a: 1, gone: 'x' }, { a: 1, added: 'y', missing: null })).toEqual([
      ['gone', 'x', null],
      ['added', null, 'y'],
    ]);
  });

  it('emits one change for a container when the other side is null', () => {
    expect(diff({ tags: null }, { tags: { Owner: 'a', Team: 'b' } })).toEqual([
      ['tags', null, { Owner: 'a', Team: 'b' }],
    ]);
    expect(diff({ block: [{ x: 1 }] }, { block: null })).toEqual([['block', [{ x: 1 }], null]]);
  });

  it('emits one change when the type changes', () => {
    expect(diff({ v: 'x' }, { v: ['x'] })).toEqual([['v', 'x', ['x']]]);
  });

  it('quotes non-identifier keys in paths', () => {
    expect(diff({ tags: { 'kubernetes.io/role': 'a' } }, { tags: { 'kubernetes.io/role': 'b' } })).toEqual([
      ['tags["kubernetes.io/role"]', 'a', 'b'],
    ]);
  });
});

describe('diffAttributes: lists and sets', () => {
  it('matches deep-equal elements first, so a new set element does not shift the others', () => {
    const old = { port: 5432, cidr: '10.0.0.0/16' };
    const added = { port: 22, cidr: '0.0.0.0/0' };
    expect(diff({ ingress: [old] }, { ingress: [added, old] })).toEqual([['ingress[0]', null, added]]);
  });

  it('uses the before-side index for a removed element', () => {
    expect(diff({ list: ['a', 'b', 'c'] }, { list: ['a', 'c'] })).toEqual([['list[1]', 'b', null]]);
    expect(diff({ list: ['x', 'a', 'b', 'c'] }, { list: ['b', 'c'] })).toEqual([
      ['list[0]', 'x', null],
      ['list[1]', 'a', null],
    ]);
  });

  it('uses the after-side index for an added element', () => {
    expect(diff({ list: ['a', 'c'] }, { list: ['a', 'b', 'c'] })).toEqual([['list[1]', null, 'b']]);
  });

  it('pairs leftover elements in order and diffs them recursively', () => {
    const before = [
      { id: 'a', port: 1 },
      { id: 'b', port: 2 },
      { id: 'c', port: 3 },
    ];
    const after = [
      { id: 'a', port: 1 },
      { id: 'b', port: 20 },
      { id: 'c', port: 3 },
    ];
    expect(diff({ rules: before }, { rules: after })).toEqual([['rules[1].port', 2, 20]]);
  });

  it('pairs a changed set element even when it moved', () => {
    // Terraform sorts set elements; a changed element may land elsewhere.
    const before = [{ cidr: '10.0.0.0/8' }, { cidr: '172.16.0.0/12' }];
    const after = [{ cidr: '0.0.0.0/0' }, { cidr: '10.0.0.0/8' }];
    expect(diff({ s: before }, { s: after })).toEqual([['s[1].cidr', '172.16.0.0/12', '0.0.0.0/0']]);
  });

  it('pairs changed set elements by what they share, not by where Terraform sorted them', () => {
    // A refresh-only plan of AWS provider 5.100.0 after two rules of one group changed out of band:
    // 192.168.0.0/16 revoked from the https rule, the description of the port 80 rule edited.
    const rule = (port: number, cidrs: string[], description: string) => ({
      ...ingressRule(cidrs[0]!, port),
      cidr_blocks: cidrs,
      description,
    });
    const before = [rule(443, ['10.0.0.0/8', '192.168.0.0/16'], 'https'), rule(80, ['10.0.0.0/8'], '')];
    const after = [rule(80, ['10.0.0.0/8'], 'changed'), rule(443, ['10.0.0.0/8'], 'https')];
    expect(diff({ ingress: before }, { ingress: after })).toEqual([
      ['ingress[0].cidr_blocks[1]', '192.168.0.0/16', null],
      ['ingress[1].description', '', 'changed'],
    ]);
  });

  it('reports duplicates once each', () => {
    expect(diff({ l: ['a', 'a'] }, { l: ['a'] })).toEqual([['l[1]', 'a', null]]);
  });

  it('matches long lists by content without quadratic work', () => {
    const before = Array.from(
      { length: 5000 },
      (_, index) => `10.${Math.floor(index / 250)}.${index % 250}.0/24`,
    );
    const after = [...before].reverse();
    after.splice(100, 1, '0.0.0.0/0');
    const started = performance.now();
    const changes = diff({ cidrs: before }, { cidrs: after });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(changes).toEqual([['cidrs[4899]', before[4899], '0.0.0.0/0']]);
  });

  it('finds nothing in equal lists of objects', () => {
    const value = { ingress: [{ a: [1, 2, { b: null }] }, { c: {} }] };
    expect(diff(value, structuredClone(value))).toEqual([]);
  });
});

describe('diffAttributes: JSON documents in strings', () => {
  const policy = (action: unknown, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Action: action, Resource: 'arn:aws:s3:::b/*', ...extra }],
    });

  it('keeps equivalent documents as one change of strings (the noise rule decides)', () => {
    const before = policy('s3:GetObject');
    const after = `  ${JSON.stringify(JSON.parse(policy(['s3:GetObject'])), null, 2)}`;
    expect(diff({ policy: before }, { policy: after })).toEqual([['policy', before, after]]);
  });

  it('diffs different documents inside, with paths continuing into the document', () => {
    expect(diff({ policy: policy('s3:GetObject') }, { policy: policy('s3:*') })).toEqual([
      ['policy.Statement[0].Action', 's3:GetObject', 's3:*'],
    ]);
    expect(
      diff(
        { policy: policy('s3:GetObject') },
        { policy: policy('s3:GetObject', { Condition: { Bool: { 'aws:SecureTransport': 'true' } } }) },
      ),
    ).toEqual([['policy.Statement[0].Condition', null, { Bool: { 'aws:SecureTransport': 'true' } }]]);
  });

  // AWS stores a changed policy re-serialised: one-element lists unwrapped, statements in its order.
  it('diffs IAM policy documents the way IAM reads them: only what IAM reads differently is a change', () => {
    const document = (...statements: unknown[]) =>
      JSON.stringify({ Version: '2012-10-17', Statement: statements });
    const reader = {
      Sid: 'Reader',
      Effect: 'Allow',
      Principal: { AWS: ['arn:aws:iam::111111111111:role/reader'] },
      Action: ['s3:GetObject'],
      Resource: ['arn:aws:s3:::b/*'],
    };
    const readerAsStored = {
      Action: 's3:GetObject',
      Effect: 'Allow',
      Principal: { AWS: 'arn:aws:iam::111111111111:role/reader' },
      Resource: 'arn:aws:s3:::b/*',
      Sid: 'Reader',
    };
    const everyone = {
      Sid: 'Public',
      Effect: 'Allow',
      Principal: '*',
      Action: 's3:GetObject',
      Resource: 'arn:aws:s3:::b/*',
    };
    // A statement added first is one added statement, not edits of the one it displaced.
    expect(diff({ policy: document(reader) }, { policy: document(everyone, readerAsStored) })).toEqual([
      ['policy.Statement[0]', null, everyone],
    ]);
    // A single value that becomes a list gains elements; a list that becomes its single value is no change.
    expect(
      diff(
        { policy: document({ ...reader, Action: 's3:GetObject' }) },
        { policy: document({ ...readerAsStored, Action: ['s3:GetObject', 's3:PutObject'] }) },
      ),
    ).toEqual([['policy.Statement[0].Action[1]', null, 's3:PutObject']]);
    // A Statement that is one object, and becomes a list of two.
    expect(
      diff(
        { policy: JSON.stringify({ Version: '2012-10-17', Statement: reader }) },
        { policy: document(readerAsStored, everyone) },
      ),
    ).toEqual([['policy.Statement[1]', null, everyone]]);
    // Statements reordered, and one action removed from one of them.
    expect(
      diff(
        { policy: document(reader, { ...everyone, Action: ['s3:GetObject', 's3:ListBucket'] }) },
        { policy: document(everyone, readerAsStored) },
      ),
    ).toEqual([['policy.Statement[1].Action[1]', 's3:ListBucket', null]]);
  });

  it('reads an account in a principal as its id, as AWS stores it (arn:…:root) or as written', () => {
    const trust = (account: unknown, action: unknown) =>
      JSON.stringify({
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Principal: { AWS: account }, Action: action }],
      });
    expect(
      diff(
        { assume_role_policy: trust(['111111111111', '222222222222'], 'sts:AssumeRole') },
        {
          assume_role_policy: trust(
            ['arn:aws:iam::222222222222:root', 'arn:aws:iam::111111111111:root'],
            ['sts:AssumeRole', 'sts:TagSession'],
          ),
        },
      ),
    ).toEqual([['assume_role_policy.Statement[0].Action[1]', null, 'sts:TagSession']]);
    // Outside a principal an account id is just a string (a condition on aws:SourceAccount).
    expect(
      diff(
        { policy: trust('111111111111', ['s3:GetObject']).replace('"Principal"', '"Resource"') },
        {
          policy: trust('arn:aws:iam::111111111111:root', ['s3:GetObject']).replace(
            '"Principal"',
            '"Resource"',
          ),
        },
      ),
    ).toEqual([['policy.Statement[0].Resource.AWS', '111111111111', 'arn:aws:iam::111111111111:root']]);
  });

  it('keeps plain JSON semantics for documents that are not IAM policies', () => {
    const definitions = (command: unknown) => JSON.stringify([{ name: 'app', command }]);
    expect(diff({ c: definitions(['serve']) }, { c: definitions('serve') })).toEqual([
      ['c[0].command', ['serve'], 'serve'],
    ]);
  });

  it('does not parse ordinary strings or a document on one side only', () => {
    expect(diff({ policy: '' }, { policy: policy('s3:*') })).toEqual([['policy', '', policy('s3:*')]]);
    expect(diff({ name: '{not json' }, { name: '{still not' })).toEqual([
      ['name', '{not json', '{still not'],
    ]);
  });
});

describe('diffAttributes: unknown values', () => {
  it('shows after_unknown values as "(known after apply)"', () => {
    expect(diff({ id: 'i-1', ami: 'a' }, { ami: 'b' }, { afterUnknown: { id: true } })).toEqual([
      ['id', 'i-1', '(known after apply)'],
      ['ami', 'a', 'b'],
    ]);
  });
});
