import { describe, expect, it } from 'vitest';
import { shownCommands } from '../../helpers/doc-commands.js';

/**
 * The reader of command lines in the docs (documented-commands.test.ts runs what it finds): a command
 * it misses is a command nobody checks. Inline code pairs across a paragraph's lines, as Markdown does.
 */
describe('command lines shown in Markdown', () => {
  it.each([
    ['a span on one line', 'Run `driftwatch findings --store s` now.', ['driftwatch findings --store s']],
    [
      'a span that opens on one line and closes on the next',
      'then `driftwatch evaluate-plan <the\nplan> --format json` prints it',
      ['driftwatch evaluate-plan <the plan> --format json'],
    ],
    [
      'a span after one that crossed a line break (the pairs stay aligned)',
      '`[tags\n]` covers it. `driftwatch routes --check` too.',
      ['driftwatch routes --check'],
    ],
    [
      'a stray backtick does not pair with the next paragraph',
      'a `stray\n\nthen `driftwatch routes` here',
      ['driftwatch routes'],
    ],
    ['a fenced block', '```\n$ driftwatch report --out r.html\n```', ['driftwatch report --out r.html']],
  ])('%s', (_case, text, expected) => {
    expect(shownCommands(text, 'doc.md').map((shown) => shown.line)).toEqual(expected);
  });
});
