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
  /**
   * Where the password is: attached (`-px`; mysql reads `-p db` as "prompt, then database db"),
   * the next argument (positional passwords), or either.
   */
  value: 'attached' | 'next' | 'either';
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
    value: 'attached',
  },
  {
    // sshpass runs a program whose own options follow (`sshpass -f pw ssh -p 2222`): only
    // sshpass's options may come before its `-p`.
    tools: 'sshpass',
    option: '-p',
    value: 'either',
    span: {
      spaces: `(?:-[fdP][ \\t]*[^\\s"'\\\\]+[ \\t]+|-[evhV]+[ \\t]+){0,6}`,
      list: `(?:-[fdP](?:[^"'\\\\]+|${LIST_SEP}[^"'\\\\]*)${LIST_SEP}|-[evhV]+${LIST_SEP}){0,6}`,
    },
  },
  {
    tools: `mongo(?:sh|dump|restore|export|import|stat|top|files)?|rabbitmqadmin|cqlsh|(?:docker|podman|nerdctl|finch|buildah|skopeo|oras)(?:[ \\t]+|${LIST_SEP})login|helm(?:[ \\t]+|${LIST_SEP})registry(?:[ \\t]+|${LIST_SEP})login`,
    option: '-p',
    value: 'either',
  },
  { tools: 'redis-cli|valkey-cli|keydb-cli', option: '-a', value: 'either' },
  { tools: `az(?:[ \\t]+|${LIST_SEP})login`, option: '-p', value: 'either' },
  { tools: 'zip|unzip|zipcloak|funzip', option: '-P', value: 'either' },
  { tools: '7z|7za|7zr', option: '-p', value: 'attached' },
  // A crypt hash, but a password's all the same.
  { tools: 'useradd|usermod', option: '-p', value: 'either' },
  // Positional passwords, written here as the option and the arguments before them.
  // `htpasswd -b[c] file user password`, `htpasswd -nb user password`.
  {
    tools: 'htpasswd',
    option: '-(?=[A-Za-z]*b)[A-Za-z]+(?:[ \\t]+-[A-Za-z]+)*[ \\t]+[^\\s"\'-]\\S*(?:[ \\t]+[^\\s"\'-]\\S*)?',
    value: 'next',
  },
  { tools: 'rabbitmqctl', option: '(?:add_user|change_password)[ \\t]+[^\\s"\']+', value: 'next' },
  {
    tools: 'aws',
    option: 'configure[ \\t]+set[ \\t]+(?:[\\w.-]*\\.)?(?:aws_secret_access_key|aws_session_token)',
    value: 'next',
  },
  {
    // The value of a SecureString parameter put from a command line.
    tools: 'aws',
    option:
      'ssm[ \\t]+put-parameter(?=[^\\n;|&]*SecureString)[^\\n;|&]{0,400}?[ \\t]--value(?:[ \\t]+(?!-)|=)',
    value: 'attached',
  },
  { tools: 'sqlcmd|bcp|osql|mssql-cli', option: '-P', value: 'either' },
  { tools: 'ldap(?:search|add|modify|delete|whoami|compare|modrdn|exop)', option: '-w', value: 'either' },
  { tools: 'ldappasswd', option: '-[was]', value: 'either' },
  {
    tools: 'curl',
    option: '(?:-u|--user|-U|--proxy-user)',
    value: 'either',
    prefix: `\\\\{0,7}["']?[^\\s:"'\\\\]*:`,
  },
  {
    tools: 'smbclient|rpcclient|smbcacls|smbget',
    option: '(?:-U|--user)',
    value: 'either',
    prefix: `\\\\{0,7}["']?[^\\s%"'\\\\]*%`,
  },
];

/** The tools' names: a list of arguments naming none of them is not joined into text to be read. */
export const COMMAND_TOOLS: readonly string[] = [
  'mysql',
  'mariadb',
  'zip',
  '7z',
  'useradd',
  'usermod',
  'htpasswd',
  'rabbitmqctl',
  'configure',
  'put-parameter',
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
 * Literals one of which every match holds (the rule's hints): an option after a space or a quote,
 * or the words of a positional password. Few and short, rather than every tool's name: the hints
 * of all rules are searched for in every value of a plan, and each one more costs on each of them.
 */
export const COMMAND_HINTS: readonly string[] = [' -', '\t-', '"-', "'-", 'rabbitmqctl', 'configure'];

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
  const next = { spaces: '[ \\t]+(?!-)', list: `\\\\{0,7}["'][ \\t]*,[ \\t]*` };
  const [spaces, list] =
    entry.value === 'attached'
      ? [ATTACHED, ATTACHED]
      : entry.value === 'next'
        ? [next.spaces, next.list]
        : [`(?:${next.spaces}|${ATTACHED})`, `(?:${next.list}|${ATTACHED})`];
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

/**
 * A password piped to a command that reads it from standard input: `echo x | docker login
 * --password-stdin`, `echo x | passwd --stdin root`, `echo user:x | chpasswd`. A variable
 * (`echo "$PW" |`) is no password.
 */
export const PIPED_PASSWORD =
  /\b(?:echo|printf)[ \t]+(?:-[neE]+[ \t]+)?(?:(?:["']%s(?:\\n)?["']|%s(?:\\n)?)[ \t]+)?(?!["']?\$)(?<secret>"[^"\n]*"|'[^'\n]*'|[^\s|;&"']+)[ \t]*\|[ \t]*(?=(?:sudo[ \t]+(?:-\S+[ \t]+)*)?(?:chpasswd\b|[^\n|;&]*--password-stdin\b|[^\n|;&]*\bpasswd[ \t]+--stdin\b))/g;
export const PIPED_HINTS: readonly string[] = ['-stdin', 'chpasswd'];

/**
 * SQL that sets a password: `IDENTIFIED BY 'x'` (MySQL, Oracle; unquoted too when the keywords
 * are upper case: `identified by its tag` is English), `PASSWORD 'x'` (PostgreSQL's `WITH
 * [ENCRYPTED] PASSWORD 'x'`, MySQL's `IDENTIFIED BY PASSWORD '*hash'` and `PASSWORD('x')`).
 */
export const SQL_PASSWORD =
  /\b(?:IDENTIFIED[ \t]+(?:WITH[ \t]+\w+[ \t]+)?BY[ \t]+(?!(?:PASSWORD|VALUES)\b)|[Ii]dentified[ \t]+(?:with[ \t]+\w+[ \t]+)?by[ \t]+(?=['"])|(?:PASSWORD|[Pp]assword)(?: |\()(?='))(?<secret>'(?:[^'\n]|'')*'|"[^"\n]*"|[^\s;'"]+)/g;
export const SQL_HINTS: readonly string[] = [
  'IDENTIFIED',
  'identified',
  "PASSWORD '",
  "assword '",
  "PASSWORD('",
  "assword('",
];

/**
 * Oracle's `user/password@db`: in a JDBC thin URL (`jdbc:oracle:thin:app/x@//db:1521/ORCL`) and on
 * the command line of its tools (`sqlplus app/x@db`, `rman target sys/x@db`).
 */
export const ORACLE_USER_PASSWORD =
  /(?:\bjdbc:oracle:\w+:|(?<![\w.-])(?:sqlplus|sqlldr|expdp|impdp|rman|dgmgrl)(?:[ \t]+-\w+)*(?:[ \t]+(?:target|auxiliary|catalog))?[ \t]+["']?)[A-Za-z0-9_$#.]+\/(?<secret>[^\s@"'/]+)(?=@|[\s"']|$)/g;
export const ORACLE_HINTS: readonly string[] = [
  'oracle',
  'sqlplus',
  'sqlldr',
  'expdp',
  'impdp',
  'rman',
  'dgmgrl',
];

/** A .netrc entry: `machine host login bot password x` (on one line or several). */
export const NETRC_PASSWORD =
  /\b(?:machine[ \t]+\S+|default)(?:\s+(?:login|account|port)[ \t]+\S+)*\s+password[ \t]+(?<secret>\S+)/g;
export const NETRC_HINTS: readonly string[] = ['machine', 'default'];

/**
 * A PostgreSQL password file's line, `host:port:database:user:password` (~/.pgpass written by
 * user_data, a ConfigMap holding one): five fields, the second a port or `*`, none empty, no sixth.
 * Times (`10:30:45`), IPv6 and MAC addresses and ARNs have another number of fields or an empty one,
 * and a line starts the text or follows a space, a quote or `=`, never a colon.
 */
export const PGPASS_PASSWORD =
  /(?<![^\s"'`=])(?:[\w.-]+|\*):(?:\d{1,5}|\*):[^:\s"']+:[^:\s"']+:(?<secret>(?:\\.|[^:\s"'\\])+)(?=[\s"'`]|$)/g;
/** The ports of PostgreSQL and PgBouncer, the wildcard, and the file's name. */
export const PGPASS_HINTS: readonly string[] = [':5432:', ':5433:', ':6432:', ':*:', 'pgpass'];

/**
 * A Windows account made with its password on the command line (user_data's PowerShell or batch):
 * `net user NAME PASSWORD /add`. `*` prompts for it; options start with `/`. Any case, as cmd takes it.
 */
export const NET_USER_PASSWORD =
  /\bnet(?:\.exe)?[ \t]+user[ \t]+(?:"[^"\n]*"|[^\s"/]\S*)[ \t]+(?![*/])(?<secret>"[^"\n]*"|[^\s"<]+)/gi;
export const NET_USER_HINTS: readonly string[] = ['net user', 'NET USER', 'Net User', 'net.exe user'];
