/**
 * The shape of driftwatch.yaml, built with `zod/mini` to keep Lambda bundles small. Cross-entry
 * rules (unique ids, owners that exist) live in references.ts; positions and wording of problems
 * in issues.ts. Every object is strict: a misspelt optional key would otherwise be ignored
 * silently and its default applied, which is the worst kind of configuration bug.
 */
import * as z from 'zod/mini';
import { SEVERITIES } from '../findings/model.js';
import { ENGINES } from '../terraform/engine-version.js';
import {
  apiServerUrlProblem,
  certificateAuthorityProblem,
  eksClusterNameProblem,
  fieldManagerProblem,
  jqPathExpressionProblem,
  jsonPointerProblem,
  labelSelectorProblem,
  secretIdProblem,
  serverCertificateAuthorityProblem,
  tokenEnvNameProblem,
} from './cluster-formats.js';
import { DURATION_EXAMPLES, parseDuration } from './duration.js';
import {
  bucketNameProblem,
  cronProblem,
  emailProblem,
  envNameProblem,
  envValueProblem,
  externalIdProblem,
  httpsUrlProblem,
  keyPrefixProblem,
  lockTableProblem,
  plainVariableNameProblem,
  providerMirrorProblem,
  queueArnProblem,
  regionProblem,
  relativePathProblem,
  roleArnProblem,
  s3UriProblem,
  safeIdProblem,
  slackChannelProblem,
  slackWorkspaceProblem,
  stateKeyProblem,
  terraformVersionProblem,
  terraformWorkspaceProblem,
  timeZoneProblem,
  toIsoDate,
  variableNameProblem,
} from './formats.js';
import {
  CLUSTER_COMPARISONS,
  type ClusterConfig,
  DEFAULT_CLUSTER_POLICIES,
  DEFAULT_GIT_TOKEN_USERNAME,
  DEFAULT_LOCK_SETTINGS,
  DEFAULT_NOTIFICATION_SETTINGS,
  DEFAULT_POLICIES,
  DEFAULT_SCAN_ALERT_AFTER_MS,
  DEFAULT_SUPPRESSION_SETTINGS,
  type LockSettings,
  MAX_WORKSPACE_TIMEOUT_MS,
  type ManifestSource,
  MIN_WORKSPACE_TIMEOUT_MS,
  type ModuleSourceCredentials,
  type NotificationSettings,
  type Policies,
  type RegistryCredentials,
  type ScheduleSettings,
  type SecretReference,
  type SuppressionSettings,
  TRACKING_METHODS,
  WORKSPACE_RUNNERS,
  WORKSPACE_TIMEOUT_RANGE,
  type WorkspaceSource,
} from './model.js';
import {
  gitUsernameProblem,
  knownHostsCoverHost,
  knownHostsProblem,
  moduleHostProblem,
} from './module-formats.js';
import { quotedName } from './problems.js';
import { choiceHint } from './suggest.js';

/** Marks the issue raised for a key the schema does not know; issues.ts adds "did you mean". */
export interface UnknownKeyParams {
  knownKeys: string[];
}

/** Marks an issue about a mapping key (an env variable name) rather than its value. */
export interface KeyIssueParams {
  target: 'key';
}

type ProblemFinder<T> = (value: T) => string | undefined;

/** A check that reports the sentence `findProblem` returns, so messages say what is wrong. */
function problemCheck<T>(findProblem: ProblemFinder<T>) {
  return z.check<T>((payload) => {
    const message = findProblem(payload.value);
    if (message !== undefined) payload.issues.push({ code: 'custom', message, input: payload.value });
  });
}

/** A non-empty string, optionally with a format check (which then never sees the empty string). */
function text(findProblem: ProblemFinder<string> = () => undefined) {
  return z
    .string()
    .check(problemCheck<string>((value) => (value === '' ? 'must not be empty' : findProblem(value))));
}

/** An object that rejects unknown keys, one issue per key, each naming the keys it knows. */
function strictObject<Shape extends z.core.$ZodLooseShape>(shape: Shape) {
  const params: UnknownKeyParams = { knownKeys: Object.keys(shape) };
  // abort: false lets the object's own checks (exactlyOneOf) still run and report alongside.
  return z.catchall(
    z.object(shape),
    z.custom<never>(() => false, { error: 'unknown key', params, abort: false }),
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Requires exactly one of two keys. It runs even when other keys are invalid (`when`), so this
 * problem is reported together with the others instead of after they are fixed.
 */
function exactlyOneOf(first: string, second: string) {
  return z.check<unknown>(
    (payload) => {
      if (!isRecord(payload.value)) return;
      const value = payload.value;
      const present = [first, second].filter((key) => value[key] !== undefined);
      if (present.length === 1) return;
      const message =
        present.length === 0
          ? `needs '${first}' or '${second}' (exactly one)`
          : `give either '${first}' or '${second}', not both`;
      payload.issues.push({ code: 'custom', message, input: payload.value });
    },
    { when: () => true },
  );
}

const safeId = text(safeIdProblem);
function nonEmptyList(what: string) {
  return z.minLength(1, { error: `must list at least one ${what}` });
}

// Owners and their destinations.

const environmentFilter = z.optional(z.array(text()).check(nonEmptyList('environment')));

const destinationSchema = z.discriminatedUnion('type', [
  strictObject({
    type: z.literal('chatbot-slack'),
    workspace: text(slackWorkspaceProblem),
    channel: text(slackChannelProblem),
    environments: environmentFilter,
  }),
  strictObject({ type: z.literal('email'), address: text(emailProblem), environments: environmentFilter }),
  strictObject({ type: z.literal('https'), url: text(httpsUrlProblem), environments: environmentFilter }),
  strictObject({ type: z.literal('sqs'), queueArn: text(queueArnProblem), environments: environmentFilter }),
]);

const teamSchema = strictObject({
  id: safeId,
  // A team without destinations would silently swallow every finding routed to it.
  destinations: z.array(destinationSchema).check(nonEmptyList('destination')),
});

const ownersSchema = strictObject({
  fallback: safeId,
  teams: z.array(teamSchema),
});

// Durations (lock thresholds, globally and per workspace).

const durationSchema = z.pipe(
  z.string({ error: `expected a duration such as ${DURATION_EXAMPLES}` }),
  z.transform((value, payload) => {
    let problem = 'must be longer than zero';
    try {
      const duration = parseDuration(value);
      if (duration > 0) return duration;
    } catch (error) {
      problem = (error as Error).message;
    }
    payload.issues.push({ code: 'custom', message: problem, input: value });
    return z.NEVER;
  }),
);

const staleAfterSchema = strictObject({
  plan: z.optional(durationSchema),
  apply: z.optional(durationSchema),
  default: z.optional(durationSchema),
});

// Workspaces.

const sourceSchema = z.pipe(
  strictObject({
    dir: z.optional(text()),
    s3: z.optional(text(s3UriProblem)),
    path: z.optional(text(relativePathProblem)),
  }).check(exactlyOneOf('dir', 's3')),
  z.transform((source): WorkspaceSource => {
    const root = source.path === undefined ? {} : { path: source.path };
    return source.s3 !== undefined ? { s3: source.s3, ...root } : { dir: source.dir ?? '', ...root };
  }),
);

const backendSchema = strictObject({
  bucket: text(bucketNameProblem),
  key: text(stateKeyProblem),
  region: text(regionProblem),
  workspace: z.optional(text(terraformWorkspaceProblem)),
  workspaceKeyPrefix: z.optional(text(keyPrefixProblem)),
  lockTable: z.optional(text(lockTableProblem)),
  requireKms: z.optional(z.boolean()),
});

const routeSchema = strictObject({
  address: z.optional(text()),
  tag: z.optional(strictObject({ key: text(), value: z.string() })),
  owner: safeId,
}).check(exactlyOneOf('address', 'tag'));

/**
 * Names are checked even when a value is invalid, so that all env problems come out together. The
 * check sits on the workspace because proxies depend on its `allowProxyEnv`.
 */
const envNamesCheck = z.check<unknown>(
  (payload) => {
    if (!isRecord(payload.value) || !isRecord(payload.value.env)) return;
    const allowProxy = payload.value.allowProxyEnv === true;
    const params: KeyIssueParams = { target: 'key' };
    for (const name of Object.keys(payload.value.env)) {
      const message = envNameProblem(name, { allowProxy });
      if (message !== undefined)
        payload.issues.push({ code: 'custom', message, input: name, path: ['env', name], params });
    }
  },
  { when: () => true },
);

/** A secret's place (Secrets Manager in AWS, an environment variable locally), never its value. */
const secretReferenceSchema = z.pipe(
  strictObject({
    secretsManager: z.optional(text(secretIdProblem)),
    env: z.optional(text(tokenEnvNameProblem)),
  }).check(exactlyOneOf('secretsManager', 'env')),
  z.transform(
    (token): SecretReference =>
      token.secretsManager !== undefined
        ? { secretsManager: token.secretsManager }
        : { env: token.env ?? '' },
  ),
);

const envSchema = z.record(z.string(), z.string().check(problemCheck(envValueProblem)));

/**
 * Variable names are checked on the workspace (like env names), so that every bad name is reported
 * at its key, and so that one variable given two ways is caught: Terraform would silently let
 * `-var` win over a sensitive TF_VAR_, and the scan would plan with a value nobody meant.
 */
const variableNamesCheck = z.check<unknown>(
  (payload) => {
    if (!isRecord(payload.value)) return;
    const { vars, sensitiveVars, env } = payload.value;
    const params: KeyIssueParams = { target: 'key' };
    const report = (field: string, name: string, message: string) =>
      payload.issues.push({ code: 'custom', message, input: name, path: [field, name], params });
    const plain = isRecord(vars) ? Object.keys(vars) : [];
    const sensitive = isRecord(sensitiveVars) ? Object.keys(sensitiveVars) : [];
    const fromEnv = new Set(
      (isRecord(env) ? Object.keys(env) : []).flatMap((name) =>
        name.startsWith('TF_VAR_') ? [name.slice('TF_VAR_'.length)] : [],
      ),
    );
    for (const name of plain) {
      const message = plainVariableNameProblem(name);
      if (message !== undefined) report('vars', name, message);
      else if (fromEnv.has(name))
        report('vars', name, `${quotedName(name)} is also set by env TF_VAR_${name}: set it once`);
    }
    for (const name of sensitive) {
      const message = variableNameProblem(name);
      if (message !== undefined) report('sensitiveVars', name, message);
      else if (plain.includes(name) || fromEnv.has(name))
        report(
          'sensitiveVars',
          name,
          `${quotedName(name)} is also set in ${plain.includes(name) ? 'vars' : 'env'}: a sensitive variable is set only here`,
        );
    }
  },
  { when: () => true },
);

/**
 * A plain variable's value as Terraform's `-var` takes it: strings as they are, numbers, booleans,
 * lists and maps as HCL (JSON is valid HCL). Secret-looking values are refused, as in env.
 */
const variableValueSchema = z.pipe(
  z.union([z.string(), z.number(), z.boolean(), z.array(z.unknown()), z.record(z.string(), z.unknown())], {
    error: 'expected a string, number, boolean, list or map',
  }),
  z.transform((value, payload) => {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    const problem = envValueProblem(text);
    if (problem === undefined) return text;
    payload.issues.push({
      code: 'custom',
      message: problem.replace('; put', '; use sensitiveVars, or put'),
      input: '',
    });
    return z.NEVER;
  }),
);

// Private module credentials (top level, or per workspace).

/** An `ssh` entry's known_hosts must name its host: otherwise ssh refuses it only at scan time. */
const knownHostsForHostCheck = z.check<unknown>((payload) => {
  if (!isRecord(payload.value) || !isRecord(payload.value.ssh)) return;
  const { host } = payload.value;
  const { knownHosts } = payload.value.ssh;
  if (typeof host !== 'string' || typeof knownHosts !== 'string' || knownHostsProblem(knownHosts)) return;
  if (moduleHostProblem(host) !== undefined || knownHostsCoverHost(knownHosts, host)) return;
  const message = `has no line for ${host} (ssh checks the host's key against these lines only)`;
  payload.issues.push({ code: 'custom', message, input: '', path: ['ssh', 'knownHosts'] });
});

const moduleSourceSchema = strictObject({
  host: text(moduleHostProblem),
  https: z.optional(
    z.pipe(
      strictObject({ token: secretReferenceSchema, username: z.optional(text(gitUsernameProblem)) }),
      z.transform(({ token, username }) => ({ token, username: username ?? DEFAULT_GIT_TOKEN_USERNAME })),
    ),
  ),
  ssh: z.optional(strictObject({ privateKey: secretReferenceSchema, knownHosts: text(knownHostsProblem) })),
}).check(
  z.check<unknown>(
    (payload) => {
      if (!isRecord(payload.value) || payload.value.https !== undefined || payload.value.ssh !== undefined)
        return;
      payload.issues.push({ code: 'custom', message: `needs 'https' or 'ssh' (or both)`, input: '' });
    },
    { when: () => true },
  ),
  knownHostsForHostCheck,
);

/** One entry per host: with two, which credential git or Terraform would use is a guess. */
const uniqueHostsCheck = z.check<unknown[]>(
  (payload) => {
    const seen = new Set<string>();
    payload.value.forEach((entry, index) => {
      const host = isRecord(entry) ? entry.host : undefined;
      if (typeof host !== 'string') return;
      if (seen.has(host))
        payload.issues.push({
          code: 'custom',
          message: `host ${host} is listed twice: one entry per host`,
          input: host,
          path: [index, 'host'],
        });
      seen.add(host);
    });
  },
  { when: () => true },
);

const moduleSourcesSchema = z.array(moduleSourceSchema).check(uniqueHostsCheck);
const registriesSchema = z
  .array(strictObject({ host: text(moduleHostProblem), token: secretReferenceSchema }))
  .check(uniqueHostsCheck);

const workspaceSchema = strictObject({
  id: safeId,
  owner: safeId,
  environment: text(),
  source: sourceSchema,
  backend: backendSchema,
  roleArn: z.optional(text(roleArnProblem)),
  externalId: z.optional(text(externalIdProblem)),
  terraformVersion: z.optional(text(terraformVersionProblem)),
  engine: z.optional(choiceOf(ENGINES, `expected ${ENGINES.join(' or ')}`)),
  routes: z._default(z.array(routeSchema), () => []),
  env: z._default(envSchema, () => ({})),
  allowProxyEnv: z.optional(z.boolean()),
  varFiles: z._default(z.array(text(relativePathProblem)), () => []),
  // Optional rather than defaulted: an entry without variables stays as it was written.
  vars: z.optional(z.record(z.string(), variableValueSchema)),
  sensitiveVars: z.optional(z.record(z.string(), secretReferenceSchema)),
  // Given on a workspace, these replace the top-level lists (`[]` gives the workspace none).
  moduleSources: z.optional(moduleSourcesSchema),
  registries: z.optional(registriesSchema),
  locks: z.optional(
    z.pipe(
      strictObject({ staleAfter: z.optional(staleAfterSchema) }),
      z.transform((locks) => ({ staleAfterMs: { ...locks.staleAfter } })),
    ),
  ),
  runner: z.optional(choiceOf(WORKSPACE_RUNNERS, `expected ${WORKSPACE_RUNNERS.join(' or ')}`)),
  timeout: z.optional(
    z.pipe(
      durationSchema,
      z.transform((ms, payload) => {
        if (ms >= MIN_WORKSPACE_TIMEOUT_MS && ms <= MAX_WORKSPACE_TIMEOUT_MS) return ms;
        payload.issues.push({ code: 'custom', message: WORKSPACE_TIMEOUT_RANGE, input: ms });
        return z.NEVER;
      }),
    ),
  ),
}).check(envNamesCheck, variableNamesCheck);

// Policies.

const isoDateSchema = z.pipe(
  z.union([z.string(), z.date()], { error: 'expected a date (YYYY-MM-DD), e.g. 2027-03-01' }),
  z.transform((value, payload) => {
    const result = toIsoDate(value);
    if ('date' in result) return result.date;
    payload.issues.push({ code: 'custom', message: result.problem, input: value });
    return z.NEVER;
  }),
);

const ignoreRuleSchema = strictObject({
  address: text(),
  path: text(),
  // Shown next to every suppressed finding: a suppression nobody can explain gets removed.
  reason: text(),
  until: z.optional(isoDateSchema),
});

/** One of `values`: the message names them, and the closest one to a typo (`lamda` -> `lambda`). */
function choiceOf<const T extends readonly string[]>(values: T, message: string) {
  return z.enum(values, {
    error: (issue) => `${message}${choiceHint(issue.input, values)}`,
  });
}

const severitySchema = choiceOf(SEVERITIES, `must be one of: ${SEVERITIES.join(', ')}`);

const severityOverrideSchema = strictObject({
  ruleId: z.optional(text()),
  address: z.optional(text()),
  environment: z.optional(text()),
  severity: severitySchema,
});

const ratioSchema = z
  .number()
  .check(
    problemCheck<number>((ratio) =>
      ratio > 0 && ratio <= 1
        ? undefined
        : `must be greater than 0 and at most 1 (a share, e.g. 0.5), not ${ratio}`,
    ),
  );

const policiesSchema = z.pipe(
  strictObject({
    noise: z.optional(
      strictObject({
        nullVersusEmpty: z.optional(z.boolean()),
        companionAttributes: z.optional(z.boolean()),
        equivalentJson: z.optional(z.boolean()),
        foldTagsAll: z.optional(z.boolean()),
        volatileAttributes: z.optional(z.boolean()),
        equivalentProtocols: z.optional(z.boolean()),
      }),
    ),
    ignore: z.optional(z.array(ignoreRuleSchema)),
    severity: z.optional(
      strictObject({
        production: z.optional(z.array(text())),
        overrides: z.optional(z.array(severityOverrideSchema)),
      }),
    ),
    deletionGuard: z.optional(strictObject({ ratio: z.optional(ratioSchema) })),
    backend: z.optional(strictObject({ requireKms: z.optional(z.boolean()) })),
  }),
  z.transform(
    (policies): Policies => ({
      noise: withDefaults(DEFAULT_POLICIES.noise, policies.noise),
      ignore: policies.ignore ?? [...DEFAULT_POLICIES.ignore],
      severity: {
        production: policies.severity?.production ?? [...DEFAULT_POLICIES.severity.production],
        overrides: policies.severity?.overrides ?? [...DEFAULT_POLICIES.severity.overrides],
      },
      deletionGuard: withDefaults(DEFAULT_POLICIES.deletionGuard, policies.deletionGuard),
      backend: withDefaults(DEFAULT_POLICIES.backend, policies.backend),
    }),
  ),
);

// Locks.

const locksSchema = z.pipe(
  strictObject({
    staleAfter: z.optional(staleAfterSchema),
    confirmAfter: z.optional(durationSchema),
  }),
  z.transform(
    (locks): LockSettings => ({
      staleAfterMs: withDefaults(DEFAULT_LOCK_SETTINGS.staleAfterMs, locks.staleAfter),
      confirmAfterMs: locks.confirmAfter ?? DEFAULT_LOCK_SETTINGS.confirmAfterMs,
    }),
  ),
);

// Notifications and suppressions.

const notificationsSchema = z.pipe(
  strictObject({
    remindEvery: z.optional(durationSchema),
    maxFindingsPerDigest: z.optional(z.int().check(z.positive())),
  }),
  z.transform(
    (notifications): NotificationSettings => ({
      remindEveryMs: notifications.remindEvery ?? DEFAULT_NOTIFICATION_SETTINGS.remindEveryMs,
      maxFindingsPerDigest:
        notifications.maxFindingsPerDigest ?? DEFAULT_NOTIFICATION_SETTINGS.maxFindingsPerDigest,
    }),
  ),
);

const suppressionsSchema = z.pipe(
  strictObject({ maxDuration: z.optional(durationSchema) }),
  z.transform(
    (suppressions): SuppressionSettings => ({
      maxDurationMs: suppressions.maxDuration ?? DEFAULT_SUPPRESSION_SETTINGS.maxDurationMs,
    }),
  ),
);

// Clusters (GitOps).

const argoCdSchema = strictObject({
  url: text(apiServerUrlProblem),
  token: secretReferenceSchema,
  project: z.optional(text()),
  selector: z.optional(text(labelSelectorProblem)),
  appNamespace: z.optional(text()),
  certificateAuthority: z.optional(text(serverCertificateAuthorityProblem)),
});

const helmChartSchema = strictObject({
  chart: text(relativePathProblem),
  release: text(),
  namespace: z.optional(text()),
  values: z.optional(z.array(text(relativePathProblem))),
});

const MANIFEST_SOURCE_KEYS = ['kustomize', 'helm', 'directory', 's3'] as const;

const manifestSourceSchema = z.pipe(
  strictObject({
    kustomize: z.optional(text(relativePathProblem)),
    enableHelm: z.optional(z.boolean()),
    helm: z.optional(helmChartSchema),
    directory: z.optional(text(relativePathProblem)),
    recurse: z.optional(z.boolean()),
    s3: z.optional(text(s3UriProblem)),
  }).check(
    z.check<unknown>(
      (payload) => {
        if (!isRecord(payload.value)) return;
        const value = payload.value;
        const present = MANIFEST_SOURCE_KEYS.filter((key) => value[key] !== undefined);
        const problem =
          present.length === 0
            ? `needs one of ${MANIFEST_SOURCE_KEYS.map((key) => `'${key}'`).join(', ')}`
            : present.length > 1
              ? `give only one of ${present.map((key) => `'${key}'`).join(', ')}`
              : value.enableHelm !== undefined && present[0] !== 'kustomize'
                ? "'enableHelm' applies to 'kustomize' only (a 'helm' source is rendered by Helm itself)"
                : value.recurse !== undefined && present[0] !== 'directory'
                  ? "'recurse' applies to 'directory' only"
                  : undefined;
        if (problem) payload.issues.push({ code: 'custom', message: problem, input: payload.value });
      },
      { when: () => true },
    ),
  ),
  z.transform((source): ManifestSource => {
    if (source.s3 !== undefined) return { s3: source.s3 };
    if (source.helm !== undefined) return { helm: source.helm };
    if (source.directory !== undefined)
      return {
        directory: source.directory,
        ...(source.recurse === undefined ? {} : { recurse: source.recurse }),
      };
    return {
      kustomize: source.kustomize ?? '',
      ...(source.enableHelm === undefined ? {} : { enableHelm: source.enableHelm }),
    };
  }),
);

const renderToolsSchema = strictObject({
  kubectl: z.optional(text()),
  kustomize: z.optional(text()),
  helm: z.optional(text()),
});

const eksSchema = strictObject({
  cluster: text(eksClusterNameProblem),
  region: text(regionProblem),
  server: text(apiServerUrlProblem),
  certificateAuthority: z.optional(text(certificateAuthorityProblem)),
  roleArn: z.optional(text(roleArnProblem)),
  externalId: z.optional(text(externalIdProblem)),
});

const IGNORE_DIFFERENCES_KEYS = ['jsonPointers', 'jqPathExpressions', 'managedFieldsManagers'] as const;

/** Argo CD's `ignoreDifferences` entry, as an Application's `spec.ignoreDifferences` states it. */
const ignoreDifferencesSchema = strictObject({
  // '' is the core group (Service, ConfigMap); group and kind may be globs such as '*'.
  group: z.optional(z.string()),
  kind: text(),
  name: z.optional(text()),
  namespace: z.optional(text()),
  jsonPointers: z.optional(z.array(text(jsonPointerProblem))),
  jqPathExpressions: z.optional(z.array(text(jqPathExpressionProblem))),
  managedFieldsManagers: z.optional(z.array(text(fieldManagerProblem))),
}).check(
  z.check<unknown>(
    (payload) => {
      if (!isRecord(payload.value)) return;
      const value = payload.value;
      if (IGNORE_DIFFERENCES_KEYS.some((key) => value[key] !== undefined)) return;
      const message = `says what to ignore with one of ${IGNORE_DIFFERENCES_KEYS.map((key) => `'${key}'`).join(', ')}`;
      payload.issues.push({ code: 'custom', message, input: payload.value });
    },
    { when: () => true },
  ),
);

const kubernetesSchema = strictObject({
  context: z.optional(text()),
  eks: z.optional(eksSchema),
  manifests: manifestSourceSchema,
  render: z.optional(renderToolsSchema),
  comparison: z.optional(choiceOf(CLUSTER_COMPARISONS, `expected ${CLUSTER_COMPARISONS.join(' or ')}`)),
  fieldManager: z.optional(text(fieldManagerProblem)),
  ignoreDifferences: z.optional(z.array(ignoreDifferencesSchema)),
  argocdNamespace: z.optional(text()),
}).check(exactlyOneOf('context', 'eks'));

const clusterSchema = z.pipe(
  strictObject({
    id: safeId,
    owner: safeId,
    environment: text(),
    argocd: z.optional(argoCdSchema),
    kubernetes: z.optional(kubernetesSchema),
    applications: z._default(z.array(strictObject({ name: text(), owner: safeId })), () => []),
    workspaces: z._default(z.array(safeId), () => []),
    policies: z.optional(strictObject({ outOfSyncAfter: z.optional(durationSchema) })),
    trackingMethod: z.optional(choiceOf(TRACKING_METHODS, `expected ${TRACKING_METHODS.join(' or ')}`)),
  }).check(exactlyOneOf('argocd', 'kubernetes')),
  z.transform(
    ({ policies, ...cluster }): ClusterConfig => ({
      ...cluster,
      policies: {
        outOfSyncAfterMs: policies?.outOfSyncAfter ?? DEFAULT_CLUSTER_POLICIES.outOfSyncAfterMs,
      },
    }),
  ),
);

// Schedule.

const scheduleSchema = z.pipe(
  strictObject({
    cron: text(cronProblem),
    timezone: z._default(text(timeZoneProblem), 'UTC'),
    alertAfter: z.optional(durationSchema),
  }),
  z.transform(
    (schedule): ScheduleSettings => ({
      cron: schedule.cron,
      timezone: schedule.timezone,
      alertAfterMs: schedule.alertAfter ?? DEFAULT_SCAN_ALERT_AFTER_MS,
    }),
  ),
);

export const registrySchema = z.pipe(
  strictObject({
    version: z.literal(1, {
      error: (issue) =>
        issue.input === undefined
          ? 'required: add `version: 1` at the top'
          : `must be 1, the only registry version this driftwatch understands`,
    }),
    owners: ownersSchema,
    // Zero workspaces is allowed: a registry may start with owners only.
    workspaces: z._default(z.array(workspaceSchema), () => []),
    policies: z.prefault(policiesSchema, () => ({})),
    locks: z.prefault(locksSchema, () => ({})),
    clusters: z._default(z.array(clusterSchema), () => []),
    notifications: z.prefault(notificationsSchema, () => ({})),
    suppressions: z.prefault(suppressionsSchema, () => ({})),
    schedule: z.optional(scheduleSchema),
    // Credentials for private modules, for every workspace that does not list its own.
    moduleSources: z.optional(moduleSourcesSchema),
    registries: z.optional(registriesSchema),
    // One provider mirror for the whole estate (filled by `driftwatch providers mirror`).
    providerMirror: z.optional(text(providerMirrorProblem)),
  }),
  z.transform(({ moduleSources, registries, providerMirror, ...registry }) => ({
    ...registry,
    ...(providerMirror ? { providerMirror } : {}),
    workspaces: registry.workspaces.map((workspace) => ({
      ...withModuleCredentials(workspace, moduleSources, registries),
      ...(providerMirror ? { providerMirror } : {}),
    })),
  })),
);

/**
 * A workspace's effective module credentials: its own lists where it has them, else the top-level
 * ones. Left out when there are none, so entries without private modules stay as they were written.
 */
function withModuleCredentials<
  W extends { moduleSources?: ModuleSourceCredentials[]; registries?: RegistryCredentials[] },
>(
  workspace: W,
  moduleSources: ModuleSourceCredentials[] | undefined,
  registries: RegistryCredentials[] | undefined,
): W {
  const sources = workspace.moduleSources ?? moduleSources;
  const tokens = workspace.registries ?? registries;
  const { moduleSources: _sources, registries: _tokens, ...rest } = workspace;
  return {
    ...rest,
    ...(sources && sources.length > 0 ? { moduleSources: sources } : {}),
    ...(tokens && tokens.length > 0 ? { registries: tokens } : {}),
  } as W;
}

/** Defaults overlaid with the values that are set, in a fresh object: mutating it leaves the defaults alone. */
function withDefaults<T extends object>(
  defaults: T,
  overrides: { [K in keyof T]?: T[K] | undefined } | undefined,
): T {
  const merged = { ...defaults };
  for (const key of Object.keys(overrides ?? {}) as (keyof T)[]) {
    const value = overrides?.[key];
    if (value !== undefined) merged[key] = value;
  }
  return merged;
}
