import type { Severity } from '../functions/core/findings/model.js';

/**
 * How table output meets the terminal it is written to: whether to colour it and how wide it may
 * be. The decisions are pure functions of plain data (tested as such); `terminalFor` reads them off
 * a stream and the environment.
 */
export interface TerminalStyle {
  colour: boolean;
  /** Columns a table line may take; undefined: no limit (a pipe, a file). */
  width?: number;
}

/** Nothing added: what JSON output, pipes and tests of the plain text get. */
export const PLAIN: TerminalStyle = { colour: false };

export interface TerminalFacts {
  isTTY: boolean;
  /** The terminal's own width (stream.columns), when it is one. */
  columns?: number;
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * FORCE_COLOR set and not `0`/`false` colours even into a pipe (CI logs that render colours), and
 * wins over NO_COLOR as it does for Node itself (the more specific request); `FORCE_COLOR=0`
 * disables. Otherwise any non-empty NO_COLOR disables (no-color.org), and colour needs a terminal
 * that is not `TERM=dumb`.
 */
export function colourEnabled({ isTTY, env }: TerminalFacts): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  if (env.NO_COLOR) return false;
  return isTTY && env.TERM !== 'dumb';
}

/**
 * COLUMNS, when set to a positive number, wins (as for ls: the reader asked for that width);
 * otherwise a terminal's own width; otherwise (a pipe, a file) no limit, so nothing a script reads
 * is cut.
 */
export function tableWidth({ isTTY, columns, env }: TerminalFacts): number | undefined {
  const configured = Number(env.COLUMNS);
  if (env.COLUMNS && Number.isInteger(configured) && configured > 0) return configured;
  return isTTY && columns && columns > 0 ? columns : undefined;
}

export function terminalFor(
  stream: { isTTY?: boolean; columns?: number } = process.stdout,
  env: NodeJS.ProcessEnv = process.env,
): TerminalStyle {
  const facts: TerminalFacts = { isTTY: stream.isTTY === true, columns: stream.columns, env };
  return { colour: colourEnabled(facts), width: tableWidth(facts) };
}

const SEVERITY_SGR: Record<Severity, string> = {
  critical: '1;31', // bold red: the one that must not be missed
  high: '31',
  medium: '33',
  low: '36',
  info: '2',
};

/**
 * `text` in the colour of `severity`. Only ever called on text already stripped for the terminal:
 * these are the only escape sequences driftwatch writes, and they are ours.
 */
export function paintSeverity(text: string, severity: Severity, style: TerminalStyle): string {
  if (!style.colour) return text;
  return `\u001b[${SEVERITY_SGR[severity]}m${text}\u001b[0m`;
}

/** `text` dimmed (secondary information: ids, labels). */
export function dim(text: string, style: TerminalStyle): string {
  return style.colour ? `\u001b[2m${text}\u001b[0m` : text;
}

/** `text` in bold (headings). */
export function bold(text: string, style: TerminalStyle): string {
  return style.colour ? `\u001b[1m${text}\u001b[0m` : text;
}
