import { createWriteStream, fstatSync } from 'node:fs';
import { finished } from 'node:stream/promises';
import { readPlanFile, readPlanStream } from '../../functions/adapters/plan-file.js';
import { recordWorkspaceScan } from '../../functions/core/findings/lifecycle.js';
import type { FindingDraft } from '../../functions/core/findings/model.js';
import { DEFAULT_POLICIES, type Policies } from '../../functions/core/registry/model.js';
import { closestMatch } from '../../functions/core/registry/suggest.js';
import {
  evaluateCompactPlan,
  PlanFormatError,
  scanFailedFinding,
} from '../../functions/core/terraform/index.js';
import { stripForTerminal } from '../../functions/core/text/sanitize.js';
import { resolveHasher } from '../hasher.js';
import { writeJsonArray } from '../json-stream.js';
import { exitCodeFor, renderFindings, shownFindings, sortFindings, sourceRootUri } from '../output.js';
import { CliError } from '../usage.js';
import { DEFAULT_WORKSPACE, type EvaluatePlanOptions } from './evaluate-plan.js';

/** The action of `cli/commands/evaluate-plan.ts` (loaded on use: main.ts registers commands without their implementations). */
export async function evaluatePlanAction(
  run: (code: number) => void,
  planPath: string,
  options: EvaluatePlanOptions,
): Promise<void> {
  let policies: Policies = DEFAULT_POLICIES;
  let { environment, owner } = options;
  if (options.registry) {
    // Loaded only with --registry: the registry parser (YAML, schemas) and the store's SDK client.
    const { loadRegistryFile } = await import('../registry-file.js');
    const { registry } = loadRegistryFile(options.registry);
    policies = registry.policies;
    const entry = registry.workspaces.find((workspace) => workspace.id === options.workspace);
    // A mistyped --workspace would lose the entry's environment (prod ranks higher) and owner, and
    // a CI gate on --fail-on would pass quietly. The default id only asks for the registry's policies.
    if (!entry && options.workspace !== DEFAULT_WORKSPACE) {
      const ids = registry.workspaces.map((workspace) => workspace.id);
      const near = closestMatch(options.workspace, ids);
      throw new CliError(
        `workspace ${options.workspace} is not in ${options.registry}${near ? ` (did you mean ${near}?)` : ''}: pass --workspace with one of its ids, or leave --workspace out to use only its policies`,
      );
    }
    environment ??= entry?.environment;
    owner ??= entry?.owner;
  }
  const configuration = options.config ? await readConfiguration(options.config) : undefined;
  const context = {
    workspace: options.workspace,
    owner,
    environment,
    policies,
    now: new Date(),
    ...(configuration ? { configuration } : {}),
  };
  const hashSensitive = resolveHasher();
  let drafts: FindingDraft[];
  try {
    const plan =
      planPath === '-'
        ? await readPlanStream(process.stdin, { hashSensitive })
        : await readPlanFile(planPath, { hashSensitive });
    drafts = evaluateCompactPlan(plan, context).findings;
  } catch (error) {
    const reason = unreadablePlanReason(error);
    if (reason === undefined) throw error;
    // The scan-failed finding keeps the output contract (a failed scan is printed); the line on
    // stderr says what the input is and what was expected.
    const label = planPath === '-' ? 'stdin' : planPath;
    process.stderr.write(`driftwatch: ${stripForTerminal(`${label}: ${reason}${expectedPlan(reason)}`)}\n`);
    drafts = [
      scanFailedFinding(
        context,
        `cannot read ${label}: ${reason}`,
        { plan: label },
        { ruleId: 'scan.plan-invalid' },
      ),
    ];
  }
  const { history } = recordWorkspaceScan(undefined, drafts, {
    workspace: options.workspace,
    scanId: 'evaluate-plan',
    now: context.now,
    outcome: 'ok',
    check: 'terraform',
  });
  // JSON is streamed: a large plan's findings are written in batches, never as one string.
  if (options.format === 'json')
    await writeJsonOutput(sortFindings(shownFindings(history, options.severity)));
  else {
    // SARIF locates results in the root module directory when --config names it.
    const sourceRoot = options.config ? sourceRootUri(options.config) : undefined;
    process.stdout.write(
      renderFindings(history, options.format, undefined, undefined, {
        severity: options.severity,
        sourceRootOf: () => sourceRoot,
      }),
    );
  }
  run(exitCodeFor(history, options));
}

/**
 * Node writes stdout synchronously when it is a file (`> findings.json`): each batch would wait for
 * its copy into the file before the next is serialised. Written through a stream of its own there,
 * the copies run on libuv's threads while the next batches are serialised (up to a few MiB ahead).
 */
async function writeJsonOutput(findings: readonly unknown[]): Promise<void> {
  if (!stdoutIsFile()) return writeJsonArray(process.stdout, findings);
  const out = createWriteStream('', { fd: 1, autoClose: false, highWaterMark: 4 * 1024 * 1024 });
  const done = finished(out);
  // A write error rejects `done` while batches are still being written: awaited below, not unhandled.
  done.catch(() => undefined);
  try {
    await writeJsonArray(out, findings);
  } finally {
    out.end();
  }
  await done;
}

function stdoutIsFile(): boolean {
  try {
    return fstatSync(1).isFile();
  } catch {
    return false;
  }
}

/** Why the input is not a plan we can read, or undefined for an error that is not about the input. */
function unreadablePlanReason(error: unknown): string | undefined {
  if (error instanceof PlanFormatError) return error.message;
  switch ((error as NodeJS.ErrnoException).code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return 'no such file';
    case 'EISDIR':
      return 'is a directory, not a plan file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    default:
      return undefined;
  }
}

function expectedPlan(reason: string): string {
  // Reasons about a plan that is one (a newer action, a limit) or that already say what to run.
  if (/terraform show|UTF-16|unknown action|driftwatch's limit|larger than/.test(reason)) return '';
  if (reason.startsWith('unsupported format_version'))
    return ': driftwatch reads format_version 0.x and 1.x (`terraform show -json` of Terraform 0.12 to 1.x)';
  return '; expected the JSON that `terraform show -json <planfile>` prints';
}

/** `--config DIR`: a file the parser rejects is a warning (its rules are not applied), not a failure. */
async function readConfiguration(dir: string) {
  // Loaded only with --config: the HCL reader.
  const { readTerraformConfiguration } = await import(
    '../../functions/adapters/terraform/configuration-reader.js'
  );
  const reading = await readTerraformConfiguration(dir).catch((error: unknown) => {
    throw new CliError(
      `cannot read the configuration in ${dir} (${(error as Error).message}): pass the root module directory of the plan, or leave out --config`,
      { cause: error },
    );
  });
  for (const problem of reading.problems)
    process.stderr.write(
      `warning: ${problem}: its lifecycle.ignore_changes and removed blocks are not applied\n`,
    );
  return reading.facts;
}
