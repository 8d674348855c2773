import {
  isSecretOption,
  isSensitiveName,
  REDACTED,
  redactArguments,
  redactText,
} from '../core/redaction/secrets.js';
import { escapeJsonText, stripForTerminal } from '../core/text/sanitize.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(message: string, data?: Record<string, unknown>): void;
  info(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** json: one object per line (Lambda, CloudWatch); text: `level message key=value` for terminals. */
  format?: 'json' | 'text';
  write?: (line: string) => void;
  fields?: Record<string, unknown>;
}

/**
 * One structured logger: short messages, data in keys, always on stderr (stdout is for results).
 * Every line passes through redactText as a last line of defence against secrets, then loses what
 * a terminal would execute.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const threshold = LEVELS[options.level ?? 'info'];
  const format = options.format ?? 'json';
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const base = options.fields ?? {};
  const log = (level: LogLevel, message: string, data: Record<string, unknown> = {}) => {
    if (LEVELS[level] < threshold) return;
    const fields = { ...base, ...data };
    const line =
      format === 'json'
        ? JSON.stringify({ level, time: new Date().toISOString(), message, ...fields }, redactingReplacer)
        : [
            level.toUpperCase().padEnd(5),
            message,
            ...Object.entries(fields).map(([key, value]) => `${key}=${textValue(value)}`),
          ].join(' ');
    // Fields carry data (addresses, keys, error messages): text lines are printed inert on a
    // terminal, JSON lines get \u escapes for the controls JSON.stringify leaves raw. JSON lines had
    // each string redacted already (redactingReplacer); the whole line again is the backstop.
    const redacted = redactText(line);
    write(format === 'json' ? escapeJsonText(redacted) : stripForTerminal(redacted));
  };
  return {
    debug: (message, data) => log('debug', message, data),
    info: (message, data) => log('info', message, data),
    warn: (message, data) => log('warn', message, data),
    error: (message, data) => log('error', message, data),
    child: (fields) => createLogger({ ...options, fields: { ...base, ...fields } }),
  };
}

function errorReplacer(_key: string, value: unknown): unknown {
  return value instanceof Error ? { name: value.name, message: value.message } : value;
}

/**
 * Each string of a JSON line redacted as itself, before JSON escapes it into the line: read from the
 * serialised line, a secret in a field (`{"password":"x"}` inside an error message) sits between
 * escaped quotes, and redacting the line can leave a quote of the value behind or break its JSON.
 * A field named like a secret (`password`, `token`) has its value replaced whatever it looks like.
 */
function redactingReplacer(key: string, raw: unknown): unknown {
  const value = errorReplacer(key, raw);
  // `["serve", "--api-key", "x"]`: the value alone looks like nothing; the option before it says.
  // `["mysql", "-pS3cret"]`, `["sshpass", "-p", "x"]`: a tool's short password option.
  if (Array.isArray(value)) {
    const items = value.every((item) => typeof item === 'string') ? redactArguments(value) : value;
    return items.map((item, index) =>
      index > 0 && typeof item === 'string' && isSecretOption(items[index - 1]) ? REDACTED : item,
    );
  }
  if (typeof value !== 'string') return value;
  if (value !== '' && isSensitiveName(key)) return REDACTED;
  return redactText(value);
}

function textValue(value: unknown): string {
  if (value instanceof Error) return JSON.stringify(value.message);
  if (typeof value === 'string') return /\s/.test(value) ? JSON.stringify(value) : value;
  return JSON.stringify(value, errorReplacer);
}

export function logLevelFrom(value: string | undefined): LogLevel {
  return value && value in LEVELS ? (value as LogLevel) : 'info';
}
