import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { terraformWorkspaceProblem } from '../../core/registry/formats.js';
import { type ConfigurationFileOptions, configurationFiles, isOverrideFile } from './configuration-files.js';
import { loadHcl, parseFile, problemOf } from './configuration-reader.js';
import { rootDirectoryProblem } from './root-directory.js';

/** The settings of a root module's `backend "s3"` block that a registry entry needs. */
export interface S3BackendBlock {
  /** The file that holds the block, relative to the root. */
  file: string;
  bucket?: string;
  key?: string;
  region?: string;
  workspaceKeyPrefix?: string;
  dynamodbTable?: string;
  useLockfile?: boolean;
  /** The KMS key the backend encrypts states with (`kms_key_id`). */
  kmsKeyId?: string;
  /** Settings given as an expression (`var.bucket`, `"${var.env}.tfstate"`), which Terraform refuses in a backend. */
  expressions?: string[];
}

export type BackendBlockReading =
  | { found: 's3'; block: S3BackendBlock }
  /** A root with another backend (`remote`, `gcs`, `local`, or a `cloud` block): driftwatch reads S3 backends only. */
  | { found: 'other'; type: string; file: string }
  /** A `cloud` block: HCP Terraform or Terraform Enterprise keeps the state. */
  | { found: 'cloud'; file: string }
  /** Two backend or cloud blocks among the primary files, or in one override file: Terraform refuses the root ("Duplicate backend configuration"). */
  | { found: 'several'; files: string[] }
  | { found: 'none'; files: number };

/**
 * The `terraform { backend "…" { … } }` block of a Terraform root (its `.tf` and `.tf.json` files,
 * not modules: a backend is only valid in the root), read with HashiCorp's HCL parser. A setting
 * left out (partial configuration given to `terraform init -backend-config`) is undefined, as is
 * an interpolation, which Terraform does not allow in a backend block anyway. Throws when the
 * directory cannot be read or a file does not parse (Terraform would refuse it too).
 */
export async function readBackendBlock(
  rootDir: string,
  options: ConfigurationFileOptions = {},
): Promise<BackendBlockReading> {
  const problem = await rootDirectoryProblem(rootDir);
  if (problem) throw new Error(problem);
  const files = configurationFiles(rootDir, options);
  if (files.length === 0) return { found: 'none', files: 0 };
  const parser = await loadHcl();
  // Every block of every file, in Terraform's order (override files last): which one counts is decided below.
  const found: { type: string; file: string; settings: unknown }[] = [];
  for (const file of files) {
    let body: Record<string, unknown>;
    try {
      body = await parseFile(parser, join(rootDir, file), file);
    } catch (error) {
      // A file that cannot be read (EACCES) is said as the file system says it.
      if ((error as NodeJS.ErrnoException).code !== undefined) throw error;
      throw new Error(
        `${file} does not parse as Terraform configuration (${problemOf(file, error)}): fix it, \`terraform validate\` shows the error`,
      );
    }
    for (const terraform of bodies(body.terraform)) {
      // One body or a list of them, in HCL (as hcl2json gives it) and in Terraform's JSON syntax.
      for (const backends of bodies(terraform.backend))
        for (const [type, settings] of Object.entries(backends)) found.push({ type, file, settings });
      if (terraform.cloud !== undefined) found.push({ type: 'cloud', file, settings: undefined });
    }
  }
  // Terraform's merge (configs/module.go): two blocks among the primary files, or in one override
  // file, are "Duplicate backend configuration"; a block in an override file (`backend_override.tf`,
  // kept out of Git to use a local backend, or written by CI) replaces the primary one whole, the
  // last override file by name winning. That is the backend Terraform uses, so it is the one read.
  const primary = found.filter((block) => !isOverrideFile(block.file));
  if (primary.length > 1) return { found: 'several', files: primary.map((block) => block.file) };
  let first = primary[0];
  for (const file of new Set(
    found.filter((block) => isOverrideFile(block.file)).map((block) => block.file),
  )) {
    const blocks = found.filter((block) => block.file === file);
    if (blocks.length > 1) return { found: 'several', files: blocks.map((block) => block.file) };
    first = blocks[0];
  }
  if (first === undefined) return { found: 'none', files: files.length };
  if (first.type === 'cloud') return { found: 'cloud', file: first.file };
  if (first.type !== 's3') return { found: 'other', type: first.type, file: first.file };
  const [values] = bodies(first.settings);
  return { found: 's3', block: s3Block(first.file, values ?? {}) };
}

/**
 * The directory `terraform init` writes in a root: TF_DATA_DIR when the environment sets it (as CI
 * images and wrappers do; relative to the root, where Terraform runs), else `.terraform`. As given,
 * for messages; resolve it against the root to read it.
 */
export function terraformDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.TF_DATA_DIR;
  return dir !== undefined && dir !== '' ? dir : '.terraform';
}

/** Where `terraform init` records the backend it configured, in the data directory. */
export function initializedBackendFile(dataDir: string): string {
  return join(dataDir, 'terraform.tfstate');
}

/** Where `terraform workspace select` records the selected CLI workspace, in the data directory. */
export function selectedWorkspaceFile(dataDir: string): string {
  return join(dataDir, 'environment');
}

/**
 * The S3 backend settings the last `terraform init` in a root recorded: the block merged with its
 * `-backend-config` values, which is how real roots give bucket, key and region (the block stays
 * partial). Undefined when the root was not initialised here, with another backend, or the file
 * does not read as Terraform writes it: the caller then says what the block lacks.
 */
export async function readInitializedBackend(
  rootDir: string,
  dataDir: string,
): Promise<S3BackendBlock | undefined> {
  const file = initializedBackendFile(dataDir);
  let recorded: unknown;
  try {
    recorded = JSON.parse(await readFile(resolve(rootDir, file), 'utf8'));
  } catch {
    return undefined;
  }
  const backend = isRecord(recorded) && isRecord(recorded.backend) ? recorded.backend : undefined;
  if (backend?.type !== 's3' || !isRecord(backend.config)) return undefined;
  const block = s3Block(file, backend.config);
  // Recorded values are the values Terraform used: none is an expression.
  delete block.expressions;
  return block;
}

/**
 * The CLI workspace `terraform workspace select` left selected in a root (`<data dir>/environment`),
 * whose state lives under `<workspace_key_prefix>/<name>/`; undefined for `default`, none, or a name
 * Terraform could not have written.
 */
export async function readSelectedWorkspace(rootDir: string, dataDir: string): Promise<string | undefined> {
  let name: string;
  try {
    name = (await readFile(resolve(rootDir, selectedWorkspaceFile(dataDir)), 'utf8')).trim();
  } catch {
    return undefined;
  }
  return name === '' || name === 'default' || terraformWorkspaceProblem(name) !== undefined
    ? undefined
    : name;
}

function s3Block(file: string, values: Record<string, unknown>): S3BackendBlock {
  const expressions: string[] = [];
  const literal = (name: string) => {
    const value = values[name];
    if (typeof value === 'string' && value.includes('${')) expressions.push(name);
    return typeof value === 'string' && value !== '' && !value.includes('${') ? value : undefined;
  };
  const block: S3BackendBlock = { file };
  const bucket = literal('bucket');
  const key = literal('key');
  const region = literal('region');
  const workspaceKeyPrefix = literal('workspace_key_prefix');
  const dynamodbTable = literal('dynamodb_table');
  if (bucket) block.bucket = bucket;
  if (key) block.key = key;
  if (region) block.region = region;
  if (workspaceKeyPrefix) block.workspaceKeyPrefix = workspaceKeyPrefix;
  if (dynamodbTable) block.dynamodbTable = dynamodbTable;
  if (typeof values.use_lockfile === 'boolean') block.useLockfile = values.use_lockfile;
  const kmsKeyId = literal('kms_key_id');
  if (kmsKeyId) block.kmsKeyId = kmsKeyId;
  if (expressions.length > 0) block.expressions = expressions;
  return block;
}

/** hcl2json gives each block as a list of bodies; Terraform's JSON syntax allows one body or a list. */
function bodies(value: unknown): Record<string, unknown>[] {
  if (Array.isArray(value)) return value.filter(isRecord);
  return isRecord(value) ? [value] : [];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
