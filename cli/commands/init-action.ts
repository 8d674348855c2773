import { existsSync, linkSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, relative, resolve } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { withHttpTimeouts } from '../../functions/adapters/aws-http-timeouts.js';
import {
  bucketRegion,
  encryptsWithKms,
  listStateObjects,
} from '../../functions/adapters/backend/state-listing.js';
import {
  initializedBackendFile,
  readBackendBlock,
  readInitializedBackend,
  readSelectedWorkspace,
  type S3BackendBlock,
  selectedWorkspaceFile,
  terraformDataDir,
} from '../../functions/adapters/terraform/backend-block.js';
import { classifyReadFailure } from '../../functions/core/backend/failure-cause.js';
import { BackendReadError, type ReadFailure } from '../../functions/core/backend/ports.js';
import { shellWord } from '../../functions/core/backend/rule.js';
import { DEFAULT_WORKSPACE_KEY_PREFIX } from '../../functions/core/backend/target.js';
import {
  bucketNameProblem,
  lockTableProblem,
  regionProblem,
  stateKeyProblem,
} from '../../functions/core/registry/formats.js';
import { parseRegistry } from '../../functions/core/registry/parse.js';
import {
  guessEnvironment,
  placeholdersLeft,
  readStarterListing,
  renderStarterRegistry,
  type StarterInput,
  type StarterWorkspace,
  workspaceIdFor,
} from '../../functions/core/registry/starter.js';
import { limitText, visibleValue } from '../../functions/core/text/sanitize.js';
import { CliError, UsageError } from '../context.js';
import { assertReplaceableFile } from '../output-file.js';
import type { InitOptions } from './init.js';

export async function initAction(run: (code: number) => void, options: InitOptions): Promise<void> {
  if (options.bucket === undefined && options.root === undefined)
    throw new UsageError(
      'init needs --bucket <state-bucket> (list its state objects) or --root <dir> (read a Terraform root)',
    );
  // Checked here rather than by commander parsers: registrations load at every start, formats do not.
  const badBucket = options.bucket === undefined ? undefined : bucketNameProblem(options.bucket);
  if (badBucket) throw new UsageError(`--bucket: ${badBucket}`);
  const badRegion = options.region === undefined ? undefined : regionProblem(options.region);
  if (badRegion) throw new UsageError(`--region: ${badRegion}`);
  const out = resolve(options.out);
  // Before any AWS call: --force replaces a regular file, never a directory, device, FIFO or symlink
  // (nor says it could).
  assertReplaceableFile(out, visibleValue(options.out), INIT_EXAMPLE);
  // A file someone edited is never replaced by a starter without --force.
  if (!options.force && existsSync(out)) throw alreadyExists(visibleValue(options.out));

  const input =
    options.bucket !== undefined ? await fromBucket(options.bucket, options) : await fromRoot(out, options);
  const text = renderStarterRegistry(input);
  // The starter must be a registry the other commands accept; a failure here is a bug of ours, and
  // the parser's file:line:col problems say where.
  parseRegistry(text, { fileName: options.out });
  writeAtomically(out, text, options);

  const count = input.workspaces.length;
  const locked = input.workspaces.filter((workspace) => workspace.lockFile).length;
  // The path as it reads (no terminal escape reaches the screen), and as a word the shell reads back
  // as that path: the two commands below are meant to be copied, `team a/dw.yaml` included.
  const shown = visibleValue(options.out);
  const word = shellWord(options.out);
  process.stdout.write(
    [
      `Wrote ${shown}: ${count} workspace${count === 1 ? '' : 's'} from ${input.origin} (${input.region})` +
        (locked > 0 ? `, ${locked} locking with use_lockfile.` : '.'),
      ...(input.note ? [`Note: ${input.note}.`] : []),
      `Replace its TODOs (${placeholdersLeft(input).join(', ')}); this lists the ones left:`,
      `  npx driftwatch routes --check --registry ${word}`,
      'Then scan:',
      `  npx driftwatch scan --registry ${word}`,
      '',
    ].join('\n'),
  );
  run(0);
}

async function fromBucket(bucket: string, options: InitOptions): Promise<StarterInput> {
  const prefix = options.prefix ?? '';
  // The SDK's own settings (AWS_REGION, AWS_PROFILE, AWS_ENDPOINT_URL): no endpoint flags.
  const configured =
    options.region ?? (await new S3Client(withHttpTimeouts()).config.region().catch(() => undefined));
  const s3 = new S3Client(
    withHttpTimeouts({ region: configured ?? 'us-east-1', followRegionRedirects: true }),
  );
  let keys: string[];
  let unlisted: string[];
  try {
    ({ keys, unlisted } = await listStateObjects(s3, bucket, prefix));
  } catch (error) {
    if (error instanceof BackendReadError) throw listingError(bucket, error.failure);
    throw error;
  }
  const { workspaces, skipped, inScope } = readStarterListing(keys, { prefix });
  const where = prefix === '' ? `s3://${bucket}` : `s3://${bucket}/${visibleValue(prefix)}`;
  const skippedNote =
    skipped.length === 0
      ? ''
      : `; ${skipped.length} state object${skipped.length === 1 ? '' : 's'} left out: a registry cannot name a key that starts with '/' (${listOf(skipped)})`;
  // A role limited to its own prefix may not list env:/: its states are written, the others said missing.
  const unlistedNote =
    unlisted.length === 0
      ? ''
      : `; ${unlisted.map((listing) => `s3://${bucket}/${visibleValue(listing)}`).join(', ')} could not be listed (AccessDenied on s3:ListBucket), so states of CLI workspaces there (${visibleValue(`env:/*/${prefix}`)}) are left out`;
  if (workspaces.length === 0)
    throw new CliError(
      `no Terraform state objects (*.tfstate) among the ${inScope} objects listed in ${where}${prefix === '' || unlisted.length > 0 ? '' : ` and ${visibleValue(`s3://${bucket}/env:/*/${prefix}`)}`}${skippedNote}${unlistedNote}: check --bucket and --prefix`,
    );
  const read = options.region ?? (await bucketRegion(s3, bucket));
  const region = read ?? configured;
  if (region === undefined || regionProblem(region) !== undefined)
    throw new UsageError(`cannot tell the region of s3://${bucket}: pass --region (e.g. --region eu-west-1)`);
  // The configured region is a guess: a wrong one fails every scan of these workspaces later.
  const regionNote =
    read === undefined
      ? `; the bucket's region could not be read (s3:GetBucketLocation and HeadBucket refused), so ${region} is the configured region: pass --region if the bucket is elsewhere`
      : '';
  const note = `${skippedNote}${unlistedNote}${regionNote}`.slice(2);
  const kms = await encryptsWithKms(s3, bucket);
  return {
    bucket,
    region,
    workspaces: kms ? workspaces.map((workspace) => ({ ...workspace, requireKms: true })) : workspaces,
    origin: where,
    listed: true,
    note,
    ...(kms ? { kmsReason: `s3://${bucket} encrypts new objects with SSE-KMS by default` } : {}),
  };
}

async function fromRoot(out: string, options: InitOptions): Promise<StarterInput> {
  const root = options.root ?? '.';
  // A directory name is data: a line break in it must not start a line of its own.
  const shownRoot = visibleValue(root);
  let reading: Awaited<ReturnType<typeof readBackendBlock>>;
  try {
    reading = await readBackendBlock(root);
  } catch (error) {
    throw new CliError(`cannot read the Terraform root ${shownRoot}: ${(error as Error).message}`);
  }
  if (reading.found === 'none')
    throw new CliError(
      `no backend "s3" block in ${shownRoot} (${reading.files} .tf files): driftwatch scans states kept in S3; pass the root that has it, or list a bucket with --bucket`,
    );
  if (reading.found === 'several')
    throw new CliError(
      `${shownRoot} has ${reading.files.length} backend or cloud blocks (in ${[...new Set(reading.files)].join(', ')}): Terraform allows one per root; remove the others`,
    );
  if (reading.found === 'cloud')
    throw new CliError(
      `${shownRoot}/${reading.file} keeps its state in HCP Terraform (a cloud block): driftwatch reads S3 backends only`,
    );
  if (reading.found === 'other')
    throw new CliError(
      `${shownRoot}/${reading.file} uses backend "${reading.type}": driftwatch reads S3 backends only`,
    );
  const written = reading.block;
  const where = `${shownRoot}/${written.file}: backend "s3"`;
  const [expression] = written.expressions ?? [];
  if (expression !== undefined)
    throw new CliError(
      `${where} sets ${expression} with an expression, which Terraform does not allow in a backend block (no variables there): write the value itself`,
    );
  // A partial block (as real roots keep it) gets bucket, key and region from `terraform init
  // -backend-config`; a root initialised on this machine recorded the result, the block merged with
  // those values (which override it), so what is recorded is what Terraform uses.
  const dataDir = terraformDataDir();
  const recordedFile = initializedBackendFile(dataDir);
  // A file of the root, or of an absolute TF_DATA_DIR elsewhere.
  const shownFile = (file: string) =>
    isAbsolute(file) ? visibleValue(file) : `${shownRoot}/${visibleValue(file)}`;
  const recorded =
    !written.bucket || !written.key || !written.region
      ? await readInitializedBackend(root, dataDir)
      : undefined;
  const block: S3BackendBlock = { ...written, ...recorded, file: written.file };
  const fileOf = (setting: keyof S3BackendBlock) =>
    recorded?.[setting] !== undefined ? recordedFile : written.file;
  const missing = (setting: string) =>
    new CliError(
      `${where} sets no ${setting} (partial configuration, given at terraform init?): add it there, run terraform init in that root first (driftwatch then reads ${visibleValue(recordedFile)}), or use driftwatch init --bucket <state-bucket>`,
    );
  if (!block.bucket) throw missing('bucket');
  if (!block.key) throw missing('key');
  // What the registry would refuse, said of the file that holds it (not of the starter, never written).
  const settings: [string, keyof S3BackendBlock, (value: string) => string | undefined][] = [
    ['bucket', 'bucket', bucketNameProblem],
    ['key', 'key', stateKeyProblem],
    ['region', 'region', regionProblem],
    ['dynamodb_table', 'dynamodbTable', lockTableProblem],
  ];
  for (const [setting, field, findProblem] of settings) {
    const value = block[field];
    const problem = typeof value === 'string' ? findProblem(value) : undefined;
    if (problem) throw new CliError(`${shownFile(fileOf(field))}: backend "s3" ${setting}: ${problem}`);
  }
  const region = block.region ?? options.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  if (region === undefined || regionProblem(region) !== undefined)
    throw new UsageError(`${where} sets no region: pass --region (e.g. --region eu-west-1)`);
  const sourceDir = relative(dirname(out), resolve(root)) || '.';
  const workspace: StarterWorkspace = {
    id: workspaceIdFor(block.key),
    environment: guessEnvironment([basename(resolve(root)), ...block.key.split('/')]),
    key: block.key,
    stateKey: block.key,
    lockFile: block.useLockfile === true,
    lockComment: `${visibleValue(fileOf('useLockfile'))} sets use_lockfile = true: driftwatch checks its lock files for stale locks`,
    sourceDir,
  };
  if (block.dynamodbTable) workspace.lockTable = block.dynamodbTable;
  // A backend that names its key means its states to be SSE-KMS: requireKms keeps it so.
  if (block.kmsKeyId) workspace.requireKms = true;
  // Roots used with CLI workspaces keep their states under env:/<name>/, and the default one may hold
  // nothing: the workspace selected there says so, and which state this file does not name.
  const selected = await readSelectedWorkspace(root, dataDir);
  const selectedState =
    selected === undefined
      ? undefined
      : `${block.workspaceKeyPrefix ?? DEFAULT_WORKSPACE_KEY_PREFIX}/${selected}/${block.key}`;
  const note =
    selected === undefined
      ? undefined
      : `${shownRoot} has the CLI workspace ${visibleValue(selected)} selected (${visibleValue(selectedWorkspaceFile(dataDir))}), whose state is ${visibleValue(selectedState)}; this file names the default workspace's state, ${visibleValue(block.key)}: add workspace: ${visibleValue(selected)} to the backend for that one${
          // init --bucket knows the default prefix only.
          (block.workspaceKeyPrefix ?? DEFAULT_WORKSPACE_KEY_PREFIX) === DEFAULT_WORKSPACE_KEY_PREFIX
            ? `, or list every workspace with driftwatch init --bucket ${block.bucket} --prefix ${shellWord(block.key)}`
            : ''
        }`;
  return {
    ...(note ? { note } : {}),
    ...(block.kmsKeyId ? { kmsReason: `${shownFile(fileOf('kmsKeyId'))} sets kms_key_id` } : {}),
    bucket: block.bucket,
    region,
    workspaces: [workspace],
    origin:
      recorded === undefined
        ? `the backend block of ${shownRoot}/${written.file}`
        : `the backend block of ${shownRoot}/${written.file} and ${shownFile(recordedFile)} (the last terraform init there)`,
  };
}

/** A few keys, each as it reads (invisible characters escaped), and how many more. */
function listOf(keys: readonly string[]): string {
  const shown = keys.slice(0, 3).map((key) => limitText(visibleValue(key), 80));
  return keys.length > 3 ? `${shown.join(', ')} and ${keys.length - 3} more` : shown.join(', ');
}

/** The cause in the words the backend checks use, with the fix for someone running init. */
function listingError(bucket: string, failure: ReadFailure): CliError {
  const cause = classifyReadFailure(failure);
  const fix =
    cause.kind === 'no-such-bucket'
      ? 'check the name given to --bucket, the account the credentials belong to (`aws sts get-caller-identity`) and AWS_ENDPOINT_URL'
      : cause.kind === 'access-denied'
        ? `init lists the bucket: use credentials (AWS_PROFILE) allowed s3:ListBucket on arn:aws:s3:::${bucket}`
        : cause.advice.replace(/\.$/, '');
  return new CliError(`cannot list s3://${bucket}: ${cause.summary}: ${fix}`);
}

function alreadyExists(shown: string): CliError {
  return new CliError(
    `${shown} already exists: pass --force to overwrite it, or --out <file> to write another`,
  );
}

const INIT_EXAMPLE = 'driftwatch.yaml';

/**
 * Written whole or not at all: a temporary file beside it, then renamed over it (--force) or linked
 * to its name, which fails if the name was taken meanwhile (never a half-written registry).
 */
function writeAtomically(out: string, text: string, options: InitOptions): void {
  const temporary = `${out}.${process.pid}.${Date.now()}.tmp`;
  try {
    writeFileSync(temporary, text, { flag: 'wx' });
    if (options.force) {
      // Again just before the rename: what is at the path may have changed kind meanwhile.
      assertReplaceableFile(out, visibleValue(options.out), INIT_EXAMPLE);
      renameSync(temporary, out);
    } else {
      try {
        linkSync(temporary, out);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST')
          throw alreadyExists(visibleValue(options.out));
        throw error;
      }
    }
  } catch (error) {
    if (error instanceof CliError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new CliError(
      `cannot write ${visibleValue(options.out)} (${code}): check that its directory exists and is writable`,
    );
  } finally {
    rmSync(temporary, { force: true });
  }
}
