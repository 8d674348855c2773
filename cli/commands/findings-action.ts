import { createFindingsStore, type ScanSummary } from '../../functions/core/findings/findings-store.js';
import { CURRENT_PREFIX } from '../../functions/core/findings/layout.js';
import { FINDING_KINDS, FINDING_STATUSES, type Finding } from '../../functions/core/findings/model.js';
import type { ObjectStore } from '../../functions/core/findings/object-store.js';
import type { CorruptObject } from '../../functions/core/findings/quarantine.js';
import { STORED } from '../../functions/core/findings/stored-schemas.js';
import { matchesFilter } from '../../functions/core/query/query-findings.js';
import { redactText } from '../../functions/core/redaction/secrets.js';
import { scanAlertAfterMs } from '../../functions/core/registry/model.js';
import { closestMatch } from '../../functions/core/registry/suggest.js';
import { effectiveOwner } from '../../functions/core/routing/finding-owner.js';
import { scanHealth } from '../../functions/core/scan/health.js';
import { jsonForTerminal, stripForTerminal } from '../../functions/core/text/sanitize.js';
import {
  CliError,
  EXIT_RUNTIME_ERROR,
  loadOptionalRegistry,
  openObjectStore,
  UsageError,
} from '../context.js';
import { shortIdLength } from '../finding-ids.js';
import { dayOf, expiredSuppressionOf, liftExpiredSuppression } from '../finding-view.js';
import {
  exitCodeFor,
  registrySourceRoots,
  renderFindings,
  renderTable,
  shownFindings,
  sortFindings,
} from '../output.js';
import { assertRecordedStore, wrongKindLine } from '../recorded-store.js';
import type { LoadedRegistry } from '../registry-file.js';
import { parseSince } from '../since.js';
import type { FindingsOptions } from './findings.js';

/** The action of `cli/commands/findings.ts` (loaded on use: main.ts registers commands without their implementations). */
export async function findingsAction(run: (code: number) => void, options: FindingsOptions): Promise<void> {
  const objects = openObjectStore(options.store, process.env, { mustExist: true });
  const store = createFindingsStore(objects, { readOnly: true });
  const now = new Date();
  // Read once, when something first needs it (a registry error stays behind the store's errors).
  let registry: Promise<LoadedRegistry | undefined> | undefined;
  const loadRegistry = () => {
    registry ??= loadOptionalRegistry(options.registry);
    return registry;
  };
  if (options.health) {
    if (options.format === 'markdown' || options.format === 'sarif')
      throw new UsageError('--health prints a table or json, not markdown or sarif');
    const alertAfterMs = scanAlertAfterMs((await loadRegistry())?.registry);
    // A failure's reason is text from the store, redacted once more as a finding's texts are.
    const summaries = (await store.recentSummaries(now)).map((summary) => ({
      ...summary,
      failures: summary.failures.map((failure) => ({ ...failure, reason: redactText(failure.reason) })),
    }));
    const health = scanHealth(summaries, now, alertAfterMs);
    const unread = store.takeCorruptions();
    process.stdout.write(
      options.format === 'json'
        ? `${jsonForTerminal({ ...health, summaries })}\n`
        : renderHealth(summaries, health.missing, alertAfterMs, unread.length),
    );
    const corrupt = reportCorruptions(unread);
    run(health.missing || corrupt ? 1 : 0);
    return;
  }
  if (options.kind && !(FINDING_KINDS as readonly string[]).includes(options.kind)) {
    throw new UsageError(`--kind must be one of ${FINDING_KINDS.join(', ')}`);
  }
  // A comma list (`new,changed,regressed`: the digests' "+N more" command) selects any of them.
  const statuses = options.status?.split(',').map((status) => status.trim());
  const unknownStatus = statuses?.find((status) => !(FINDING_STATUSES as readonly string[]).includes(status));
  if (unknownStatus !== undefined) {
    throw new UsageError(
      `--status takes ${FINDING_STATUSES.join(', ')} or a comma list of them, not ${unknownStatus || 'an empty one'}`,
    );
  }
  if (statuses && statuses.length > 1 && statuses.includes('resolved'))
    throw new UsageError(
      '--status resolved reads the scan history: list it on its own, not with other statuses',
    );
  const since = options.since ? parseSince(options.since, now) : undefined;
  if (statuses?.[0] === 'resolved' && options.since && since) assertWithinHistory(options.since, since, now);
  const historyDays = since ? daysBack(since, now) : 7;
  const open = await store.openFindings();
  // Never "No findings." from a directory that is not a findings store, or one whose documents are
  // of the wrong kind: one line naming the cause (entries beside readable ones: a line each, exit 1).
  const wrongKind = await assertRecordedStore(objects);
  // Filtered as of now: an expired suppression no longer hides its finding (renderFindings shows
  // them presented: redacted once more, whatever the format).
  const findings = (
    statuses?.[0] === 'resolved' ? latestResolved(await store.recentHistory(now, historyDays), open) : open
  ).map((finding) => liftExpiredSuppression(finding, now));
  const { owner, workspace, kind } = options;
  // With a registry, --owner selects what that owner's digests list: the fallback owner also gets
  // findings without an owner (store.corrupt-object) and of teams the registry no longer has.
  const owners = owner ? (await loadRegistry())?.registry.owners : undefined;
  const registryOwners = owners && {
    fallbackOwner: owners.fallback,
    teamIds: new Set(owners.teams.map((team) => team.id)),
  };
  const ownerOf = registryOwners && ((finding: Finding) => effectiveOwner(finding, registryOwners));
  const selected = findings.filter(
    (finding) =>
      matchesFilter(finding, { owner, workspace, kind, since }, ownerOf) &&
      (!statuses || statuses.includes(finding.status)),
  );
  // "No findings." for a mistyped --workspace would pass a CI gate: a name no scan recorded is an error.
  if (workspace && selected.length === 0) await assertScopeRecorded(objects, workspace);
  if (owner && selected.length === 0)
    await checkOwnerKnown(owner, open, { path: options.registry, loaded: await loadRegistry() }, () =>
      store.recentHistory(now, OWNER_LOOKBACK_DAYS),
    );
  for (const entry of wrongKind)
    process.stderr.write(`driftwatch: ${stripForTerminal(wrongKindLine(entry, objects.location))}\n`);
  const corrupt = reportCorruptions(store.takeCorruptions()) || wrongKind.length > 0;
  const forPeople = options.format === 'table' || options.format === 'markdown';
  // "No findings." would be wrong when some could not be read: the stderr lines say why.
  if (!(corrupt && shownFindings(selected, options.severity).length === 0 && forPeople)) {
    const loaded = await loadRegistry();
    process.stdout.write(
      renderFindings(selected, options.format, now, undefined, {
        severity: options.severity,
        // SARIF locates results in the workspaces' source directories when the registry is given.
        sourceRootOf: loaded ? registrySourceRoots(loaded) : undefined,
      }),
    );
    if (options.format === 'table')
      process.stdout.write(expiredSuppressionNotes(shownFindings(selected, options.severity)));
  }
  run(corrupt ? EXIT_RUNTIME_ERROR : exitCodeFor(selected, options));
}

/** Every recorded scope (workspace, `s3.<bucket>`, cluster) has a current document, findings or not. */
async function assertScopeRecorded(objects: ObjectStore, workspace: string): Promise<void> {
  const scopes: string[] = [];
  for await (const object of objects.list(CURRENT_PREFIX))
    if (object.key.endsWith('.json')) scopes.push(object.key.slice(CURRENT_PREFIX.length, -'.json'.length));
  if (scopes.includes(workspace)) return;
  const near = closestMatch(workspace, scopes);
  throw new CliError(
    `no workspace ${workspace} in the findings store ${objects.location}${near ? ` (did you mean ${near}?)` : ''}: pass --workspace with a workspace or scope a scan recorded, or leave it out to list them all`,
  );
}

/** How far back an owner's findings make the owner known to `findings --owner` (the report's nights). */
const OWNER_LOOKBACK_DAYS = 30;

/**
 * `--owner` that selected nothing: with `--registry`, a team the registry does not have is a typo
 * (an error, as a mistyped --workspace is). Without it, an owner no finding of the last 30 days
 * belongs to may be a team with a clean record, so it is only said on stderr (as `report --owner`
 * says it), with the owners the store knows.
 */
async function checkOwnerKnown(
  owner: string,
  open: readonly Finding[],
  registry: { path: string | undefined; loaded: LoadedRegistry | undefined },
  history: () => Promise<Finding[]>,
): Promise<void> {
  const { path: registryPath, loaded } = registry;
  if (loaded) {
    const teams = loaded.registry.owners.teams.map((team) => team.id);
    if (teams.includes(owner)) return;
    const near = closestMatch(owner, teams);
    throw new CliError(
      stripForTerminal(
        `no team ${redactText(owner)} in ${registryPath}${near ? ` (did you mean ${near}?)` : ''}: pass --owner with one of its teams (${teams.join(', ')})`,
      ),
    );
  }
  const owners = new Set(open.map((finding) => finding.owner));
  if (owners.has(owner)) return;
  for (const finding of await history()) owners.add(finding.owner);
  if (owners.has(owner)) return;
  const known = [...owners].filter((name): name is string => typeof name === 'string').sort();
  const near = closestMatch(owner, known);
  process.stderr.write(
    `driftwatch: ${stripForTerminal(`no finding of the last ${OWNER_LOOKBACK_DAYS} days belongs to owner ${redactText(owner)}${near ? ` (did you mean ${near}?)` : ''} (owners in the store: ${known.join(', ') || 'none'}): check the spelling; with --registry, an owner it has no team for is an error`)}\n`,
  );
}

/**
 * A listing leaves corrupt objects in place for the next scan to quarantine and report as
 * `store.corrupt-object`; until then each is one stderr line, and the command fails instead of
 * reporting fewer findings as if that were all.
 */
function reportCorruptions(corruptions: readonly CorruptObject[]): boolean {
  for (const corrupt of corruptions) {
    const where = corrupt.quarantinedAs
      ? `${corrupt.removed ? 'moved' : 'copied'} to ${corrupt.quarantinedAs}`
      : 'left in place';
    process.stderr.write(
      `driftwatch: ${stripForTerminal(`${corrupt.key} in the findings store is not a valid ${corrupt.what} (${corrupt.reason}), ${where}: ${holdsFindings(corrupt) ? 'the findings in it are not listed' : 'its scan is not counted'}; restore a good version of it, or let the next scan write it again`)}\n`,
    );
  }
  return corruptions.length > 0;
}

/** A current document or a history file holds findings; a summary (`--health`) holds a scan's counts. */
function holdsFindings(corrupt: CorruptObject): boolean {
  return corrupt.what === STORED.current.what || corrupt.what === STORED.history.what;
}

/**
 * Under the table, one line per finding shown open because its suppression expired: the status
 * column says `new`, this says why it is back (JSON, SARIF: `evidence.suppressionExpired`).
 */
function expiredSuppressionNotes(shown: readonly Finding[]): string {
  const lines: string[] = [];
  const idLength = shortIdLength(shown.map((finding) => finding.id));
  for (const finding of sortFindings(shown)) {
    const expired = finding.status === 'resolved' ? undefined : expiredSuppressionOf(finding);
    if (expired)
      lines.push(
        stripForTerminal(
          `${finding.id.slice(0, idLength)}: its suppression by ${expired.by} expired on ${dayOf(expired.until)} (${expired.reason}); it is open again: fix it, or suppress it again`,
        ),
      );
  }
  return lines.length > 0 ? `\nSuppression expired:\n${lines.map((line) => `  ${line}`).join('\n')}\n` : '';
}

/**
 * The findings resolved now, each once, as of its latest resolution. A finding that came back after it
 * was resolved (regressed, new again) is not: it is open in its current document, or its latest line
 * in the window is a sighting. Listing it as resolved would tell a person, or a gate that checks a
 * fix, that open drift is gone.
 */
function latestResolved(history: readonly Finding[], open: readonly Finding[]): Finding[] {
  const openIds = new Set(open.map((finding) => finding.id));
  const latest = new Map<string, Finding>();
  for (const finding of history) {
    if (openIds.has(finding.id)) continue;
    const known = latest.get(finding.id);
    if (!known || lineTime(finding) > lineTime(known)) latest.set(finding.id, finding);
  }
  return [...latest.values()].filter((finding) => finding.status === 'resolved');
}

/** When a history line was written (ms): a resolution at its resolvedAt, a sighting when it was seen. */
function lineTime(line: Finding): number {
  return Date.parse(line.status === 'resolved' ? (line.resolvedAt ?? line.lastSeenAt) : line.lastSeenAt);
}

/** One listing per day of history: a window this long is already ~400 listings (older: Athena). */
const MAX_HISTORY_DAYS = 400;

/**
 * `--status resolved --since` reaches back at most MAX_HISTORY_DAYS (docs/cli.md: "more than 400 days
 * back" is the error). Judged and named by how far back the --since the user typed is, not by the
 * days of listings read (daysBack counts the partial day too: 400d reads 401 and must pass).
 */
function assertWithinHistory(typed: string, since: Date, now: Date): void {
  const back = (now.getTime() - since.getTime()) / DAY_MS;
  if (back <= MAX_HISTORY_DAYS) return;
  throw new UsageError(
    `--status resolved reads at most ${MAX_HISTORY_DAYS} days of scan history and --since ${typed} is ${Math.ceil(back)} days back: give a --since at most ${MAX_HISTORY_DAYS} days back (e.g. --since ${MAX_HISTORY_DAYS}d), or query older history with Athena`,
  );
}

const DAY_MS = 24 * 60 * 60_000;

function daysBack(since: Date, now: Date): number {
  return Math.max(1, Math.ceil((now.getTime() - since.getTime()) / DAY_MS) + 1);
}

function renderHealth(
  summaries: readonly ScanSummary[],
  missing: boolean,
  alertAfterMs: number,
  unread: number,
): string {
  const rows = summaries
    .slice(0, 10)
    .map((summary) => [
      summary.scanId,
      summary.startedAt.replace(/\.\d+Z$/, 'Z'),
      `${Math.round(summary.durationsMs.total / 1000)}s`,
      `${summary.workspaces.scanned}/${summary.workspaces.total}`,
      String(summary.workspaces.failed),
      String(summary.workspaces.busy),
      String(summary.findings.total),
    ]);
  const table = rows.length
    ? renderTable(['SCAN', 'STARTED', 'DURATION', 'SCANNED', 'FAILED', 'BUSY', 'FINDINGS'], rows, {
        // Scan ids are ids: never cut to fit the width.
        fixed: [0, 1],
      })
    : // Summaries that could not be read are not "no scans": the lines on stderr say which.
      unread > 0
      ? `No readable scan summary in the last 14 days (${unread} could not be read).\n`
      : 'No scans in the last 14 days.\n';
  const hours = Math.round(alertAfterMs / 3_600_000);
  const verdict = missing
    ? `SCAN MISSING: no scan completed within ${hours}h; the fallback owner is alerted.\n`
    : `OK: a scan completed within the last ${hours}h.\n`;
  return `${table}\n${verdict}`;
}
