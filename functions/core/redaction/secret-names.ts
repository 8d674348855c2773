/**
 * Which attribute, key, variable and header names hold secrets: the one list (docs/security.md
 * documents it). A name is compared as words — `DB_PASSWORD`, `db-password`, `dbPassword` and
 * `db.password` are all [db, password] — so separators and case never hide a secret.
 *
 * A name is secret when
 * - one of its words is a SECRET_WORD (`pwd`, `dsn`, `auth`...: short words count only whole), or
 * - two adjacent words form a SECRET_PAIR (`api key`, `private key`), or
 * - its letters, separators removed, contain a SECRET_STEM (`masterpassword`, `xapikey`),
 * unless its last word says it names, counts or describes a secret rather than holding one
 * (`secret_arn`, `password_length`, `token_ttl`, `auth_type`, `token_env` but not `secrets.env`).
 */

/** Names of files whose whole content is credentials count too (a ConfigMap's key, a map of files). */
export const SECRET_WORDS: readonly string[] = [
  'auth',
  'authorization',
  'bearer',
  'cookie',
  'credential',
  'credentials',
  'creds',
  'dockercfg', // .dockercfg: registry credentials
  'dockerconfigjson', // .dockerconfigjson: the same
  'dsn',
  'jwt',
  'kubeconfig',
  'netrc', // .netrc: machine … password …
  'npmrc', // .npmrc: //registry/:_authToken=…
  'pass',
  'passcode',
  'passphrase',
  'passwd',
  'password',
  'pgpass', // .pgpass: host:port:database:user:password
  'psk',
  'pwd',
  'pypirc', // .pypirc: a package index's password
  's3cfg', // .s3cfg: s3cmd's secret_key
  'secret',
  'secrets',
  'securestring',
  'token',
  'tokens',
  'webhook',
];

/** Adjacent words that together name a secret (`private key`); each alone does not. */
export const SECRET_PAIRS: readonly (readonly [string, string])[] = [
  ['access', 'key'],
  ['account', 'key'],
  ['api', 'key'],
  ['auth', 'string'],
  ['client', 'key'],
  ['connection', 'string'],
  ['conn', 'string'],
  ['encryption', 'key'],
  ['key', 'material'],
  ['master', 'key'],
  ['private', 'key'],
  ['secret', 'key'],
  ['secure', 'string'],
  ['session', 'key'],
  ['shared', 'key'],
  ['signing', 'key'],
  ['ssh', 'key'],
  ['user', 'data'],
];

/** Long enough to be matched inside words written together (`masterpassword`, `myapikey`). */
export const SECRET_STEMS: readonly string[] = [
  'accesskey',
  'apikey',
  'connectionstring',
  'credential',
  'passphrase',
  'passwd',
  'password',
  'privatekey',
  'secret',
  'sshpass', // SSHPASS, the variable `sshpass -e` reads
  'storepass', // keytool's -storepass, -srcstorepass, -deststorepass
  'keypass',
  'masterauth', // redis.conf's password of the primary
  'requirepass', // redis.conf's password
  'token',
];

/** Last words that make the name describe a secret instead of holding one. */
export const DESCRIPTIVE_LAST_WORDS: readonly string[] = [
  'arn',
  'arns',
  'authentication', // PasswordAuthentication: a setting, not a secret
  'count',
  'days',
  'enabled',
  'expiration',
  'expires',
  'expiry',
  'file',
  'id',
  'ids',
  'length',
  'method',
  'mode',
  'name',
  'names',
  'path',
  'period',
  'policy',
  'prevention', // password_reuse_prevention: how many old passwords IAM refuses, a setting
  'required',
  'rotation',
  'scheme',
  'scope', // authorization_scope(s): the OAuth scopes a caller needs, not a credential
  'scopes',
  'stdin', // --password-stdin: read it from standard input (a flag, no value)
  'ttl',
  'type',
  'types',
  'version',
  'versions',
];

/**
 * Exact names whose words look secret but that name a setting of fixed values: the instance metadata
 * service's `http_tokens` (`required`, `optional`, `no-preference`), as the AWS provider and the EC2
 * API (`HttpTokens`) spell it. Hashed, IMDSv2 turned off could not be seen, nor ranked. Case counts:
 * an environment variable `HTTP_TOKENS` may hold tokens and stays secret.
 */
export const SETTING_NAMES: readonly string[] = ['http_tokens', 'HttpTokens'];

const WORDS: ReadonlySet<string> = new Set(SECRET_WORDS);
const SETTINGS: ReadonlySet<string> = new Set(SETTING_NAMES);
const PAIRS: ReadonlySet<string> = new Set(SECRET_PAIRS.map(([first, second]) => `${first} ${second}`));
const DESCRIPTIVE: ReadonlySet<string> = new Set(DESCRIPTIVE_LAST_WORDS);

/** `dbPassword`, `DB_PASSWORD`, `x-api-key`, `HTTPHeader` → lower-case words. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}

/**
 * Answers remembered: the same names (`tags`, `arn`, `Password`) come back in every resource of a plan
 * and in every value the credential rules read. Bounded, and simply started afresh when full.
 */
const answers = new Map<string, boolean>();
const MAX_REMEMBERED = 50_000;

export function isSensitiveName(name: string): boolean {
  let answer = answers.get(name);
  if (answer === undefined) {
    answer = judgeName(name);
    if (answers.size >= MAX_REMEMBERED) answers.clear();
    answers.set(name, answer);
  }
  return answer;
}

function judgeName(name: string): boolean {
  if (SETTINGS.has(name)) return false;
  const words = nameWords(name);
  if (words.length === 0) return false;
  const last = words[words.length - 1]!;
  // `rotation_period`, `rotation_lambda_arn`: a descriptive last word, or one starting like one.
  if (DESCRIPTIVE.has(last) || /^(rotat|expir)/.test(last)) return false;
  // `--token-env KUBE_TOKEN`, `password_env`: the name of the variable holding the secret. Not a
  // dotenv file's (`secrets.env: x` is a key of that name holding the value).
  if (last === 'env' && !/\.env$/i.test(name)) return false;
  for (let index = 0; index < words.length; index++) {
    if (WORDS.has(words[index]!)) return true;
    if (index > 0 && PAIRS.has(`${words[index - 1]} ${words[index]}`)) return true;
  }
  const joined = words.join('');
  return SECRET_STEMS.some((stem) => joined.includes(stem));
}

/** A command-line option alone (`--db-password`, `-token`) whose name is secret: the next argument is its value. */
export function isSecretOption(argument: unknown, isSecretName = isSensitiveName): boolean {
  if (typeof argument !== 'string' || argument.charCodeAt(0) !== 0x2d) return false;
  const name = OPTION.exec(argument)?.[1];
  return name !== undefined && isSecretName(name);
}
const OPTION = /^--?([A-Za-z][A-Za-z0-9_.-]*)$/;
