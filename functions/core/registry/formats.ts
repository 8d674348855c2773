/**
 * Format checks for registry values. Each returns the problem as a sentence, or undefined when the
 * value is fine, so the schema can report exactly what is wrong instead of "invalid input".
 */

import { containsCredential, isSensitiveName } from '../redaction/secrets.js';
import { isExactVersion, parseConstraint } from '../terraform/engine-version.js';
import { SAFE_ID } from './model.js';
import { quotedName } from './problems.js';

export function safeIdProblem(id: string): string | undefined {
  if (SAFE_ID.test(id)) return undefined;
  return (
    `'${id}' is not a valid id: use 1-63 characters from a-z, 0-9, '-', '_' and '.', ` +
    'starting with a letter or digit (ids become parts of S3 keys)'
  );
}

// A partition prefix of 2 to 4 letters: `eu-west-1`, `us-gov-west-1`, `cn-north-1`, `eusc-de-east-1`
// (the European Sovereign Cloud).
export const AWS_REGION = /^[a-z]{2,4}(-[a-z]+)+-\d{1,2}$/;

export function regionProblem(region: string): string | undefined {
  if (AWS_REGION.test(region)) return undefined;
  return `'${region}' is not an AWS region such as eu-west-1 or us-gov-west-1`;
}

/** 3-63 of a-z 0-9 . - (the finer rules are in bucketNameProblem). */
export const BUCKET_SHAPE = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const IP_ADDRESS = /^\d{1,3}(\.\d{1,3}){3}$/;
/** Prefixes and suffixes AWS reserves for access points, aliases and directory buckets. */
const RESERVED_BUCKET_PREFIXES = ['xn--', 'sthree-', 'amzn-s3-demo-'];
const RESERVED_BUCKET_SUFFIXES = ['-s3alias', '--ol-s3', '.mrap', '--x-s3', '--table-s3'];

export function bucketNameProblem(name: string): string | undefined {
  const prefix = `'${name}' is not a valid S3 bucket name`;
  if (!BUCKET_SHAPE.test(name)) {
    return `${prefix}: use 3-63 characters from a-z, 0-9, '.' and '-', starting and ending with a letter or digit`;
  }
  if (name.includes('..')) return `${prefix}: it must not contain '..'`;
  if (IP_ADDRESS.test(name)) return `${prefix}: it must not look like an IP address`;
  const reserved =
    RESERVED_BUCKET_PREFIXES.find((reservedPrefix) => name.startsWith(reservedPrefix)) ??
    RESERVED_BUCKET_SUFFIXES.find((suffix) => name.endsWith(suffix));
  if (reserved !== undefined) return `${prefix}: '${reserved}' is reserved by AWS`;
  return undefined;
}

export function stateKeyProblem(key: string): string | undefined {
  if (key.startsWith('/'))
    return `must not start with '/' (S3 keys are relative, e.g. payments/terraform.tfstate)`;
  if (key.endsWith('/')) return `must name the state object, not a folder: remove the trailing '/'`;
  return undefined;
}

/**
 * Terraform accepts a workspace name that URL path escaping leaves as it is (`validWorkspaceName`):
 * letters, digits and - _ . ~ $ & + : = @. Another could never have been created, nor selected.
 */
const TERRAFORM_WORKSPACE = /^[A-Za-z0-9\-_.~$&+:=@]+$/;

export function terraformWorkspaceProblem(name: string): string | undefined {
  if (TERRAFORM_WORKSPACE.test(name)) return undefined;
  return `is not a name Terraform gives a workspace: use letters, digits and - _ . ~ $ & + : = @ (no '/', spaces or other characters)`;
}

/** Terraform's S3 backend rejects a workspace_key_prefix with a leading or trailing '/'. */
export function keyPrefixProblem(prefix: string): string | undefined {
  if (prefix.startsWith('/') || prefix.endsWith('/')) return `must not start or end with '/'`;
  return undefined;
}

const ROLE_ARN = /^arn:aws[a-z-]*:iam::\d{12}:role\/(?:[\w+=,.@-]+\/)*[\w+=,.@-]{1,64}$/;

export function roleArnProblem(arn: string): string | undefined {
  if (ROLE_ARN.test(arn)) return undefined;
  return `'${arn}' is not an IAM role ARN such as arn:aws:iam::111111111111:role/driftwatch-read`;
}

const EXTERNAL_ID = /^[\w+=,.@:/-]{2,1224}$/;

export function externalIdProblem(externalId: string): string | undefined {
  if (EXTERNAL_ID.test(externalId)) return undefined;
  return `use 2-1224 characters from letters, digits and + = , . @ : / - _ (the STS ExternalId alphabet)`;
}

const SQS_QUEUE_ARN = new RegExp(
  `^arn:aws[a-z-]*:sqs:${AWS_REGION.source.slice(1, -1)}:\\d{12}:[\\w-]{1,80}(\\.fifo)?$`,
);

export function queueArnProblem(arn: string): string | undefined {
  if (SQS_QUEUE_ARN.test(arn)) return undefined;
  return `'${arn}' is not an SQS queue ARN such as arn:aws:sqs:eu-west-1:111111111111:driftwatch-findings`;
}

const DYNAMODB_TABLE = /^[\w.-]{3,255}$/;

export function lockTableProblem(table: string): string | undefined {
  if (DYNAMODB_TABLE.test(table)) return undefined;
  return `'${table}' is not a DynamoDB table name: use 3-255 characters from letters, digits, '_', '-' and '.'`;
}

const S3_URI = /^s3:\/\/([^/]+)\/(.+)$/;

export function s3UriProblem(uri: string): string | undefined {
  const match = S3_URI.exec(uri);
  if (match === null)
    return `'${uri}' is not an S3 URI: expected s3://bucket/key, e.g. s3://bundles/payments.tgz`;
  const bucket = match[1] ?? '';
  // Worded about "its bucket": problems never quote the registry's values (issues.ts withoutValue).
  return bucketNameProblem(bucket)?.replace(`'${bucket}'`, 'its bucket');
}

/** A path inside a checkout or bundle: relative, and unable to climb out of it. */
export function relativePathProblem(path: string): string | undefined {
  if (path.startsWith('/')) return `must be relative (it is resolved inside the source), not start with '/'`;
  // A drive letter or a UNC share is as absolute on Windows as '/' is here.
  if (/^([A-Za-z]:)?[\\/]|^[A-Za-z]:/.test(path))
    return `must be relative (it is resolved inside the source), not an absolute path`;
  if (path.split(/[\\/]/).includes('..')) return `must not contain '..' (it must stay inside the source)`;
  return undefined;
}

/**
 * `providerMirror`: an https URL of a provider network mirror (Terraform accepts no other scheme for
 * one) without credentials, or a filesystem mirror directory.
 */
export function providerMirrorProblem(mirror: string): string | undefined {
  if (/^https:\/\//i.test(mirror)) return httpsUrlProblem(mirror);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(mirror))
    return mirror.toLowerCase().startsWith('s3://')
      ? "must be the https URL that serves the bucket (the stack's provider mirror endpoint), not s3://"
      : 'must be an https:// URL (Terraform network mirrors use https only) or a directory';
  return undefined;
}

/** An exact version (`1.11.4`) or a Terraform version constraint (`~> 1.9.0`, `>= 1.5, < 2.0`). */
export function terraformVersionProblem(version: string): string | undefined {
  if (isExactVersion(version)) return undefined;
  const parsed = parseConstraint(version);
  if (!('problem' in parsed)) return undefined;
  return `'${version}' is neither a Terraform version such as 1.11.4 nor a constraint such as '~> 1.11.0' or '>= 1.5, < 2.0'`;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function emailProblem(address: string): string | undefined {
  if (EMAIL.test(address)) return undefined;
  return `'${address}' is not an email address`;
}

export const SECRETS_ELSEWHERE = 'put secrets in the environment or a secrets manager, not the registry';

export function httpsUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `'${text}' is not a URL`;
  }
  if (url.protocol !== 'https:') return `must use https:// (findings must not travel in clear text)`;
  if (url.username !== '' || url.password !== '') return `must not carry credentials; ${SECRETS_ELSEWHERE}`;
  return undefined;
}

/** AWS Chatbot's patterns for Slack workspace (team) and channel ids. */
const SLACK_WORKSPACE_ID = /^[0-9A-Z]{1,255}$/;
const SLACK_CHANNEL_ID = /^[A-Za-z0-9]{1,255}$/;

export function slackWorkspaceProblem(id: string): string | undefined {
  if (SLACK_WORKSPACE_ID.test(id)) return undefined;
  return `'${id}' is not a Slack workspace id (upper-case letters and digits, e.g. T0123ABCD)`;
}

export function slackChannelProblem(id: string): string | undefined {
  if (SLACK_CHANNEL_ID.test(id)) return undefined;
  return `'${id}' is not a Slack channel id (letters and digits, e.g. C0456EFGH; not the #name)`;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SECRET_ENV_NAME = /SECRET|PASSWORD|TOKEN|ACCESS_KEY/i;

/**
 * The name rules redaction uses (`TF_VAR_api_key`, `TF_VAR_db_passwd`, `DSN`...) as well as the
 * substrings above (`AWS_ACCESS_KEY_ID` ends in a descriptive word, yet holds half a credential).
 */
function looksSecret(name: string): boolean {
  return SECRET_ENV_NAME.test(name) || isSensitiveName(name);
}

/**
 * What a workspace's `env` may set. An allowlist, because the scanner's guarantees depend on the
 * environment Terraform runs in: read-only flags, its own data and plugin directories, the role's
 * credentials, the provider mirror. A variable that changes where Terraform writes (TF_LOG_PATH), what
 * it loads (TF_CLI_CONFIG_FILE, TF_PLUGIN_CACHE_DIR), which programs run (PATH, LD_PRELOAD,
 * NODE_OPTIONS), which arguments it gets (TF_CLI_ARGS_plan) or whose credentials it uses
 * (AWS_PROFILE) could weaken the scan without anyone noticing, so everything else is refused.
 */
export const ALLOWED_ENV_NAMES: readonly string[] = ['AWS_REGION', 'AWS_DEFAULT_REGION'];
/** Proxies route provider traffic elsewhere: allowed only where the workspace says `allowProxyEnv: true`. */
export const PROXY_ENV_NAMES: readonly string[] = [
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
];
export const ALLOWED_ENV_SUMMARY = `TF_VAR_<name>, ${ALLOWED_ENV_NAMES.join(', ')}, and ${PROXY_ENV_NAMES.slice(0, 3).join(', ')} (either case) with allowProxyEnv: true`;

/** Why a name outside the allowlist is refused, for the ones people are likely to try. */
const REFUSED_ENV: ReadonlyArray<[RegExp, string]> = [
  [/^TF_LOG/, "it turns on Terraform's debug log, which holds plan values and secrets"],
  [/^TF_CLI_ARGS/, 'it adds arguments to every terraform command (it could undo -refresh-only)'],
  [
    /^(TF_CLI_CONFIG_FILE|TERRAFORM_CONFIG|TF_PLUGIN_|TF_DATA_DIR|TF_REATTACH_PROVIDERS|TF_PROVIDER_)/,
    'it changes which providers and CLI configuration Terraform loads (driftwatch sets these itself)',
  ],
  [/^TF_WORKSPACE$/, 'it selects another state than the registry names: use backend.workspace'],
  [
    /^AWS_(PROFILE|CONFIG_FILE|SHARED_CREDENTIALS_FILE|ROLE_ARN|ROLE_SESSION_NAME|WEB_IDENTITY_TOKEN_FILE|CONTAINER_|SDK_LOAD_CONFIG)/,
    'credentials come from the workspace roleArn, not from the registry',
  ],
  [/^AWS_ENDPOINT_URL/, 'it sends AWS calls to another endpoint'],
  [/^(PATH|LD_.*|DYLD_.*|NODE_.*|SHELL|GIT_.*|SSH_.*)$/, 'it changes which programs run and how'],
  [/^(HOME|TMPDIR|TMP|TEMP|XDG_.*)$/, 'it changes where Terraform and its tools read and write files'],
  [/^(SSL_CERT_FILE|SSL_CERT_DIR|AWS_CA_BUNDLE)$/, 'it changes which TLS certificates are trusted'],
];

export function envNameProblem(name: string, options: { allowProxy?: boolean } = {}): string | undefined {
  if (!ENV_NAME.test(name)) {
    return `${quotedName(name)} is not an environment variable name: use letters, digits and '_', not starting with a digit`;
  }
  if (looksSecret(name)) return `${quotedName(name)} looks like a secret; ${SECRETS_ELSEWHERE}`;
  if (/^TF_VAR_[A-Za-z_]/.test(name) || ALLOWED_ENV_NAMES.includes(name)) return undefined;
  if (PROXY_ENV_NAMES.includes(name)) {
    return options.allowProxy
      ? undefined
      : `${quotedName(name)} routes provider traffic through a proxy: set allowProxyEnv: true on the workspace if that is intended`;
  }
  const reason = REFUSED_ENV.find(([pattern]) => pattern.test(name))?.[1];
  return `${quotedName(name)} is not allowed in a workspace's env${reason ? `: ${reason}` : ''} (allowed: ${ALLOWED_ENV_SUMMARY})`;
}

/** A Terraform variable name, as `variable "<name>" {}` accepts it (and TF_VAR_<name> carries it). */
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

export function variableNameProblem(name: string): string | undefined {
  if (!VARIABLE_NAME.test(name))
    return `${quotedName(name)} is not a Terraform variable name: use letters, digits, '_' and '-', not starting with a digit`;
  return undefined;
}

/** `vars` are plain values on Terraform's command line: a name that looks secret belongs in sensitiveVars. */
export function plainVariableNameProblem(name: string): string | undefined {
  const problem = variableNameProblem(name);
  if (problem !== undefined) return problem;
  if (looksSecret(name))
    return `${quotedName(name)} looks like a secret; list it under sensitiveVars (a Secrets Manager secret or an environment variable), not vars`;
  return undefined;
}

/** Values that are secrets whatever their name: every credential shape redaction recognises (docs/security.md). */
export function envValueProblem(value: string): string | undefined {
  if (containsCredential(value)) return `the value looks like a secret; ${SECRETS_ELSEWHERE}`;
  return undefined;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Normalises a calendar date to `YYYY-MM-DD`. YAML gives a string for `2027-03-01` under the
 * 1.2 core schema but a Date for `!!timestamp 2027-03-01` (and under YAML 1.1 for plain dates).
 */
export function toIsoDate(value: string | Date): { date: string } | { problem: string } {
  if (value instanceof Date) return isoDateFromTimestamp(value);
  const match = ISO_DATE.exec(value);
  const invalid = { problem: `'${value}' is not a date: use YYYY-MM-DD, e.g. 2027-03-01` };
  if (match === null) return invalid;
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
  const parsed = new Date(Date.UTC(year, month - 1, day));
  // Date.UTC rolls 2027-02-30 over to March 2nd; a real date survives the round trip unchanged.
  const roundTrips =
    parsed.getUTCFullYear() === year && parsed.getUTCMonth() === month - 1 && parsed.getUTCDate() === day;
  return roundTrips ? { date: value } : invalid;
}

function isoDateFromTimestamp(value: Date): { date: string } | { problem: string } {
  if (Number.isNaN(value.getTime())) return { problem: 'is not a valid date' };
  const iso = value.toISOString();
  if (!iso.endsWith('T00:00:00.000Z'))
    return { problem: `use a date without a time (YYYY-MM-DD), not ${iso}` };
  return { date: iso.slice(0, 10) };
}

const MONTH_NAMES = 'JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC';
const DAY_NAMES = 'SUN|MON|TUE|WED|THU|FRI|SAT';

/** EventBridge cron fields in order, the characters each accepts, and the range of its plain numbers. */
const CRON_FIELDS: { name: string; pattern: RegExp; min: number; max: number }[] = [
  { name: 'minutes', pattern: /^[0-9*,/-]+$/, min: 0, max: 59 },
  { name: 'hours', pattern: /^[0-9*,/-]+$/, min: 0, max: 23 },
  { name: 'day-of-month', pattern: /^[0-9*,/?LW-]+$/, min: 1, max: 31 },
  { name: 'month', pattern: new RegExp(`^(?:[0-9*,/-]|${MONTH_NAMES})+$`, 'i'), min: 1, max: 12 },
  { name: 'day-of-week', pattern: new RegExp(`^(?:[0-9*,?L#-]|${DAY_NAMES})+$`, 'i'), min: 1, max: 7 },
  { name: 'year', pattern: /^[0-9*,/-]+$/, min: 1970, max: 2199 },
];
const CRON_EXAMPLE = `e.g. '0 2 * * ? *' (02:00 every day)`;

/** A shape check of an EventBridge cron expression; EventBridge itself has the final word at deploy. */
export function cronProblem(expression: string): string | undefined {
  if (/^cron\(/i.test(expression.trim())) return `write the expression without 'cron( )', ${CRON_EXAMPLE}`;
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== CRON_FIELDS.length) {
    return (
      `expected an EventBridge cron expression with 6 fields (minutes hours day-of-month month ` +
      `day-of-week year), got ${fields.length}: ${CRON_EXAMPLE}`
    );
  }
  for (const [index, spec] of CRON_FIELDS.entries()) {
    const problem = cronFieldProblem(fields[index] ?? '', spec);
    if (problem !== undefined) return problem;
  }
  const dayOfMonth = fields[2];
  const dayOfWeek = fields[4];
  if ((dayOfMonth === '?') === (dayOfWeek === '?')) {
    return `exactly one of day-of-month and day-of-week must be '?' in EventBridge cron, ${CRON_EXAMPLE}`;
  }
  return undefined;
}

function cronFieldProblem(field: string, spec: (typeof CRON_FIELDS)[number]): string | undefined {
  if (!spec.pattern.test(field)) return `'${field}' is not a valid ${spec.name} field, ${CRON_EXAMPLE}`;
  // Numbers after '/' are increments and after '#' the nth weekday: only values are range-checked.
  const values = field.match(/(?<![/#\d])\d+/g) ?? [];
  const outOfRange = values.map(Number).find((value) => value < spec.min || value > spec.max);
  if (outOfRange === undefined) return undefined;
  return `${outOfRange} is out of range for ${spec.name} (${spec.min}-${spec.max})`;
}

/** IANA names only: Intl also accepts offsets such as '+01:00', which EventBridge Scheduler does not. */
const IANA_ZONE_SHAPE = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;

export function timeZoneProblem(zone: string): string | undefined {
  const unknown = `'${zone}' is not an IANA time zone such as Europe/Berlin or UTC`;
  if (!IANA_ZONE_SHAPE.test(zone)) return unknown;
  let canonical: string;
  try {
    canonical = new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return unknown;
  }
  // Intl matches names case-insensitively; EventBridge Scheduler does not.
  if (canonical !== zone && canonical.toLowerCase() === zone.toLowerCase()) {
    return `time zone names are case-sensitive: did you mean '${canonical}'?`;
  }
  return undefined;
}
