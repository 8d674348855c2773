/**
 * Passwords given to well-known tools as a short option: `mysql -uroot -pS3cret`, `sshpass -p x`,
 * `redis-cli -a x`, `curl -u user:x`. The option's name (`-p`, `-a`, `-u`) says nothing alone, and
 * `-p` is a port or "parents" to most tools (`docker run -p 80:80`, `mkdir -p`, `ssh -p 2222`): the
 * tool decides, and only where it runs: not as an option's value (`docker run --name mongo -p
 * 27017:27017` runs no `mongo`).
 *
 * Both ways a command is written: one string (`mysql -uroot -pS3cret db`, in a user_data script, an
 * SSM document, `sh -c "…"`) and a JSON list of arguments (`["mysql", "-uroot", "-pS3cret"]`, a
 * container's command, also inside container_definitions text with escaped quotes). The lists of
 * arguments a plan or a cluster holds as values are judged as their JSON text (see
 * `commandListHoldsSecret` in secret-values.ts).
 */

interface PasswordOption {
  /** Alternatives of the tool's name (a regular expression, no groups). */
  tools: string;
  /** The option whose value is the password. */
  option: string;
  /** Whether `-p x` (the next argument) is the password too, or only `-px` is (mysql: `-p db` prompts). */
  separate: boolean;
  /** What comes before the password inside the value (`user:` of curl's `user:password`). */
  prefix?: string;
  /** The options that may come between the tool and the password option, when not any (see sshpass). */
  span?: { spaces: string; list: string };
}

/** The end of one argument and the start of the next in a JSON (or YAML flow) list: `", "`, `\",\"`. */
const LIST_SEP = `\\\\{0,7}["'][ \\t]*,[ \\t]*\\\\{0,7}["']`;

const PASSWORD_OPTIONS: readonly PasswordOption[] = [
  {
    tools:
      'mysql(?:dump|admin|import|check|show|pump|slap|binlog|sh)?|mariadb(?:-dump|-admin|-import|-check|-show|-slap|-binlog)?',
    option: '-p',
    separate: false,
  },
  {
    // sshpass runs a program whose own options follow (`sshpass -f pw ssh -p 2222`): only
    // sshpass's options may come before its `-p`.
    tools: 'sshpass',
    option: '-p',
    separate: true,
    span: {
      spaces: `(?:-[fdP][ \\t]*[^\\s"'\\\\]+[ \\t]+|-[evhV]+[ \\t]+){0,6}`,
      list: `(?:-[fdP](?:[^"'\\\\]+|${LIST_SEP}[^"'\\\\]*)${LIST_SEP}|-[evhV]+${LIST_SEP}){0,6}`,
    },
  },
  {
    tools: `mongo(?:sh|dump|restore|export|import|stat|top|files)?|rabbitmqadmin|cqlsh|(?:docker|podman|nerdctl|finch|buildah|skopeo|oras)(?:[ \\t]+|${LIST_SEP})login|helm(?:[ \\t]+|${LIST_SEP})registry(?:[ \\t]+|${LIST_SEP})login`,
    option: '-p',
    separate: true,
  },
  { tools: 'redis-cli|valkey-cli|keydb-cli', option: '-a', separate: true },
  { tools: 'sqlcmd|bcp|osql|mssql-cli', option: '-P', separate: true },
  { tools: 'ldap(?:search|add|modify|delete|whoami|compare|modrdn|exop)', option: '-w', separate: true },
  { tools: 'ldappasswd', option: '-[was]', separate: true },
  {
    tools: 'curl',
    option: '(?:-u|--user|-U|--proxy-user)',
    separate: true,
    prefix: `\\\\{0,7}["']?[^\\s:"'\\\\]*:`,
  },
  {
    tools: 'smbclient|rpcclient|smbcacls|smbget',
    option: '(?:-U|--user)',
    separate: true,
    prefix: `\\\\{0,7}["']?[^\\s%"'\\\\]*%`,
  },
];

/** Literals one of which every match holds (the rule's hints). */
export const COMMAND_HINTS: readonly string[] = [
  'mysql',
  'mariadb',
  'sshpass',
  'mongo',
  'rabbitmqadmin',
  'cqlsh',
  'login',
  '-cli',
  'sqlcmd',
  'bcp',
  'osql',
  'ldap',
  'curl',
  'smb',
  'rpcclient',
];

/**
 * Between the tool and the option, within one command: in a string, anything but a line break, a
 * command separator or the end of the string (a quote followed by a comma); in a list, elements.
 */
const SPACES_SPAN = `(?:[^\\n;|&"'\\\\]|\\\\{0,7}["'](?![ \\t]*,)){0,400}?(?<=[\\s"'])`;
const LIST_SPAN = `(?:[^"'\\\\\\n]{0,200}${LIST_SEP}){0,30}?`;

/** An attached value must be one: not the quote that closes the option (`"-p", "db"`, `-p"]`). */
const ATTACHED = `(?!\\\\*["']?(?:[\\s,\\]]|$))`;

function alternatives(entry: PasswordOption): string[] {
  const prefix = entry.prefix ?? '';
  const spaces = entry.separate ? `(?:[ \\t]+(?!-)|${ATTACHED})` : ATTACHED;
  const list = entry.separate ? `(?:\\\\{0,7}["'][ \\t]*,[ \\t]*|${ATTACHED})` : ATTACHED;
  return [
    `(?:${entry.tools})[ \\t]+${entry.span?.spaces ?? SPACES_SPAN}${entry.option}${spaces}${prefix}`,
    `(?:${entry.tools})${LIST_SEP}${entry.span?.list ?? LIST_SPAN}${entry.option}${list}${prefix}`,
  ];
}

/**
 * The password: quoted (also with escaped quotes, inside JSON text), or a shell word up to a
 * separator; our markers count as part of it (a hostile `-p(redacted)x` is still a password).
 */
const PASSWORD = `\\\\{1,7}"[^"\\n]*?\\\\{1,7}"|"(?:[^"\\\\\\n]|\\\\.)*"|'[^'\\n]*'|(?:\\(redacted\\)|\\(sensitive:[0-9a-f]{8}\\)|[^\\s;&|)"'<>\`\\\\,]|,(?![\\s"'\\\\])|\\\\(?!\\\\*["']))+`;

export const COMMAND_PASSWORD = new RegExp(
  `(?<![\\w.-])(?:${PASSWORD_OPTIONS.flatMap(alternatives).join('|')})(?<secret>${PASSWORD})`,
  'g',
);

/**
 * The option just before a tool's name (and its directory), when the name is that option's value:
 * `docker run --name mongo -p 27017:27017` runs no `mongo`, `--name=mysql` neither. Options that run
 * what follows (`sh -c`, `sudo -E`, `su -c`, `bash -i`) do not count, nor does `--`.
 */
const OPTION_BEFORE =
  /(?<![^\s"',[])-{1,2}(?<name>[A-Za-z][\w-]*)(?:=|[ \t]+|\\{0,7}["'][ \t]*,[ \t]*\\{0,7}["'])(?:[\w.~-]*\/)*$/;
const RUNS_WHAT_FOLLOWS = new Set(['c', 'E', 'i']);

const LOOK_BACK = 120;

/** Whether the tool named at `index` is run there, not an option's value (OPTION_BEFORE). */
export function startsCommand(text: string, index: number): boolean {
  const name = OPTION_BEFORE.exec(text.slice(Math.max(0, index - LOOK_BACK), index))?.groups?.name;
  return name === undefined || RUNS_WHAT_FOLLOWS.has(name);
}
