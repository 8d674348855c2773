import {
  COMMAND_HINTS,
  COMMAND_PASSWORD,
  COMMAND_TOOLS,
  NET_USER_HINTS,
  NET_USER_PASSWORD,
  NETRC_HINTS,
  NETRC_PASSWORD,
  ORACLE_HINTS,
  ORACLE_USER_PASSWORD,
  PGPASS_HINTS,
  PGPASS_PASSWORD,
  PIPED_HINTS,
  PIPED_PASSWORD,
  SQL_HINTS,
  SQL_PASSWORD,
  startsCommand,
} from './command-lines.js';
import { isSensitiveName } from './secret-names.js';

/**
 * Credentials recognised by their value, wherever they appear: inside attribute values whose names
 * say nothing (`DATABASE_URL`, `description`, `container_definitions`), in Terraform's diagnostics,
 * in cluster objects and in error messages. The rules follow the shapes gitleaks and trufflehog
 * look for (written here, not copied); docs/security.md lists them.
 *
 * Each rule finds the secret part of a match: `redactCredentials` replaces that part only (the
 * scheme, user and host of a URL stay readable), `containsCredential` answers whether a value holds
 * one (the differ then hashes the whole value, so a change stays visible).
 */

export const REDACTED = '(redacted)';

interface ValueRule {
  id: string;
  /** Global, case as written. Group `secret` is what gets replaced; without it, the whole match. */
  pattern: RegExp;
  /** Only for rules whose match needs a second look (a name that must look secret). */
  accept?: (groups: Record<string, string | undefined>) => boolean;
  /**
   * Sticky: the secret that follows an accepted match. Matched only after `accept`, so a long run of
   * names that are not secret (`a:a:a:…`) costs no value scans.
   */
  value?: RegExp;
  /**
   * Literals of which every match contains at least one: a value holding none of them is not tried
   * (`includes` is far cheaper than a regular expression, and most values of a plan are no secret).
   * Without hints the rule is tried on every value of at least `minLength` characters.
   */
  hints?: readonly string[];
  minLength?: number;
  /** Whether a match at this index counts (read from the text before it); when not, the search goes on after its start. */
  startsAt?: (text: string, index: number) => boolean;
}

/** Characters that end an unquoted value: whitespace, separators, closing brackets and quotes. */
const VALUE_END = `\\s,;&)}\\]"'<>`;

/**
 * An unquoted value: up to a separator, our markers included whole. The text we read may have been
 * written by anyone, so `(redacted)x` or `pass:(redacted)` is a value like any other (only a marker
 * alone is left as it is, which keeps redaction idempotent).
 */
const WORD = `(?:\\(redacted\\)|\\(sensitive:[0-9a-f]{8}\\)|[^${VALUE_END}])+`;

/**
 * The value after a secret's name: a YAML block scalar (`password: |` and the lines under it
 * indented as its first, as in Helm values or a ConfigMap's file), a quoted string, one quoted with escaped quotes
 * (JSON inside a string: `\"x\"`), one in braces (ODBC: `Pwd={a;b}`, `}}` for a brace), or a word up to a separator.
 */
const NAMED_VALUE = new RegExp(
  `[|>][+-]?[0-9]?[ \\t]*\\r?\\n(?<indent>[ \\t]+)[^\\r\\n]*(?:\\r?\\n\\k<indent>[^\\r\\n]*)*|\\\\{1,7}"[^"\\n]*"|"(?:[^"\\\\\\n]|\\\\.)*"|'[^'\\n]*'|\\{(?:[^}\\n]|\\}\\})*\\}|${WORD}`,
  'y',
);

export const VALUE_RULES: readonly ValueRule[] = [
  {
    id: 'pem-block',
    hints: ['-----BEGIN'],
    pattern:
      /-----BEGIN [A-Z0-9 ]*(?:PRIVATE KEY|CERTIFICATE|OPENSSH|PGP PRIVATE KEY BLOCK)[A-Z0-9 ]*-----[\s\S]*?(?:-----END [A-Z0-9 ]*-----|$)/g,
  },
  {
    id: 'url-userinfo',
    hints: ['://'],
    // scheme://user:PASSWORD@host — the password part; `@` inside the password is allowed up to the
    // last one. A password written raw with spaces or quotes (`u:p ss w"rd@host`, as people type
    // connection strings) is whole up to the `@` when it is near; not a port followed by words
    // (`http://host:8080 by admin@example.com`) nor the end of a quoted value (`:x", "a@b`).
    pattern:
      /\b[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s:/@?#"'<>]*:(?<secret>[^\s/?#"'<>]+(?=@)|(?=[^\n@]{0,200}@)(?![0-9]+[ "'])[^\s/?#"'<>@]*(?:[ "'](?![,:])[^\s/?#"'<>@]*)+(?=@))@(?=[^\s@/?#"'<>]+)/g,
  },
  {
    id: 'authorization-header',
    hints: ['uthorization', 'UTHORIZATION'],
    pattern: /\b(?:[Pp]roxy-)?(?:[Aa]uthorization|AUTHORIZATION)["']?\s*[:=]\s*["']?(?<secret>[^\r\n"']+)/g,
  },
  {
    id: 'auth-scheme',
    hints: ['Bearer', 'Basic', 'Digest', 'Token'],
    pattern: /\b(?:Bearer|Basic|Digest|Token)\s+(?<secret>[A-Za-z0-9._~+/=-]{8,})/g,
  },
  {
    id: 'named-value',
    hints: [':', '='],
    // `password = x`, `"api_key": "x"`, `password => "x"` (Ruby, Perl, Puppet, PHP),
    // `Password=x;` in connection strings, `?token=x&` in URLs,
    // `X-Api-Key: x` headers, `export DB_PASSWORD=x`; the name decides (secret-names.ts). Not the
    // service or resource type of an ARN (`arn:aws:secretsmanager:…:123456789012:secret:db-AbCdEf`),
    // each looked behind for within one segment (linear on long input), nor the
    // service of an IAM action (`secretsmanager:GetSecretValue`). JSON inside a string escapes its
    // quotes (`{\"password\":\"x\"}`), and a command line's option starts with dashes
    // (`--db-password=x`): a dash counts as the start of a name unless a name character precedes it.
    pattern:
      /(?<quote>\\{0,7}["']?)(?<![A-Za-z0-9_.])(?<![A-Za-z0-9_.]-)(?<!\barn:[\w-]+:)(?<!\barn:[\w-]+:[\w-]+:[\w-]*:\d*:)(?<name>[A-Za-z_][A-Za-z0-9_.-]*)\k<quote>[ \t]*(?:=>|[:=])[ \t]*/g,
    accept: (groups) => groups.name !== 'secretsmanager' && isSensitiveName(groups.name ?? ''),
    value: NAMED_VALUE,
  },
  {
    id: 'named-pair',
    hints: ['alue'],
    // A `{name, value}` pair written as text whose name looks secret: JSON (escaped too) as ECS,
    // CodeBuild and jsonencode write env lists (`{"name":"DB_PASSWORD","value":"x"}`, sorted keys
    // put the name first), YAML (`- name: API_TOKEN` then `value: x`), the CLI's shorthand
    // (`ParameterKey=DbPassword,ParameterValue=x`), with up to two members between (`"type"`).
    pattern:
      /(?<![A-Za-z0-9_])(?<quote>\\{0,7}["']?)[A-Za-z_]*(?:[Nn]ame|[Kk]ey)\k<quote>[ \t]*[:=][ \t]*(?<nameQuote>\\{0,7}["']?)(?<name>[A-Za-z_][\w.-]*)\k<nameQuote>(?:[ \t]*,[ \t]*\k<quote>\w+\k<quote>[ \t]*[:=][ \t]*(?:\\{0,7}"[^"\n\\]*\\{0,7}"|\w+)){0,2}[ \t]*(?:,|\r?\n[ \t]*(?:-[ \t]+)?)[ \t]*\k<quote>[A-Za-z_]*[Vv]alue\k<quote>[ \t]*[:=][ \t]*/g,
    accept: (groups) => isSensitiveName(groups.name ?? ''),
    value: NAMED_VALUE,
  },
  {
    id: 'named-pair-value-first',
    hints: ['alue'],
    // The same pair with its value first (`{"value":"x","name":"API_TOKEN"}`, an encoder that keeps
    // the order it was given): the name after it decides.
    pattern:
      /(?<![A-Za-z0-9_])(?<quote>\\{0,7}["']?)[A-Za-z_]*[Vv]alue\k<quote>[ \t]*[:=][ \t]*(?<secret>\\{1,7}"[^"\n]*?\\{1,7}"|"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^\s,;&)}\]"'<>]+)[ \t]*,[ \t]*\k<quote>[A-Za-z_]*(?:[Nn]ame|[Kk]ey)\k<quote>[ \t]*[:=][ \t]*(?<nameQuote>\\{0,7}["']?)(?<name>[A-Za-z_][\w.-]*)\k<nameQuote>/g,
    accept: (groups) => isSensitiveName(groups.name ?? ''),
  },
  {
    id: 'xml-element',
    hints: ['</'],
    // `<password>x</password>` in XML, .NET and Java configuration files (`<db:Password>` too):
    // the text of an element named like a secret, up to its closing tag.
    pattern: /<(?:[A-Za-z_][\w.-]*:)?(?<name>[A-Za-z_][\w.-]*)(?:[ \t][^<>]*)?>/g,
    accept: (groups) => isSensitiveName(groups.name ?? ''),
    value: /[^<]+(?=<\/)/y,
  },
  {
    id: 'named-option',
    hints: ['--', ' -', '"-', "'-"],
    // A command line's option and its value as the next word (`--db-password x`, `--token "x"`, and
    // with one dash as Go's flag package and Java tools write them: `-token x`, `-storepass x`), or
    // as the next element of a JSON list of arguments (`"--api-key", "x"` in container definitions).
    // A value starting with `(` is prose (`--password (see the vault)`), unless it is our marker
    // with something attached.
    pattern:
      /(?<![A-Za-z0-9_.-])(?<quote>\\{0,7}["']?)--?(?<name>[A-Za-z][A-Za-z0-9_.-]*)(?:[ \t]+(?!-|\((?!redacted\)|sensitive:[0-9a-f]{8}\)))|\k<quote>[ \t]*,[ \t]*(?=\\{0,7}["']))/g,
    accept: (groups) => isSensitiveName(groups.name ?? ''),
    value: NAMED_VALUE,
  },
  {
    // `mysql -pS3cret`, `sshpass -p x`, `redis-cli -a x`, `curl -u user:x`: a tool's short password
    // option, where a command starts (command-lines.ts).
    id: 'command-password',
    hints: COMMAND_HINTS,
    pattern: COMMAND_PASSWORD,
    startsAt: startsCommand,
  },
  // `echo x | docker login --password-stdin`, `echo user:x | chpasswd`.
  { id: 'piped-password', hints: PIPED_HINTS, pattern: PIPED_PASSWORD },
  // `IDENTIFIED BY 'x'`, `WITH PASSWORD 'x'` in SQL (an init script, an RDS proxy's query).
  { id: 'sql-password', hints: SQL_HINTS, pattern: SQL_PASSWORD },
  // `jdbc:oracle:thin:app/x@db`, `sqlplus app/x@db`.
  { id: 'oracle-user-password', hints: ORACLE_HINTS, pattern: ORACLE_USER_PASSWORD },
  // `machine host login bot password x` (.netrc, also written into user_data).
  { id: 'netrc-password', hints: NETRC_HINTS, pattern: NETRC_PASSWORD },
  // `db:5432:app:deploy:x` (~/.pgpass).
  { id: 'pgpass-password', hints: PGPASS_HINTS, pattern: PGPASS_PASSWORD },
  // `net user svc x /add` (Windows user_data).
  { id: 'net-user-password', hints: NET_USER_HINTS, pattern: NET_USER_PASSWORD },
  {
    id: 'config-directive',
    hints: ['\n'],
    // A configuration file's line of a secret name and its value, separated by spaces (redis.conf's
    // `requirepass x`, keepalived's `auth_pass x`, `masterauth x`). Only in text of several lines
    // (a one-line message `token expired` is a sentence), and not a lower-case word (settings such
    // as `PasswordAuthentication no`); `password required pam_unix.so` has more than one word after
    // the name.
    pattern:
      /(?<=^|\n)[ \t]*(?<name>[A-Za-z_][\w.-]*)[ \t]+(?=(?:"[^"\n]*"|'[^'\n]*'|\S+)[ \t]*(?:\r?\n|$))(?![a-z]+[ \t]*(?:\r?\n|$))/g,
    accept: (groups) => isSensitiveName(groups.name ?? ''),
    value: /"[^"\n]*"|'[^'\n]*'|\S+/y,
  },
  {
    id: 'config-line',
    hints: ['\n'],
    // A configuration file's `name = value` or `name: value` line whose value has spaces: INI and
    // .properties values and YAML plain scalars run to the end of the line (`password = correct
    // horse battery staple`), so the first word alone (named-value) is not the secret, and a line of
    // lower-case words is no sentence where a line starts with the name. Only in text of several
    // lines, up to a ` #` comment; not a quoted, block, flow or tagged value (`!vault |`). A colon
    // is followed by a space, as YAML requires: a file location (`secrets.yaml:3:10: …`) is not.
    pattern:
      /(?<=^|\n)[ \t]*(?:-[ \t]+)?(?:export[ \t]+)?(?<name>[A-Za-z_][\w.-]*)[ \t]*(?:=|:(?=[ \t]))[ \t]*(?=[^\s#"'|>{[!&*][^\r\n]*?[^\s#][ \t]+[^\s#])/g,
    accept: (groups) => isSensitiveName(groups.name ?? ''),
    // Words and the spaces between them, not those at the end: linear on a line of many spaces.
    value: /\S+(?:[ \t]+(?!#)\S+)*/y,
  },
  {
    id: 'named-value-is',
    hints: [' is '],
    // Terraform diagnostics print expression values: `var.api_token is "x"`.
    pattern: /(?<![A-Za-z0-9_.-])(?<name>[A-Za-z_][A-Za-z0-9_.-]*)\s+is\s+(?=")/g,
    accept: (groups) => isSensitiveName(groups.name ?? ''),
    value: /"(?:[^"\\\n]|\\.)*"/y,
  },
  {
    id: 'aws-access-key-id',
    hints: ['AKIA', 'ASIA', 'ABIA', 'ACCA'],
    pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/g,
  },
  // 40 characters of base64 with upper, lower and digits, standing alone (hex digests lack the case mix).
  {
    id: 'aws-secret-access-key',
    minLength: 40,
    pattern:
      /(?<![A-Za-z0-9/+=])(?=[A-Za-z0-9/+]*[A-Z])(?=[A-Za-z0-9/+]*[a-z])(?=[A-Za-z0-9/+]*[0-9])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g,
  },
  {
    id: 'aws-session-token',
    hints: ['IQoJb3JpZ2lu', 'FwoGZXIvYXdz'],
    pattern: /\b(?:IQoJb3JpZ2lu|FwoGZXIvYXdz)[A-Za-z0-9/+=]{20,}/g,
  },
  {
    id: 'github-token',
    hints: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'],
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})/g,
  },
  {
    id: 'gitlab-token',
    hints: ['gl'], // every GitLab prefix (glpat-, gldt-, glrt-…) starts so
    pattern: /\bgl(?:pat|dt|rt|ptt|cbt|imt|oas|soat|ft|agent)-[A-Za-z0-9_-]{20,}/g,
  },
  {
    id: 'slack-token',
    hints: ['xox', 'xapp-'],
    pattern: /\b(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})/g,
  },
  {
    id: 'slack-webhook',
    hints: ['hooks.slack.com'],
    pattern: /hooks\.slack\.com\/(?:services|workflows|triggers)\/(?<secret>[A-Za-z0-9/_-]{8,})/g,
  },
  {
    id: 'stripe-key',
    hints: ['k_live_', 'k_test_', 'whsec_'],
    pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}|\bwhsec_[A-Za-z0-9]{20,}/g,
  },
  { id: 'jwt', hints: ['eyJ'], pattern: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g },
  { id: 'google-api-key', hints: ['AIza'], pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { id: 'npm-token', hints: ['npm_'], pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { id: 'sendgrid-key', hints: ['SG.'], pattern: /\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/g },
  // An EKS bearer token: `k8s-aws-v1.` and a presigned STS GetCallerIdentity URL in base64url
  // (aws eks get-token, a kubeconfig's exec plugin): valid for 15 minutes, for the whole cluster.
  { id: 'eks-token', hints: ['k8s-aws-v1.'], pattern: /\bk8s-aws-v1\.[A-Za-z0-9_-]{20,}/g },
  {
    id: 'terraform-cloud-token',
    hints: ['.atlasv1.'],
    pattern: /\b[A-Za-z0-9]{14,}\.atlasv1\.[A-Za-z0-9_=-]{30,}/g,
  },
  { id: 'vault-token', hints: ['hvs.', 'hvb.', 'hvr.'], pattern: /\bhv[sbr]\.[A-Za-z0-9_-]{24,}/g },
  // OpenAI keys carry `T3BlbkFJ` (base64 of "OpenAI") in the middle.
  {
    id: 'openai-key',
    hints: ['T3BlbkFJ'],
    pattern: /\bsk-[A-Za-z0-9_-]{16,}T3BlbkFJ[A-Za-z0-9_-]{16,}/g,
  },
];

function mayMatch(rule: ValueRule, text: string): boolean {
  if (text.length < (rule.minLength ?? 8)) return false;
  if (rule.hints === undefined) return true;
  // A rule with many hints (tools' names) scans once for all of them, not once per hint.
  const hints = HINT_PATTERNS.get(rule);
  if (hints !== undefined) return hints.test(text);
  for (const hint of rule.hints) if (text.includes(hint)) return true;
  return false;
}

const escapeLiteral = (hint: string) => hint.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const HINT_PATTERNS = new Map<ValueRule, RegExp>(
  VALUE_RULES.filter((rule) => (rule.hints?.length ?? 0) > 4).map((rule) => [
    rule,
    new RegExp(rule.hints!.map(escapeLiteral).join('|')),
  ]),
);

/** The rules without hints: a value is tried when it has a run of non-space characters that long. */
const UNHINTED_RUNS: readonly { minLength: number; run: RegExp }[] = VALUE_RULES.filter(
  (rule) => rule.hints === undefined,
).map((rule) => ({ minLength: rule.minLength ?? 8, run: new RegExp(`[^\\s]{${rule.minLength ?? 8}}`) }));

/**
 * `:` and `=` are in most values (ARNs, policies, URLs) and hint only a few rules: one scan for every
 * other hint (RARE_HINT) rejects most values or sends them to every rule; a value holding only `:`
 * or `=` goes to the rules those hint (and the ones without hints), not to every rule. Literal
 * alternatives only: a run-length alternative (`[^\s]{40}`) in the same expression would be tried at
 * every position of every value, about five times the cost of the whole scan; the rules without
 * hints get their own test.
 */
const COMMON_HINTS: ReadonlySet<string> = new Set([':', '=']);
const RARE_HINT = new RegExp(
  VALUE_RULES.flatMap((rule) => rule.hints ?? [])
    .filter((hint) => !COMMON_HINTS.has(hint))
    .map(escapeLiteral)
    .join('|'),
);
const COMMON_RULES: readonly ValueRule[] = VALUE_RULES.filter(
  (rule) => rule.hints === undefined || rule.hints.some((hint) => COMMON_HINTS.has(hint)),
);
const NO_RULES: readonly ValueRule[] = [];

/** The rules that may match `text` (each still checks its own hints): one scan rejects most texts. */
function candidateRules(text: string): readonly ValueRule[] {
  if (text.length < 8) return NO_RULES;
  if (RARE_HINT.test(text)) return VALUE_RULES;
  if (text.includes(':') || text.includes('=')) return COMMON_RULES;
  for (const { minLength, run } of UNHINTED_RUNS)
    if (text.length >= minLength && run.test(text)) return COMMON_RULES;
  return NO_RULES;
}

/** True when `text` holds a credential anywhere (the differ hashes such values whole). */
export function containsCredential(text: string): boolean {
  for (const rule of candidateRules(text)) {
    if (!mayMatch(rule, text)) continue;
    for (const _match of secretMatches(rule, text)) return true;
  }
  return false;
}

/** Replaces the secret part of every credential in `text` with `(redacted)`. Idempotent. */
export function redactCredentials(text: string): string {
  // One scan rejects most texts (every stored text is redacted again each time it is shown).
  const rules = candidateRules(text);
  if (rules === NO_RULES) return text;
  let result = text;
  for (const rule of rules) {
    if (!mayMatch(rule, result)) continue;
    let redacted = '';
    let copied = 0;
    for (const { start, end } of secretMatches(rule, result)) {
      redacted += `${result.slice(copied, start)}${REDACTED}`;
      copied = end;
    }
    if (copied > 0) result = redacted + result.slice(copied);
  }
  return result;
}

/**
 * Where the secrets of one rule are in `text`, as [start, end) offsets. A name that does not look
 * secret (`https://…`, `page=2`) is passed over without its value, so a secret named inside that
 * value (`?api_key=…`) is still found.
 */
function* secretMatches(rule: ValueRule, text: string): Generator<{ start: number; end: number }> {
  const pattern = rule.pattern;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const groups = match.groups ?? {};
    if (rule.accept && !rule.accept(groups)) {
      if (match[0] === '') pattern.lastIndex++;
      continue;
    }
    if (rule.value) {
      rule.value.lastIndex = pattern.lastIndex;
      const value = rule.value.exec(text);
      if (
        value === null ||
        isRedacted(value[0]) ||
        isProse(match[0], value[0], text, rule.value.lastIndex) ||
        isFileLocation(match[0], value[0])
      )
        continue;
      pattern.lastIndex = rule.value.lastIndex;
      yield { start: value.index, end: value.index + value[0].length };
      continue;
    }
    if (rule.startsAt && !rule.startsAt(text, match.index)) {
      pattern.lastIndex = match.index + 1;
      continue;
    }
    const secret = groups.secret;
    if (secret === undefined) {
      yield { start: match.index, end: match.index + match[0].length };
      continue;
    }
    if (isRedacted(secret)) continue;
    // The secret group ends every rule that has one, except url-userinfo, where only `@` follows,
    // and named-pair-value-first, where the name follows (and never holds the quoted secret).
    const start = match.index + match[0].lastIndexOf(secret);
    yield { start, end: start + secret.length };
  }
}

/**
 * `validating provider credentials: retrieving caller identity`: a name, a colon, then a lower-case
 * word followed by more words is a sentence of an error message, not a `name: value` pair (a
 * secret after `password:` is one token that ends the line, a quote or a separator). Only the
 * colon form counts as prose: `password=letmein more` stays a secret.
 */
function isProse(nameAndSeparator: string, value: string, text: string, end: number): boolean {
  return (
    nameAndSeparator.trimEnd().endsWith(':') &&
    /^[a-z]+$/.test(value) &&
    text.charCodeAt(end) === 0x20 &&
    /^[a-z]/.test(text.charAt(end + 1))
  );
}

/**
 * `my-secrets.yaml:3:10`: a file name (an extension after its last dot) with a line and column is
 * where an error is, not a secret named after the file. Only digits count, so `secrets.env:hunter2`
 * and `password:1234` (no extension) stay secrets.
 */
function isFileLocation(nameAndSeparator: string, value: string): boolean {
  return /\.[A-Za-z][A-Za-z0-9]{0,7}:$/.test(nameAndSeparator) && /^\d+(?::\d+)?:?$/.test(value);
}

function isRedacted(secret: string | undefined): boolean {
  if (secret === undefined) return false;
  const bare = secret.replace(/^["']|["']$/g, '');
  return bare === REDACTED || /^\(sensitive:[0-9a-f]{8}\)$/.test(bare);
}

const COMMAND_RULE = VALUE_RULES.find((rule) => rule.id === 'command-password')!;
const COMMAND_TOOL = new RegExp(COMMAND_TOOLS.map(escapeLiteral).join('|'));

/**
 * A list of command-line arguments whose elements alone say nothing (`["mysql", "-uroot",
 * "-pS3cret"]`, `["sshpass", "-p", "x", "ssh", "host"]`, a container's command): judged as its JSON
 * text, as container_definitions writes it, by the rule for tools' password options.
 */
export function argumentsHoldCredential(list: readonly unknown[]): boolean {
  if (list.length < 2) return false;
  // Most lists of a plan (CIDR blocks, ARNs, ports) hold no option (an element starting with `-`)
  // and name no tool: a look at each element's first character, then a scan for the tools' names,
  // before any text is built.
  let option = false;
  for (const item of list) {
    if (typeof item !== 'string') return false;
    if (item.charCodeAt(0) === 0x2d) option = true;
  }
  if (!option || !list.some((item) => COMMAND_TOOL.test(item as string))) return false;
  const text = JSON.stringify(list);
  for (const _match of secretMatches(COMMAND_RULE, text)) return true;
  return false;
}

/**
 * The elements of a list of arguments with the password of a tool's option replaced by
 * `(redacted)` (the rest of each element kept: `-p(redacted)`); an element the password's JSON
 * text covers with escapes is replaced whole.
 */
export function redactArguments(list: readonly string[]): string[] {
  if (!argumentsHoldCredential(list)) return [...list];
  const text = JSON.stringify(list);
  const ranges = [...secretMatches(COMMAND_RULE, text)];
  let offset = 1; // after `[`
  return list.map((element) => {
    const encoded = JSON.stringify(element);
    const start = offset + 1; // inside the element's quotes
    const end = offset + encoded.length - 1;
    offset += encoded.length + 1; // and the comma
    const hits = ranges.filter((range) => range.start < end + 1 && range.end > start - 1);
    if (hits.length === 0) return element;
    if (encoded.length !== element.length + 2) return REDACTED;
    let result = '';
    let copied = 0;
    for (const range of hits) {
      const from = Math.max(range.start, start) - start;
      result += `${element.slice(copied, from)}${REDACTED}`;
      copied = Math.max(copied, Math.min(range.end, end) - start);
    }
    return result + element.slice(copied);
  });
}

/**
 * The members of a container that together make its command line: Kubernetes' `command` and
 * `args`, ECS's `entryPoint` and `command` (`entry_point` in Terraform's schemas).
 */
const COMMAND_MEMBERS: ReadonlySet<string> = new Set(['entryPoint', 'entry_point', 'command', 'args']);
const NO_MEMBERS: ReadonlySet<string> = new Set();

/**
 * The members that are secret as a whole because the command line they make together holds a
 * password (commandMembersHoldCredential) in any of `objects` (the two sides of a change): all of
 * COMMAND_MEMBERS, or none.
 */
export function secretCommandMembers(...objects: Record<string, unknown>[]): ReadonlySet<string> {
  return objects.some(commandMembersHoldCredential) ? COMMAND_MEMBERS : NO_MEMBERS;
}

/**
 * A container whose tool is in one member and its password option in another
 * (`command: ["mysql"]`, `args: ["-uroot", "-pS3cret"]`): each list alone says nothing, so they
 * are judged joined, in the order the container runs them.
 */
export function commandMembersHoldCredential(object: Record<string, unknown>): boolean {
  let joined: unknown[] | undefined;
  let lists = 0;
  for (const key of COMMAND_MEMBERS) {
    const member = object[key];
    if (!Array.isArray(member)) continue;
    joined = joined === undefined ? member : [...joined, ...member];
    lists++;
  }
  return lists > 1 && joined !== undefined && argumentsHoldCredential(joined);
}
