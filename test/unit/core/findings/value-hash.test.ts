import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../../functions/core/findings/fingerprint.js';
import { valueHashOf } from '../../../../functions/core/findings/lifecycle.js';
import type { FindingDraft } from '../../../../functions/core/findings/model.js';
import { canonicalJson } from '../../../../functions/core/redaction/secrets.js';

type Subject = Pick<FindingDraft, 'severity' | 'title' | 'drift'>;

/**
 * A finding's value hash is stored with it: a different hash for the same finding turns every stored
 * finding `changed` at the next scan. The hashes below were computed before valueHashOf wrote the
 * canonical text itself; the general form is canonicalJson of { severity, title, drift }.
 */
const general = (draft: Subject) =>
  sha256Hex(
    canonicalJson({ severity: draft.severity, title: draft.title, drift: draft.drift ?? null }),
  ).slice(0, 16);

const PINNED: Array<[unknown, string]> = [
  [
    {
      severity: 'high',
      title: 'a changed',
      drift: {
        action: 'update',
        changes: [{ path: 'tags.Owner', before: 'a', after: 'b', sensitive: false }],
      },
    },
    '19c616a0db1aa57c',
  ],
  [
    {
      severity: 'low',
      title: 'x',
      drift: {
        action: 'update',
        changes: [
          { path: 'p', before: { z: 1, a: [1, { y: 2, b: null }] }, after: undefined, sensitive: true },
        ],
      },
    },
    'dd62c459ff14ce41',
  ],
  [{ severity: 'medium', title: 'no drift' }, '1b5ef5203acbb133'],
  [
    {
      severity: 'critical',
      title: 'int keys',
      drift: {
        action: 'delete',
        changes: [
          {
            path: 'm',
            before: { '10': 1, '2': 2, b: 3 },
            after: [1.5, -0, 1e21, 'é\u2028'],
            sensitive: false,
          },
        ],
      },
    },
    'e3e7419a7d8582de',
  ],
  [{ severity: 'info', title: 't', drift: { changes: [], action: 'replace' } }, '2eb2c185dedb5eaa'],
  [
    {
      severity: 'high',
      title: 'extra',
      drift: {
        action: 'update',
        changes: [{ sensitive: false, after: 1, before: 2, path: 'q', extra: 'k' }],
      },
    },
    '13a56a1cc205da9d',
  ],
];

describe('valueHashOf', () => {
  it.each(PINNED)('keeps the hash stored findings carry (%#)', (draft, hash) => {
    expect(valueHashOf(draft as Subject)).toBe(hash);
    expect(general(draft as Subject)).toBe(hash);
  });

  it('equals the general canonical form for values of every JSON shape', () => {
    // A small deterministic generator: nested objects with keys out of order, integer-like and
    // escaped keys, lists, numbers, strings with escapes, null and undefined members.
    let seed = 7;
    const next = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
      return seed;
    };
    const keys = ['b', 'a', '10', '2', 'é', 'k"q', '__x', 'Z'];
    const value = (depth: number): unknown => {
      const pick = next() % (depth > 3 ? 5 : 8);
      if (pick === 0) return null;
      if (pick === 1) return next() % 2 === 0;
      if (pick === 2) return (next() % 2000) / 7 - 100;
      if (pick === 3) return `s${next() % 50}\n"\\\u2028`;
      if (pick === 4) return undefined;
      if (pick === 5) return Array.from({ length: next() % 4 }, () => value(depth + 1) ?? null);
      const object: Record<string, unknown> = {};
      for (let index = next() % 5; index > 0; index--) object[keys[next() % keys.length]!] = value(depth + 1);
      return object;
    };
    for (let round = 0; round < 500; round++) {
      const changes = Array.from({ length: next() % 4 }, (_, index) => ({
        path: `attr[${index}]`,
        before: value(0),
        after: value(0),
        sensitive: next() % 3 === 0 ? undefined : next() % 2 === 0,
      }));
      const draft = { severity: 'high', title: `t${round}`, drift: { action: 'update', changes } } as Subject;
      expect(valueHashOf(draft), `round ${round}`).toBe(general(draft));
    }
  });
});
