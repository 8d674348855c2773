import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../helpers/integration.js';

/**
 * Tables in README.md and docs/ fit a normal screen: no table line is wider than 100 characters in
 * the source (where people read them in an editor or a terminal pager). A reference too wide for
 * that is a list, one item per row (docs/configuration.md's keys, docs/cli.md's error messages).
 */
const MAX_TABLE_WIDTH = 100;
const DOCS = ['README.md', ...readdirSync(join(REPO_ROOT, 'docs')).map((file) => join('docs', file))].filter(
  (file) => file.endsWith('.md'),
);

/** Table lines (outside code blocks) wider than the limit, as `file:line: N characters`. */
function wideTableLines(file: string, text: string, limit = MAX_TABLE_WIDTH): string[] {
  const wide: string[] = [];
  let fence = false;
  text.split('\n').forEach((line, index) => {
    if (line.trimStart().startsWith('```')) fence = !fence;
    // Characters, not UTF-16 units: `≥` and `×` are one column each.
    const width = [...line].length;
    if (!fence && line.trimStart().startsWith('|') && width > limit)
      wide.push(`${file}:${index + 1}: ${width} characters`);
  });
  return wide;
}

describe('tables in the docs', () => {
  it(`are at most ${MAX_TABLE_WIDTH} characters wide`, () => {
    const wide = DOCS.flatMap((file) => wideTableLines(file, readFileSync(join(REPO_ROOT, file), 'utf8')));
    expect(wide).toEqual([]);
  });

  it('are found, and a wide one is reported (the check can fail)', () => {
    const tables = DOCS.flatMap((file) =>
      readFileSync(join(REPO_ROOT, file), 'utf8')
        .split('\n')
        .filter((line) => /^\|\s*-{3,}/.test(line)),
    );
    expect(tables.length).toBeGreaterThanOrEqual(2); // docs/cost.md, docs/private-modules.md
    const row = `| \`key\` | ${'x'.repeat(MAX_TABLE_WIDTH)} |`;
    expect(wideTableLines('a.md', `text\n\n| a | b |\n| - | - |\n${row}\n`)).toEqual([
      `a.md:5: ${row.length} characters`,
    ]);
    // Inside a code block a `|` line is output or shell, not a table.
    expect(wideTableLines('a.md', `\`\`\`\n${row}\n\`\`\`\n`)).toEqual([]);
  });
});
