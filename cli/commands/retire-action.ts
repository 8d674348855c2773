import { resourceLabel } from '../../functions/core/findings/describe.js';
import { createFindingsStore } from '../../functions/core/findings/findings-store.js';
import type { Finding } from '../../functions/core/findings/model.js';
import { redactText } from '../../functions/core/redaction/secrets.js';
import { SAFE_ID } from '../../functions/core/registry/model.js';
import { closestMatch } from '../../functions/core/registry/suggest.js';
import { registeredScopes } from '../../functions/core/routing/scopes.js';
import { stripForTerminal } from '../../functions/core/text/sanitize.js';
import { CliError, openObjectStore, UsageError } from '../context.js';
import { loadRegistryFile } from '../registry-file.js';
import type { RetireOptions } from './retire.js';

/** The action of `cli/commands/retire.ts` (loaded on use: main.ts registers commands without their implementations). */
export async function retireAction(
  run: (code: number) => void,
  scope: string,
  options: RetireOptions,
): Promise<void> {
  const now = new Date();
  if (!SAFE_ID.test(scope))
    throw new UsageError(
      `${JSON.stringify(scope)} is not a scope: give a workspace or cluster id, or s3.<bucket>, as \`driftwatch findings\` lists it in WORKSPACE`,
    );
  const { registry } = loadRegistryFile(options.registry);
  // A scope the registry still scans gets its findings back tonight, as `regressed` (resolved within
  // the last 30 days): retiring it would only turn quiet drift into an alert.
  if (registeredScopes(registry).has(scope))
    throw new UsageError(
      `${scope} is still in ${options.registry} (a workspace, a cluster or the state bucket of one): its next scan records its findings again; remove it from the registry first, or suppress single findings`,
    );
  const store = createFindingsStore(openObjectStore(options.store, process.env, { mustExist: true }));
  const current = await store.readCurrent(scope);
  if (!current) {
    const scopes = [...new Set((await store.openFindings()).map((finding) => finding.workspace))];
    const near = closestMatch(scope, scopes);
    throw new CliError(
      `${store.location} holds no findings of ${scope}${near ? ` (did you mean ${near}?)` : ''}: give a scope as \`driftwatch findings\` lists it in WORKSPACE`,
    );
  }
  const open = current.document.findings.filter((finding) => finding.status !== 'resolved');
  const lines = open.map(findingLine);
  if (options.dryRun || open.length === 0) {
    const head =
      open.length === 0
        ? `${scope} has no open finding in ${store.location}: nothing to retire`
        : `would resolve ${open.length} open finding(s) of ${scope} (nothing changed: --dry-run)`;
    process.stdout.write(`${stripForTerminal([head, ...lines].join('\n'))}\n`);
    return run(0);
  }
  // A run of its own, as a scan's: the resolutions are in the scope's history under this id.
  const scanId = `retire-${now.toISOString().replace(/[:.]/g, '-')}`;
  const resolved = (await store.retireScope(scope, { scanId, startedAt: now, now })) ?? [];
  const resolvedLines = resolved.map(findingLine);
  process.stdout.write(
    `${stripForTerminal([`retired ${scope}: resolved ${resolved.length} open finding(s) (run ${scanId})`, ...resolvedLines].join('\n'))}\n`,
  );
  run(0);
}

/** One finding as a line under the summary: its short id, what it is about and its rule (data redacted again). */
function findingLine(finding: Finding): string {
  return `  ${finding.id.slice(0, 12)}  ${redactText(resourceLabel(finding))}  ${finding.ruleId}`;
}
