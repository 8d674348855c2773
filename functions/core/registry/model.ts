import type { Severity } from '../findings/model.js';
import type { Engine } from '../terraform/engine-version.js';

/**
 * The validated registry (driftwatch.yaml). `parseRegistry` produces this from YAML; everything
 * downstream trusts it (ids are already safe as S3 key parts, owners exist, durations are parsed).
 */
export interface Registry {
  version: 1;
  owners: Owners;
  workspaces: WorkspaceConfig[];
  policies: Policies;
  locks: LockSettings;
  /** GitOps clusters (Argo CD, or manifests versus the Kubernetes API) scanned by the ScanCluster stage. */
  clusters: ClusterConfig[];
  notifications: NotificationSettings;
  suppressions: SuppressionSettings;
  schedule?: ScheduleSettings;
  /** Provider mirror for every workspace (https URL or directory); also on each WorkspaceConfig. */
  providerMirror?: string;
}

export interface Owners {
  /** Owner that receives whatever no other route claims; must be one of `teams`. */
  fallback: string;
  teams: Team[];
}

export interface Team {
  id: string;
  destinations: Destination[];
}

export type Destination =
  | { type: 'chatbot-slack'; workspace: string; channel: string; environments?: string[] }
  | { type: 'email'; address: string; environments?: string[] }
  | { type: 'https'; url: string; environments?: string[] }
  | { type: 'sqs'; queueArn: string; environments?: string[] };

export type WorkspaceSource =
  /** A directory, relative to the registry file; `path` is the Terraform root inside it. */
  | { dir: string; path?: string }
  /** A .tar.gz bundle in S3 (s3://bucket/key.tgz); `path` is the Terraform root inside it. */
  | { s3: string; path?: string };

export interface BackendConfig {
  bucket: string;
  key: string;
  region: string;
  /** Terraform CLI workspace; state then lives under `<workspaceKeyPrefix>/<workspace>/<key>`. */
  workspace?: string;
  workspaceKeyPrefix?: string;
  /** Legacy DynamoDB lock table (deprecated in favour of `use_lockfile`). */
  lockTable?: string;
  /** Require SSE-KMS on the state bucket (overrides `policies.backend.requireKms`). */
  requireKms?: boolean;
}

export interface RouteConfig {
  /** Resource address glob, e.g. `module.db.*`. */
  address?: string;
  /** Resource tag match, e.g. `{ key: Owner, value: dba }`, where the plan shows tags. */
  tag?: { key: string; value: string };
  owner: string;
}

export interface WorkspaceConfig {
  id: string;
  owner: string;
  environment: string;
  source: WorkspaceSource;
  backend: BackendConfig;
  roleArn?: string;
  externalId?: string;
  /**
   * The version of the workspace's engine (Terraform, or OpenTofu with `engine: opentofu`): exact
   * (`1.9.8`) or a constraint (`~> 1.9.0`). Unset: the root's version file, then its required_version.
   */
  terraformVersion?: string;
  /** `terraform` (default) or `opentofu`: runs `tofu` with the same arguments and environment. */
  engine?: Engine;
  routes: RouteConfig[];
  /** Extra environment for Terraform, e.g. TF_VAR_* (never secrets: the registry is not a vault). */
  env: Record<string, string>;
  /** Lets `env` set HTTP(S)_PROXY / NO_PROXY (formats.ts ALLOWED_ENV_SUMMARY says what else it may set). */
  allowProxyEnv?: boolean;
  /**
   * `-var-file` arguments of every plan, relative to the workspace source (the `dir` or the bundle's
   * root, not `source.path`) and kept inside it, e.g. `env/prod.tfvars`. Required variables without
   * a value fail the plan.
   */
  varFiles: string[];
  /**
   * Plain variable values, passed as `-var name=value` after the var files (so they win over them).
   * Values are already in `-var` form: strings as they are, other types as JSON (valid HCL).
   */
  vars?: Record<string, string>;
  /**
   * Secret variables, by where their value is: resolved at scan time and given to Terraform only as
   * `TF_VAR_<name>` in its process environment (never argv, never logged, redacted from diagnostics).
   */
  sensitiveVars?: Record<string, SecretReference>;
  /** Per-workspace stale-lock thresholds (ms), over the registry's `locks.staleAfter`. */
  locks?: { staleAfterMs: Partial<LockSettings['staleAfterMs']> };
  /**
   * Where Terraform installs providers from: the registry's top-level `providerMirror` (an https URL
   * of a provider network mirror, or a filesystem mirror directory), set on every workspace by the
   * parser. Absent: the origin registries (or this machine's own mirror, see cli-config.ts).
   */
  providerMirror?: string;
  /**
   * Credentials for private git module sources, used by `terraform init` only: the workspace's own
   * list, else the registry's top-level `moduleSources` (the parser resolves this).
   */
  moduleSources?: ModuleSourceCredentials[];
  /** Tokens for private module registries (`TF_TOKEN_<host>` during init): the workspace's list, else the top-level one. */
  registries?: RegistryCredentials[];
  /**
   * Where the deployed scan runs: `lambda` (default, up to Lambda's 15 minutes) or `codebuild` (the
   * same image and entrypoint in CodeBuild, for plans that take longer). Locally every scan runs in
   * process. A workspace whose Lambda plan timed out recently runs in CodeBuild on its own.
   */
  runner?: WorkspaceRunner;
  /**
   * The scan's time budget (ms): in Lambda, Terraform is stopped at this or at the invocation's
   * remaining time, whichever comes first; in CodeBuild, the build timeout (default 2 h).
   */
  timeout?: number;
}

export const WORKSPACE_RUNNERS = ['lambda', 'codebuild'] as const;
export type WorkspaceRunner = (typeof WORKSPACE_RUNNERS)[number];
/** CodeBuild's build timeout bounds: 5 minutes to 8 hours. */
export const MIN_WORKSPACE_TIMEOUT_MS = 5 * 60_000;
export const MAX_WORKSPACE_TIMEOUT_MS = 8 * 60 * 60_000;
export const WORKSPACE_TIMEOUT_RANGE = 'must be from 5m to 8h (CodeBuild build timeouts)';

export interface IgnoreRule {
  /** Resource address glob, e.g. `aws_autoscaling_group.*`. */
  address: string;
  /** Attribute path glob, e.g. `desired_capacity`, `tags.*`. */
  path: string;
  reason: string;
  /** ISO date (YYYY-MM-DD); the rule stops applying after this day. */
  until?: string;
}

export interface NoiseSettings {
  /** null versus empty collection or string is not drift. */
  nullVersusEmpty: boolean;
  /** Attributes of a parent resource managed by a companion resource in the same configuration. */
  companionAttributes: boolean;
  /** Strings that hold the same JSON document (policies re-serialised by AWS). */
  equivalentJson: boolean;
  /** A rule's protocol as a name versus its number (`tcp` ≡ `6`): network ACLs read back numbers. */
  equivalentProtocols: boolean;
  /** `tags_all` changes are reported once, as `tags`. */
  foldTagsAll: boolean;
  /** Attributes AWS moves on by itself (`latest_restorable_time`): never a decision to revert or adopt. */
  volatileAttributes: boolean;
}

export interface SeverityOverride {
  ruleId?: string;
  /** Resource address glob. */
  address?: string;
  environment?: string;
  severity: Severity;
}

export interface Policies {
  noise: NoiseSettings;
  ignore: IgnoreRule[];
  severity: {
    /** Environments treated as production; other environments rank one level lower. */
    production: string[];
    overrides: SeverityOverride[];
  };
  deletionGuard: {
    /** Share of a workspace's managed resources whose reported deletion triggers a confirming plan. */
    ratio: number;
  };
  backend: {
    /**
     * Require SSE-KMS on state buckets. Off by default: AWS encrypts every bucket with SSE-S3 now,
     * and KMS is a choice (key policies, CloudTrail of decrypts) rather than a baseline.
     */
    requireKms: boolean;
  };
}

export interface LockSettings {
  /** Milliseconds after which a lock held by an operation is considered stale. */
  staleAfterMs: { plan: number; apply: number; default: number };
  /** Milliseconds between the two observations that prove a lock stale. */
  confirmAfterMs: number;
}

export interface NotificationSettings {
  /** A finding still open this long (and every multiple of it) is repeated in its owner's digest. */
  remindEveryMs: number;
  /** Findings listed in full in one digest; the rest are counted ("+N more"). */
  maxFindingsPerDigest: number;
}

export interface SuppressionSettings {
  /** The longest a suppression may last: every suppression ends and is reviewed again. */
  maxDurationMs: number;
}

export const DEFAULT_NOTIFICATION_SETTINGS: NotificationSettings = {
  remindEveryMs: 7 * 24 * 60 * 60_000,
  maxFindingsPerDigest: 15,
};

export const DEFAULT_SUPPRESSION_SETTINGS: SuppressionSettings = {
  maxDurationMs: 90 * 24 * 60 * 60_000,
};

export interface ScheduleSettings {
  cron: string;
  timezone: string;
  /** A scan-missing alert goes to the fallback owner when no scan completed for this long. */
  alertAfterMs: number;
}

/** A nightly schedule, plus slack for a late start and a long scan. */
export const DEFAULT_SCAN_ALERT_AFTER_MS = 26 * 60 * 60_000;

/** How old the last completed scan may be before `scan-missing` (a registry without a schedule: the default). */
export function scanAlertAfterMs(registry: Pick<Registry, 'schedule'> | undefined): number {
  return registry?.schedule?.alertAfterMs ?? DEFAULT_SCAN_ALERT_AFTER_MS;
}

export const DEFAULT_POLICIES: Policies = {
  noise: {
    nullVersusEmpty: true,
    companionAttributes: true,
    equivalentJson: true,
    foldTagsAll: true,
    volatileAttributes: true,
    equivalentProtocols: true,
  },
  ignore: [],
  severity: { production: ['prod', 'production'], overrides: [] },
  deletionGuard: { ratio: 0.5 },
  backend: { requireKms: false },
};

/** Whether an environment counts as production for severities and scopes (names compare case-insensitively). */
export function isProductionEnvironment(environment: string, policies: Policies): boolean {
  const normalised = environment.toLowerCase();
  return policies.severity.production.some((name) => name.toLowerCase() === normalised);
}

export const DEFAULT_LOCK_SETTINGS: LockSettings = {
  staleAfterMs: { plan: 60 * 60_000, apply: 2 * 60 * 60_000, default: 30 * 60_000 },
  confirmAfterMs: 10 * 60_000,
};

/** Workspace, team and other ids become S3 key parts: keep them to this alphabet. */
export const SAFE_ID = /^[a-z0-9][a-z0-9\-_.]{0,62}$/;

/** An Argo CD API token or a sensitive variable: from Secrets Manager in AWS, from an environment variable locally. Never the value. */
export type SecretReference = { secretsManager: string } | { env: string };

/**
 * How Terraform's git may authenticate to one host. Each secret is a reference, resolved at scan
 * time and written only into the run's private directory.
 */
export interface ModuleSourceCredentials {
  /** Host name, with `:port` when not the default one: `git.example.com`. Credentials go to this host only. */
  host: string;
  /** `git::https://<host>/...` sources: a token sent as the password of `username`. */
  https?: { token: SecretReference; username: string };
  /**
   * `git::ssh://...` / `git@<host>:...` sources: a private key (OpenSSH or PEM) and the host's public
   * keys as known_hosts lines (required: host keys are never accepted on first use).
   */
  ssh?: { privateKey: SecretReference; knownHosts: string };
}

/** A private module registry (Terraform's module registry protocol), e.g. a Terraform Enterprise host. */
export interface RegistryCredentials {
  host: string;
  token: SecretReference;
}

/** Git's usual username for a token when the registry names none (GitHub's; GitLab and others accept any). */
export const DEFAULT_GIT_TOKEN_USERNAME = 'x-access-token';

export interface ArgoCdSource {
  /** The Argo CD server, e.g. https://argocd.example.com (http only on loopback, for tests). */
  url: string;
  token: SecretReference;
  /** Only applications of this project. */
  project?: string;
  /** Only applications matching this label selector, e.g. `team=payments`. */
  selector?: string;
  /** Namespace of the applications when Argo CD serves applications in any namespace. */
  appNamespace?: string;
  /**
   * The CA that signed the server's certificate, base64 PEM (`base64 -w0 ca.pem`), when no public
   * CA did (Argo CD's default install serves a self-signed one): trusted for this server only.
   */
  certificateAuthority?: string;
}

/** Where the desired manifests come from in direct mode. */
export type ManifestSource =
  /**
   * A kustomize overlay, relative to the registry file, rendered with `kubectl kustomize` (or
   * `kustomize build` when render.kustomize is set); `enableHelm` inflates its `helmCharts`.
   */
  | { kustomize: string; enableHelm?: boolean }
  /** A local Helm chart rendered with `helm template` (as Argo CD renders a Helm source). */
  | { helm: HelmChartSource }
  /**
   * Plain manifests, as Argo CD reads a directory source: the `.yaml`, `.yml` and `.json` files of
   * the directory (relative to the registry file), and of its subdirectories with `recurse`.
   */
  | { directory: string; recurse?: boolean }
  /** A multi-document YAML file rendered by CI, e.g. s3://ci-artifacts/prod/rendered.yaml. */
  | { s3: string };

export interface HelmChartSource {
  /** The chart's directory, relative to the registry file. */
  chart: string;
  /** The release name (`helm template <release> <chart>`). */
  release: string;
  /** The release namespace (`-n`); objects without a namespace are rendered into it. */
  namespace?: string;
  /** Values files relative to the registry file, applied in order (`-f`; the last one wins). */
  values?: string[];
}

/** The binaries that render manifests, when not the ones on PATH. */
export interface RenderTools {
  /** Default `kubectl` (its embedded kustomize renders overlays). */
  kubectl?: string;
  /** A standalone `kustomize`; when set, overlays render with `kustomize build` instead of kubectl. */
  kustomize?: string;
  /** Default `helm`: runs `helm template`, and kustomize's `helmCharts` with `enableHelm`. */
  helm?: string;
}

/** Access to an EKS cluster's API with a token presigned from the scanner's (or an assumed) AWS identity. */
export interface EksAccess {
  cluster: string;
  region: string;
  /** The cluster's API endpoint (`aws eks describe-cluster --query cluster.endpoint`). */
  server: string;
  /** The cluster CA, base64 PEM (`--query cluster.certificateAuthority.data`); public, not a secret. */
  certificateAuthority?: string;
  roleArn?: string;
  externalId?: string;
}

/**
 * How direct mode decides what the cluster would hold if Git were applied:
 * - `server-dry-run`: a server-side apply dry-run of each manifest (`patch` with dryRun=All), falling
 *   back per object to `openapi` where the server refuses it;
 * - `openapi`: the manifest normalised with the cluster's OpenAPI v3 schemas (no dry-run requests);
 * - `declared`: only the fields the manifest sets, with no schema (GET only).
 */
export const CLUSTER_COMPARISONS = ['server-dry-run', 'openapi', 'declared'] as const;
export type ClusterComparison = (typeof CLUSTER_COMPARISONS)[number];
export const DEFAULT_CLUSTER_COMPARISON: ClusterComparison = 'server-dry-run';
/** `kubectl apply --server-side`'s field manager; Argo CD's is `argocd-controller`. */
export const DEFAULT_FIELD_MANAGER = 'kubectl';

export interface KubernetesSource {
  /** A kubeconfig context (KUBECONFIG or ~/.kube/config): local runs. */
  context?: string;
  eks?: EksAccess;
  manifests: ManifestSource;
  /** Paths of the rendering binaries (kubectl, kustomize, helm) when not the ones on PATH. */
  render?: RenderTools;
  /** Default `server-dry-run`. */
  comparison?: ClusterComparison;
  /** The field manager of the dry-run apply: the one the applier uses (default `kubectl`). */
  fieldManager?: string;
  /**
   * Differences that are not drift, in Argo CD's `ignoreDifferences` shape: for clusters without
   * Argo CD, or rules Argo CD's own settings do not hold. Applied with the tracking Application's
   * and argocd-cm's rules when those can be read.
   */
  ignoreDifferences?: IgnoreDifferencesRule[];
  /** The namespace Argo CD is installed in (argocd-cm, Applications); default `argocd`. */
  argocdNamespace?: string;
}

/**
 * An Argo CD `ignoreDifferences` entry (Application `spec.ignoreDifferences`, argocd-cm
 * `resource.customizations.ignoreDifferences.*`): the objects it covers (`group` and `kind` may be
 * globs such as `*`; `group` '' or absent is the core group) and what is not drift in them.
 */
export interface IgnoreDifferencesRule {
  group?: string;
  kind: string;
  name?: string;
  namespace?: string;
  /** RFC 6901 pointers (`/spec/replicas`, `/metadata/annotations/example.com~1x`). */
  jsonPointers?: string[];
  /** jq path expressions (`.spec.template.spec.initContainers[] | select(.name == "istio-init")`). */
  jqPathExpressions?: string[];
  /** Fields these managers own in the live object's `metadata.managedFields` (e.g. `kube-controller-manager`). */
  managedFieldsManagers?: string[];
}

/** Where Argo CD is installed when the registry does not say (its install manifests' namespace). */
export const DEFAULT_ARGOCD_NAMESPACE = 'argocd';

/** An Argo CD application whose findings go to another owner than the cluster's. */
export interface ClusterApplication {
  name: string;
  owner: string;
}

export interface ClusterConfig {
  /** The findings scope of the cluster (`current/<id>.json`). */
  id: string;
  owner: string;
  environment: string;
  /** Exactly one of `argocd` and `kubernetes`. */
  argocd?: ArgoCdSource;
  kubernetes?: KubernetesSource;
  applications: ClusterApplication[];
  /** Registry workspaces whose Terraform state manages objects in this cluster (ownership conflicts). */
  workspaces: string[];
  policies: ClusterPolicies;
  /**
   * How the cluster's Argo CD instance tracks its objects (argocd-cm
   * `application.resourceTrackingMethod`), for direct mode when argocd-cm cannot be read; default
   * `annotation`, Argo CD 3.x's default.
   */
  trackingMethod?: TrackingMethod;
}

/** Argo CD's resource tracking methods (argocd-cm `application.resourceTrackingMethod`). */
export const TRACKING_METHODS = ['annotation', 'label', 'annotation+label'] as const;
export type TrackingMethod = (typeof TRACKING_METHODS)[number];

export interface ClusterPolicies {
  /** A production application without automated sync or selfHeal that stays OutOfSync this long is a finding. */
  outOfSyncAfterMs: number;
}

export const DEFAULT_CLUSTER_POLICIES: ClusterPolicies = { outOfSyncAfterMs: 60 * 60_000 };
