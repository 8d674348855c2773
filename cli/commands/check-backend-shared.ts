// What `check-backend` and `locks` check and say beyond cli/backend-session.ts: their own option
// values (before anything is read or recorded) and one `driftwatch:` line per read that failed after the preflight.
import { classifyReadFailure } from '../../functions/core/backend/failure-cause.js';
import type { ReadFailure } from '../../functions/core/backend/ports.js';
import { shellWord } from '../../functions/core/backend/rule.js';
import type { ScopeRun } from '../../functions/core/backend/scope-runs.js';
import { redactText } from '../../functions/core/redaction/secrets.js';
import { lockTableProblem, regionProblem } from '../../functions/core/registry/formats.js';
import { stripForTerminal } from '../../functions/core/text/sanitize.js';
import { UsageError } from '../context.js';
import type { BucketCommandOptions } from '../options.js';

/**
 * `--region` and `--lock-table` of both commands: a value that cannot name a region or a DynamoDB
 * table is a usage error (exit 64), not a recorded `backend.preflight` finding that "the next scan"
 * would meet again. The shapes are the registry's own (backend.region, backend.lockTable).
 */
export function checkBucketCommandLine(options: Pick<BucketCommandOptions, 'region' | 'lockTable'>): void {
  if (options.region !== undefined) {
    const problem = regionProblem(options.region);
    if (problem)
      throw new UsageError(
        `--region ${problem}: pass the bucket's region, or leave --region out for the registry's or the SDK's (AWS_REGION)`,
      );
  }
  for (const table of options.lockTable) {
    const problem = lockTableProblem(table);
    if (problem)
      throw new UsageError(
        `--lock-table ${problem} (the dynamodb_table of the backend block, e.g. terraform-locks)`,
      );
  }
}

const KEY_HINT = '--key takes the object key inside the bucket, e.g. env/app/terraform.tfstate';

/**
 * `--key` of check-backend: an object key, never empty, a URL or an absolute path. Such a key names
 * no object, and the check would otherwise report the bucket alone as if the state had been read.
 */
export function checkStateKeys(keys: readonly string[], bucket: string): void {
  for (const key of keys) {
    if (key === '') throw new UsageError(`${KEY_HINT}, not an empty value`);
    const url = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(.*)$/.exec(key);
    if (url) {
      const s3 = url[1]!.toLowerCase() === 's3' ? /^([^/]+)\/(.+)$/.exec(url[2]!) : null;
      const fix = s3
        ? `: pass --key ${shellWord(s3[2]!)}${s3[1] === bucket ? '' : ` and --bucket ${shellWord(s3[1]!)}`}`
        : '';
      throw new UsageError(`${KEY_HINT}, not ${url[1]!.toLowerCase() === 's3' ? 'an s3://' : 'a'} URL${fix}`);
    }
    if (key.startsWith('/'))
      throw new UsageError(
        `${KEY_HINT}, not a path: S3 keys have no leading '/' (pass --key ${shellWord(key.replace(/^\/+/, ''))})`,
      );
    if (key.endsWith('/'))
      throw new UsageError(
        `${KEY_HINT}, not a folder: name the state object itself (${shellWord(key)} ends with '/')`,
      );
  }
}

/** `--key` named an object the bucket does not hold: one line with the cause and the fix. */
export function missingKeyLine(bucket: string, key: string): string {
  const slash = key.lastIndexOf('/');
  const folder = `s3://${bucket}/${slash < 0 ? '' : key.slice(0, slash + 1)}`;
  return stripForTerminal(
    `no state object at s3://${bucket}/${key}: --key names no object in the bucket (a typo, or a state never applied); list the keys with aws s3 ls ${shellWord(folder)} and pass one of them`,
  );
}

/**
 * The bucket could not be read at all (its preflight failed): one line with the cause and the fix (the
 * table shows the same cause as the finding's title), inert: the cause can quote the resource (with
 * `--prefix`) and the service's message (an endpoint that is not AWS).
 */
export function preflightLine(bucket: string, failure: ReadFailure): string {
  const cause = classifyReadFailure(failure);
  return stripForTerminal(redactText(`s3://${bucket} not checked: ${cause.summary}. ${cause.advice}`));
}

/** More distinct failed reads than this are summed up in one last line (each is in the finding). */
const MAX_FAILURE_LINES = 10;

/**
 * One line per distinct read that failed after the preflight (an object or setting the role may not
 * read, a lock table that does not exist): what could not be read, why and the fix. The table shows
 * the `scan-failed` finding; these lines say what to do, as the preflight's line does. Read from the
 * findings' evidence (`evidence.failures`, written by core/backend/scope-runs.ts).
 */
export function readFailureLines(runs: readonly ScopeRun[]): string[] {
  const failures = new Map<string, ReadFailure>();
  for (const run of runs)
    for (const draft of run.drafts) {
      const listed = draft.kind === 'scan-failed' ? draft.evidence?.failures : undefined;
      if (!Array.isArray(listed)) continue;
      for (const failure of listed as ReadFailure[])
        failures.set(`${failure.resource}\n${failure.action}\n${failure.code}`, failure);
    }
  const lines = [...failures.values()]
    .sort((a, b) => a.resource.localeCompare(b.resource) || a.action.localeCompare(b.action))
    .map(readFailureLine);
  if (lines.length <= MAX_FAILURE_LINES) return lines;
  const more = lines.length - MAX_FAILURE_LINES + 1;
  return [
    ...lines.slice(0, MAX_FAILURE_LINES - 1),
    `${more} more reads failed: the scan-failed findings name each one with its fix (--format json, or driftwatch findings show <id>)`,
  ];
}

function readFailureLine(failure: ReadFailure): string {
  const cause = classifyReadFailure(failure);
  const table = /^dynamodb:(.+)$/.exec(failure.resource)?.[1];
  const subject = table === undefined ? failure.resource : `the DynamoDB lock table ${table}`;
  let line = `${subject} not read: ${cause.summary}. ${cause.advice}`;
  if (cause.kind === 'not-found')
    line =
      table === undefined
        ? `${subject} not read: it does not exist (${failure.code}); it was listed, so it went away during the check: run the check again`
        : `${subject} does not exist (${failure.code}): check the name (--lock-table, or backend.lockTable in the registry) and the region (--region, or backend.region); aws dynamodb list-tables lists the tables there`;
  // The cause may quote the service's message (an endpoint that is not AWS): no credential, no escape.
  return stripForTerminal(redactText(line));
}
