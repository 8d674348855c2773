import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BACKEND_RULES, backendReadActions } from '../../../../functions/core/backend/rules/index.js';
import { REPO_ROOT } from '../../../helpers/integration.js';

describe('the backend rule registry', () => {
  it('has one file per rule, each registered once with a stable dotted id', () => {
    const ids = BACKEND_RULES.map((rule) => rule.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^(backend|state|lock)\.[a-z-]+$/);
    const files = readdirSync(join(REPO_ROOT, 'functions/core/backend/rules'))
      .filter(
        (file) => !['index.ts', 'state-history.ts', 'lock-facts.ts', 'lifecycle-coverage.ts'].includes(file),
      )
      .map((file) => file.replace(/\.ts$/, ''));
    // backend.versioning → versioning.ts, state.unreadable → state-unreadable.ts, lock.stale → lock-stale.ts
    const fileOf = (id: string) =>
      id.startsWith('backend.') ? id.slice('backend.'.length) : id.replace('.', '-');
    expect(files.sort()).toEqual(ids.map(fileOf).sort());
  });

  it('every rule explains itself and declares read-only IAM actions', () => {
    for (const rule of BACKEND_RULES) {
      expect(rule.explanation.length, rule.id).toBeGreaterThan(40);
      expect(rule.iamActions.length, rule.id).toBeGreaterThan(0);
      for (const action of rule.iamActions)
        expect(action, rule.id).toMatch(/^(s3|dynamodb):(Get|List|Scan)\w*$/);
    }
    expect(backendReadActions()).toContain('s3:ListBucket');
  });

  it('is documented in docs/backends-and-locks.md, rule by rule: severity, check and IAM actions', () => {
    const readme = readFileSync(join(REPO_ROOT, 'docs', 'backends-and-locks.md'), 'utf8');
    // One list item per rule: "- `id` (severity: S; check: C; IAM read actions: `a`, `b`): what",
    // wrapped over indented lines.
    const items = readme.split(/\n(?=- )/).map((item) => item.replace(/\n {2}/g, ' '));
    for (const rule of BACKEND_RULES) {
      const item = items.find((text) => text.startsWith(`- \`${rule.id}\` (`));
      expect(item, rule.id).toBeDefined();
      const fields = /^- `[^`]+` \(severity: (.+?); check: (\w+); IAM read actions: (.+?)\): /.exec(item!);
      expect(fields, item).not.toBeNull();
      expect(fields![1], rule.id).toMatch(new RegExp(`^${rule.severity}`));
      expect(fields![2], rule.id).toBe(rule.check);
      expect(fields![3], rule.id).toBe(rule.iamActions.map((action) => `\`${action}\``).join(', '));
    }
  });
});
