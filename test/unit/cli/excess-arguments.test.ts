import { describe, expect, it } from 'vitest';
import { excessArgumentsLine } from '../../../cli/excess-arguments.js';
import { runCli } from '../../helpers/integration.js';

/**
 * More arguments than a command takes: commander said "too many arguments for 'findings'. Expected 0
 * arguments but got 2.", which names neither the word in excess nor why it is there. A mistyped
 * subcommand and a value typed as two words are the usual causes, and the line says which.
 */
const HELP = "(the command's --help lists its arguments and options)";

describe('the line for arguments in excess', () => {
  const findings = { path: 'findings', expected: [], subcommands: ['show'] };
  it.each([
    [
      'a mistyped subcommand',
      findings,
      ['shwo', '585c'],
      ['findings', 'shwo', '585c'],
      "unknown command 'findings shwo' (Did you mean findings show?)",
    ],
    [
      'a duration in two words',
      findings,
      ['days'],
      ['findings', '--since', '3', 'days'],
      "unexpected argument 'days' after --since 3: findings takes no arguments (a duration is one word: --since 3d)",
    ],
    [
      'weeks, which a duration writes in days',
      findings,
      ['weeks'],
      ['findings', '--since', '2', 'weeks'],
      "unexpected argument 'weeks' after --since 2: findings takes no arguments (a duration is one word: --since 14d)",
    ],
    [
      'a text in two words',
      { path: 'suppress', expected: ['findingId'], subcommands: [] },
      ['585c', 'issue'],
      ['suppress', '585c', '--reason', 'known', 'issue'],
      `unexpected argument 'issue' after --reason known: suppress takes one: <findingId> (an option's value is one word: quote one with spaces, --reason "known issue")`,
    ],
    [
      'two plans',
      { path: 'evaluate-plan', expected: ['plan.json'], subcommands: [] },
      ['a.json', 'b.json', 'c.json'],
      ['evaluate-plan', 'a.json', 'b.json', 'c.json'],
      "unexpected argument 'b.json' and 1 more: evaluate-plan takes one: <plan.json>",
    ],
  ])('%s', (_case, command, received, argv, expected) => {
    expect(excessArgumentsLine(command, received, argv)).toBe(expected);
  });
});

describe('the compiled CLI', () => {
  it('says it in one line, exit 64, for a top-level command and a subcommand', async () => {
    const [typo, since, show] = await Promise.all([
      runCli(['findings', 'shwo', '585c']),
      runCli(['findings', '--since', '3', 'days']),
      runCli(['findings', 'show', '585c', 'extra']),
    ]);
    expect([typo.code, since.code, show.code]).toEqual([64, 64, 64]);
    expect(typo.stderr).toBe(
      `driftwatch: unknown command 'findings shwo' (Did you mean findings show?) ${HELP}\n`,
    );
    expect(since.stderr).toBe(
      `driftwatch: unexpected argument 'days' after --since 3: findings takes no arguments (a duration is one word: --since 3d) ${HELP}\n`,
    );
    expect(show.stderr).toBe(
      `driftwatch: unexpected argument 'extra': findings show takes one: <id> ${HELP}\n`,
    );
    expect(typo.stdout + since.stdout + show.stdout).toBe('');
  });
});
