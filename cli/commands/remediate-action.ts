import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import {
  type ConfigurationFileOptions,
  configurationFiles,
} from '../../functions/adapters/terraform/configuration-files.js';
import { createFindingsStore } from '../../functions/core/findings/findings-store.js';
import type { Finding, JsonValue } from '../../functions/core/findings/model.js';
import type { WorkspaceConfig } from '../../functions/core/registry/model.js';
import { parseResourceAddress } from '../../functions/core/remediation/address.js';
import { hclInline } from '../../functions/core/remediation/hcl-render.js';
import {
  findModuleSource,
  findResourceBlock,
  isLocalModuleSource,
  type SourceFile,
} from '../../functions/core/remediation/locate.js';
import type {
  ConfigurationLocation,
  RemediationMode,
  RemediationResult,
  TerraformContext,
} from '../../functions/core/remediation/model.js';
import { notApplicableReason, prepareRemediation } from '../../functions/core/remediation/prepare.js';
import { shellCommand } from '../../functions/core/remediation/shell-quote.js';
import { jsonForTerminal, stripForTerminal } from '../../functions/core/text/sanitize.js';
import { CliError, loadOptionalRegistry, openObjectStore, UsageError } from '../context.js';
import { assertFindingIdShape, findOpenOrRecent } from '../finding-ref.js';
import { presentFinding } from '../finding-view.js';
import type { LoadedRegistry } from '../registry-file.js';
import { EXIT_RUNTIME_ERROR, EXIT_USAGE } from '../usage.js';
import { SHOW_HISTORY_DAYS } from './findings-show-action.js';
import type { RemediateOptions } from './remediate.js';

/** The registry `remediate` reads when --registry is not given and one sits in the current directory. */
const DEFAULT_REGISTRY = 'driftwatch.yaml';

/** The action of `cli/commands/remediate.ts` (loaded on use). */
export async function remediateAction(
  run: (code: number) => void,
  typed: string,
  options: RemediateOptions,
): Promise<void> {
  const mode = modeOf(options, typed);
  assertFindingIdShape(typed);
  if (options.config !== undefined) assertDirectory(options.config, '--config');
  const { finding, unread } = await findFinding(typed, options.store);
  const context =
    finding.kind === 'terraform-drift' || finding.kind === 'pending-change'
      ? await terraformContext(finding, options, mode)
      : {};
  const result = prepareRemediation(finding, mode, context);
  if ('notApplicable' in result) {
    process.stdout.write(
      options.format === 'json'
        ? `${jsonForTerminal({ finding: findingRef(finding), ...result })}\n`
        : notApplicableText(finding, result),
    );
    process.stderr.write(
      `driftwatch: ${stripForTerminal(result.notApplicable)} (finding ${finding.id.slice(0, 12)})\n`,
    );
    run(EXIT_USAGE);
    return;
  }
  process.stdout.write(
    options.format === 'json'
      ? `${jsonForTerminal(jsonOf(finding, result, context))}\n`
      : `${resultText(finding, result, context)}${alternativeLine(finding, mode, options)}`,
  );
  // As `findings show`: what was printed stands, but the store was not read whole (the id was
  // judged among fewer findings than it holds), which a script must not take for a clean read.
  run(unread > 0 ? EXIT_RUNTIME_ERROR : 0);
}

function modeOf(options: RemediateOptions, typed: string): RemediationMode {
  if (options.revert && options.adopt)
    throw new UsageError(
      'give one of --revert and --adopt, not both: they are the two alternatives to review',
    );
  if (options.revert) return 'revert';
  if (options.adopt) return 'adopt';
  const command = (flag: string) => stripForTerminal(remediateCommand(typed, flag, options));
  throw new UsageError(
    `give --revert (the plan that puts the declared configuration back: ${command('--revert')}) or --adopt (the configuration that takes the live values: ${command('--adopt')})`,
  );
}

/** The remediate command line for an id and mode, with the store, registry and root it was given. */
function remediateCommand(id: string, flag: string, options: RemediateOptions): string {
  const given = (option: string, value: string | undefined) => (value ? [option, value] : []);
  return shellCommand([
    'driftwatch',
    'remediate',
    id,
    flag,
    ...given('--store', options.store),
    ...given('--registry', options.registry),
    ...given('--config', options.config),
  ]);
}

/**
 * The other mode, when it applies too: a digest proposes the revert, and adopting the live values
 * (a change that was meant) is the alternative the owner may choose instead, after review.
 */
function alternativeLine(finding: Finding, mode: RemediationMode, options: RemediateOptions): string {
  const other: RemediationMode = mode === 'revert' ? 'adopt' : 'revert';
  if (notApplicableReason(finding, other) !== undefined) return '';
  const what =
    other === 'adopt' ? 'adopt the live values in the configuration' : 'revert to the configuration';
  return `\nTo ${what} instead: ${stripForTerminal(remediateCommand(finding.id.slice(0, 12), `--${other}`, options))}\n`;
}

function assertDirectory(dir: string, option: string): void {
  let isDirectory = false;
  try {
    isDirectory = statSync(dir).isDirectory();
  } catch {
    throw new CliError(`${option} ${dir}: no such directory (give the Terraform root module directory)`);
  }
  if (!isDirectory)
    throw new CliError(`${option} ${dir} is a file: give the Terraform root module directory`);
}

/**
 * As `findings show` finds it: among open findings and those of the last 30 days of history; with
 * how many store objects could not be read (each said on stderr).
 */
async function findFinding(
  typed: string,
  location: string | undefined,
): Promise<{ finding: Finding; unread: number }> {
  const store = createFindingsStore(openObjectStore(location, process.env, { mustExist: true }), {
    readOnly: true,
  });
  const { finding } = await findOpenOrRecent(store, typed, new Date(), SHOW_HISTORY_DAYS);
  const corrupt = store.takeCorruptions();
  for (const object of corrupt)
    process.stderr.write(
      `driftwatch: ${stripForTerminal(`${object.key} in the findings store is not a valid ${object.what} (${object.reason}): what it holds is not read`)}\n`,
    );
  // Shown as every reader of the store shows it: its texts and values redacted once more.
  return { finding: presentFinding(finding, new Date()), unread: corrupt.length };
}

// ---------------------------------------------------------------------------------------------------
// The workspace's configuration: where to run the plan, its variables, and the resource's block.

async function terraformContext(
  finding: Finding,
  options: RemediateOptions,
  mode: RemediationMode,
): Promise<TerraformContext> {
  const loaded = await registryFor(options.registry);
  const entry = loaded?.registry.workspaces.find((workspace) => workspace.id === finding.workspace);
  if (options.registry !== undefined && loaded && !entry)
    process.stderr.write(
      `driftwatch: ${stripForTerminal(`workspace ${finding.workspace} is not in ${options.registry}: its source directory, var files and backend are unknown`)}\n`,
    );
  const context: TerraformContext = {};
  let sourceRoot: string | undefined;
  if (entry && loaded) {
    Object.assign(context, workspaceContext(entry));
    if ('dir' in entry.source) {
      // source.dir is relative to the registry file, or absolute.
      sourceRoot = resolve(loaded.dir, entry.source.dir);
      context.rootDir = resolve(sourceRoot, entry.source.path ?? '.');
      context.rootFrom = `registry ${loaded.path}`;
    }
  }
  if (options.config !== undefined) {
    context.rootDir = resolve(options.config);
    context.rootFrom = '--config';
  }
  if (context.rootDir !== undefined) {
    const root = context.rootDir;
    // var files are relative to the workspace source (its dir), and kept inside it by the registry parser.
    if (entry?.varFiles.length && sourceRoot !== undefined)
      context.varFiles = entry.varFiles.map((file) => relative(root, resolve(sourceRoot, file)) || '.');
    context.rootDir = shownPath(root);
    if (mode === 'adopt')
      context.location = locateResource(root, finding, { tofu: context.engine === 'opentofu' });
  } else if (entry && 's3' in entry.source && mode === 'adopt') {
    context.location = {
      found: false,
      reason: `the configuration of ${finding.workspace} is a bundle (${entry.source.s3}): unpack it and pass --config with its root module directory`,
    };
  }
  return context;
}

function workspaceContext(entry: WorkspaceConfig): TerraformContext {
  const context: TerraformContext = {
    engine: entry.engine === 'opentofu' ? 'opentofu' : 'terraform',
    backend: {
      bucket: entry.backend.bucket,
      key: entry.backend.key,
      region: entry.backend.region,
      ...(entry.backend.workspace ? { workspace: entry.backend.workspace } : {}),
    },
  };
  if (entry.vars && Object.keys(entry.vars).length > 0) context.vars = entry.vars;
  if (entry.sensitiveVars && Object.keys(entry.sensitiveVars).length > 0)
    context.sensitiveVars = Object.keys(entry.sensitiveVars);
  return context;
}

async function registryFor(path: string | undefined): Promise<LoadedRegistry | undefined> {
  if (path !== undefined) return loadOptionalRegistry(path);
  if (!existsSync(DEFAULT_REGISTRY)) return undefined;
  // Only looked at because it is here: a registry that does not load is a warning, not the end.
  try {
    return await loadOptionalRegistry(DEFAULT_REGISTRY);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    process.stderr.write(
      `driftwatch: ${stripForTerminal(`${DEFAULT_REGISTRY} here is not a valid registry (${reason}): going on without it; pass --registry or --config`)}\n`,
    );
    return undefined;
  }
}

/** A directory as the reader can use it from here: relative when below the current directory. */
function shownPath(path: string): string {
  const fromHere = relative(process.cwd(), path);
  if (fromHere === '') return '.';
  return fromHere.startsWith('..') || isAbsolute(fromHere) ? path : fromHere;
}

/** The module's configuration files in the order Terraform reads them (override files last). */
function readModuleFiles(dir: string, options: ConfigurationFileOptions): SourceFile[] {
  let names: string[];
  try {
    names = configurationFiles(dir, options);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    try {
      return [{ path: shownPath(join(dir, name)), text: readFileSync(join(dir, name), 'utf8') }];
    } catch {
      return [];
    }
  });
}

/** Follows the address's module calls through local sources to the resource block. */
function locateResource(
  root: string,
  finding: Finding,
  options: ConfigurationFileOptions,
): ConfigurationLocation {
  const address = finding.resource && 'address' in finding.resource ? finding.resource.address : '';
  const parsed = parseResourceAddress(address);
  if (!parsed) return { found: false, reason: `${address} is not a resource address driftwatch can follow` };
  let dir = root;
  const modules: string[] = [];
  for (const step of parsed.modules) {
    const source = findModuleSource(readModuleFiles(dir, options), step.name);
    if (source === undefined)
      return {
        found: false,
        reason: `no module "${step.name}" block with a literal source in ${shownPath(dir)}: is --config the root module of ${finding.workspace}?`,
      };
    if (!isLocalModuleSource(source))
      return {
        found: false,
        reason: `module.${step.name} comes from ${source}, not a local directory: change the resource in that module's source (a new version), or set the value through the module's inputs`,
      };
    dir = resolve(dir, source);
    modules.push(step.name);
  }
  const files = readModuleFiles(dir, options);
  if (files.length === 0) return { found: false, reason: `no .tf files in ${shownPath(dir)}` };
  const block = findResourceBlock(files, parsed.type, parsed.name);
  if (!block)
    return {
      found: false,
      reason: `no resource "${parsed.type}" "${parsed.name}" block in the .tf files of ${shownPath(dir)}`,
    };
  return {
    found: true,
    file: block.file,
    line: block.line,
    ...(modules.length ? { module: modules.join('.') } : {}),
  };
}

// ---------------------------------------------------------------------------------------------------
// Output.

function findingRef(finding: Finding): Record<string, unknown> {
  const resource = finding.resource;
  return {
    id: finding.id,
    kind: finding.kind,
    ruleId: finding.ruleId,
    status: finding.status,
    workspace: finding.workspace,
    ...(resource && 'address' in resource ? { address: resource.address } : {}),
    ...(resource && 'kind' in resource ? { object: resource } : {}),
  };
}

function subjectOf(finding: Finding): string {
  const resource = finding.resource;
  if (resource && 'address' in resource) return resource.address;
  if (resource && 'kind' in resource)
    return `${resource.kind} ${resource.namespace ? `${resource.namespace}/` : ''}${resource.name}`;
  return finding.title;
}

function jsonOf(
  finding: Finding,
  result: Exclude<RemediationResult, { notApplicable: string }>,
  context: TerraformContext,
) {
  const base = { finding: findingRef(finding), mode: result.mode, system: result.system };
  if (result.mode === 'revert')
    return {
      ...base,
      ...(result.cwd === undefined ? {} : { cwd: result.cwd, cwdFrom: context.rootFrom }),
      command: result.command,
      commands: result.commands,
      changes: result.changes,
      effect: result.effect,
      notes: result.notes,
    };
  return {
    ...base,
    [result.language]: result.text,
    ...(result.file === undefined ? {} : { file: result.file, line: result.line }),
    variables: result.variables,
    notes: result.notes,
  };
}

function header(finding: Finding, mode: RemediationMode): string[] {
  const lines = [
    `${mode === 'revert' ? 'Revert' : 'Adopt'} ${subjectOf(finding)} (workspace ${finding.workspace}, finding ${finding.id.slice(0, 12)}, ${finding.kind} ${finding.ruleId}, ${finding.severity})`,
    finding.title,
  ];
  if (finding.status === 'resolved')
    lines.push(
      `The finding is resolved${finding.resolvedAt ? ` (the scan of ${finding.resolvedAt} no longer saw it)` : ''}: check that there is still something to do.`,
    );
  else if (finding.status === 'suppressed')
    lines.push('The finding is suppressed: check that there is still something to do.');
  return lines.map((line) => stripForTerminal(line));
}

function resultText(
  finding: Finding,
  result: Exclude<RemediationResult, { notApplicable: string }>,
  context: TerraformContext,
): string {
  const out = [...header(finding, result.mode), ''];
  if (result.mode === 'revert') {
    out.push(stripForTerminal(result.effect), '');
    const where = result.cwd
      ? `, in ${result.cwd}${context.rootFrom ? ` (from ${context.rootFrom})` : ''}`
      : '';
    out.push(
      result.system === 'terraform'
        ? `Run through the team's pipeline${where}:`
        : 'Review the difference, then sync through the GitOps tool or the pipeline:',
    );
    let altered = false;
    for (const command of result.commands) {
      const shown = stripForTerminal(command);
      if (shown !== command) altered = true;
      out.push(`  ${shown}`);
    }
    if (altered)
      out.push(
        '  (a command holds control or bidi characters, shown as \uFFFD: take it from --format json, not from this text)',
      );
    out.push('');
    if (result.changes.length > 0) {
      out.push(result.system === 'terraform' ? 'The plan will propose:' : 'The sync will set:');
      for (const change of result.changes)
        out.push(
          stripForTerminal(
            `  ${change.path || '(whole value)'}: ${shownValue(change.path, change.from)} → ${shownValue(change.path, change.to)}${change.sensitive ? ' (sensitive: hashes, not values)' : ''}`,
          ),
        );
      out.push('');
    }
  } else {
    if (result.file !== undefined) out.push(stripForTerminal(`Edit ${result.file}:${result.line}:`), '');
    out.push(stripForTerminal(result.text, { multiline: true }).replace(/\n$/, ''), '');
  }
  for (const note of result.notes) out.push(stripForTerminal(`- ${note}`));
  return `${out.join('\n')}\n`;
}

/**
 * A value of the proposed changes: null inside a collection or nested object (`tags.Team`,
 * `ingress[1]`) means the member is not there, so it reads `(absent)`; elsewhere it is `null`.
 */
function shownValue(path: string, value: JsonValue): string {
  if (value === null && /[.[]/.test(path)) return '(absent)';
  return hclInline(value);
}

function notApplicableText(
  finding: Finding,
  result: Extract<RemediationResult, { notApplicable: string }>,
): string {
  const out = [...header(finding, result.mode), '', stripForTerminal(`${result.notApplicable}.`), ''];
  out.push(stripForTerminal(result.summary));
  // A step may hold a snippet (the backend rules' Terraform): its lines are kept, indented under it.
  for (const step of result.steps)
    out.push(`- ${stripForTerminal(step, { multiline: true }).replace(/\n/g, '\n  ')}`);
  return `${out.join('\n')}\n`;
}
