import { stripForTerminal } from '../text/sanitize.js';
import { REDACTED, redactText } from './secrets.js';

/**
 * Turns Terraform's human stderr into a short, redacted failure reason.
 *
 * Terraform's diagnostics quote the configuration (`  12:   password = "..."`) and print the values
 * of the expressions involved (`│ local.api_token is "..."`), and the detail text often repeats such
 * a value ("no file exists at ..."). So: code snippets and value lines are dropped, every value they
 * showed is redacted wherever else it appears, and the generic patterns of redactText run last.
 */
export function summarizeTerraformErrors(
  stderr: string,
  knownSecrets: Iterable<string> = [],
  maxLength = 4000,
): string | undefined {
  // Colours and any other escape sequence go, as everywhere data reaches a reader.
  const lines = stripForTerminal(stderr, { multiline: true }).split('\n');
  const revealed = new Set<string>(knownSecrets);
  const kept: string[] = [];
  for (const rawLine of lines) {
    const line = rawLine.replace(/^[│╷╵]\s?/, '');
    const valueLine = /^\s*[│├└]\s*[─]*\s*(.*?)\s+is\s+(.+)$/.exec(line);
    if (valueLine) {
      collectRevealedValue(valueLine[2]!, revealed);
      continue;
    }
    if (/^\s*[├└]─+/.test(line) || /^\s*│/.test(line)) continue;
    const snippet = /^\s*\d+:\s(.*)$/.exec(line);
    if (snippet) {
      for (const literal of snippet[1]!.matchAll(/"((?:[^"\\]|\\.){4,})"/g)) {
        if (isAssignedLiteral(snippet[1]!, literal.index ?? 0)) revealed.add(literal[1]!);
      }
      continue;
    }
    kept.push(line.trimEnd());
  }
  const errorStart = kept.findIndex((line) => /^(Error|Warning): /.test(line));
  const relevant = (errorStart >= 0 ? kept.slice(errorStart) : kept)
    .join('\n')
    .replace(INIT_PREAMBLE, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  if (!relevant) return undefined;
  const redacted = redactText(relevant, revealed);
  return redacted.length > maxLength
    ? `${redacted.slice(0, maxLength)}\n(${redacted.length - maxLength} more characters)`
    : redacted;
}

/**
 * The paragraph `terraform init` puts before the errors of a configuration it cannot read: the
 * errors after it say what is wrong, and the first line of a reason becomes a finding's title.
 */
const INIT_PREAMBLE =
  /^Error: Terraform encountered problems during initiali[sz]ation[\s\S]*?\n(?=(Error|Warning): )/;

/** `"abc"`, `sensitive value`, `12`, `object with 2 attributes`: only quoted strings are worth redacting. */
function collectRevealedValue(value: string, revealed: Set<string>): void {
  const quoted = /^"((?:[^"\\]|\\.)*)"/.exec(value.trim());
  if (quoted?.[1] && quoted[1].length >= 4) revealed.add(quoted[1]);
}

/** True for `name = "literal"` (a value in configuration), false for `resource "aws_s3_bucket" "x" {` labels. */
function isAssignedLiteral(code: string, literalIndex: number): boolean {
  return /=\s*$/.test(code.slice(0, literalIndex)) || /:\s*$/.test(code.slice(0, literalIndex));
}

export { REDACTED };
