/**
 * Shell quoting for the commands remediate prints (POSIX sh, bash, zsh): a word of only safe
 * characters stays as it is; anything else goes inside single quotes, where the shell expands
 * nothing (`$(…)`, backticks, `$VAR`, globs, spaces), and each `'` is written `'\''` (close the
 * quotes, an escaped quote, reopen). The result is exactly one argument equal to the input.
 */
export function shellQuote(word: string): string {
  if (word !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** `-target=` with the address always quoted: resource addresses carry `[`, `"` and for_each keys from data. */
export function targetArgument(address: string): string {
  return `-target=${alwaysQuoted(address)}`;
}

function alwaysQuoted(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A command line from words, each quoted as needed. */
export function shellCommand(words: readonly string[]): string {
  return words.map(shellQuote).join(' ');
}
