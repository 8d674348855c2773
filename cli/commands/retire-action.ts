import { resourceLabel } from '../../functions/core/findings/describe.js';
import { createFindingsStore } from '../../functions/core/findings/findings-store.js';
import type { Finding } from '../../functions/core/findings/model.js';
import { redactText } from '../../functions/core/redaction/secrets.js';
import { SAFE_ID } from '../../functions/core/registry/model.js';
import { closestMatch } from '../../functions/core/registry/suggest.js';
import { bucketScope, registeredScopes } from '../../functions/core/routing/scopes.js';
import { stripForTerminal } from '../../functions/core/text/sanitize.js';
import { CliError, openObjectStore, UsageError } from '../context.js';
import { loadRegistryFile } from '../registry-file.js';
import { reportUnreadObjects } from '../store-corruptions.js';
import type { RetireOptions } from './retire.js';

/** The action of `cli/commands/retire.ts` (loaded on use: main.ts registers commands without their implementations). */
export async function retireAction(
  run: (code: number) => void,
  typed: string,
  options: RetireOptions,
): Promise<void> {
  const now = new Date();
  const scope = storedScope(typed);
  if (!SAFE_ID.test(scope)) {
    const lower = scope.toLowerCase();
    throw new UsageError(
      `${JSON.stringify(scope)} is not a scope${SAFE_ID.test(lower) ? ` (ids are lower case: ${lower})` : ''}: give a workspace or cluster id, or s3.<bucket>, as \`driftwatch findings\` lists it in WORKSPACE`,
    );
  }
  const { registry } = loadRegistryFile(options.registry);
  // A scope the registry still scans gets its findings back tonight, as `regressed` (resolved within
  // the last 30 days): retiring it would only turn quiet drift into an alert.
  if (registeredScopes(registry).has(scope))
    throw new UsageError(
      `${scope} is still in ${options.registry} (a workspace, a cluster or the state bucket of one): its next scan records its findings again; remove it from the registry first, or suppress single findings`,
    );
  // Read-only, as suppress: a corrupt document (this scope's or another's) is said and left for the
  // next scan to quarantine and report; moved away here, its findings were lost without a word.
  const store = createFindingsStore(openObjectStore(options.store, process.env, { mustExist: true }), {
    readOnly: true,
  });
  const current = await store.readCurrent(scope);
  if (!current) {
    // Its own document unreadable is why nothing is found: said as such, not as an unknown scope.
    const own = store.takeCorruptions()[0];
    if (own)
      throw new CliError(
        `${own.key} in ${store.location} is not a valid ${own.what} (${own.reason}): its findings cannot be read, so none was retired; restore a good version of it, then run retire again`,
      );
    const scopes = [...new Set((await store.openFindings()).map((finding) => finding.workspace))];
    reportUnreadObjects(store.takeCorruptions());
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
    process.stdout.write(`${stripForTerminal([head, ...lines].join('\n'), { multiline: true })}\n`);
    return run(0);
  }
  // A run of its own, as a scan's: the resolutions are in the scope's history under this id.
  const scanId = `retire-${now.toISOString().replace(/[:.]/g, '-')}`;
  const { resolved, stillOpen: left } = await store.retireScope(scope, open, { scanId, startedAt: now, now });
  const resolvedLines = resolved.map(findingLine);
  // What no run of a check can resolve (a finding stored without its check) is said, not hidden.
  const summary = `retired ${scope}: resolved ${resolved.length} open finding(s) (run ${scanId})`;
  process.stdout.write(`${stripForTerminal([summary, ...resolvedLines].join('\n'), { multiline: true })}\n`);
  if (left.length > 0)
    throw new CliError(
      `${left.length} open finding(s) of ${scope} have no recorded check and were not resolved (${left.map((f) => f.id.slice(0, 12)).join(', ')}): suppress them, or report this`,
    );
  run(0);
}

/**
 * A state bucket's scope as the store keeps it: `s3.<bucket>` of a bucket name too long for a scope
 * is shortened with a hash (bucketScope), so the name as people type it is mapped to that.
 */
function storedScope(scope: string): string {
  const bucket = /^s3\.([a-z0-9][a-z0-9.-]{2,62})$/.exec(scope)?.[1];
  return bucket ? bucketScope(bucket) : scope;
}

/** One finding as a line under the summary: its short id, what it is about and its rule (data redacted again). */
function findingLine(finding: Finding): string {
  return `  ${finding.id.slice(0, 12)}  ${redactText(resourceLabel(finding))}  ${finding.ruleId}`;
}
