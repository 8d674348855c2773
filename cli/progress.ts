import type { PipelineStage } from '../functions/core/scan/stages.js';
import { stripForTerminal } from '../functions/core/text/sanitize.js';

/**
 * What `driftwatch scan` tells the progress line. Events carry no time: whoever draws the line
 * stamps them with its own clock, so the runner's injected `now` (fixed in tests) never makes
 * elapsed times lie.
 */
export type ProgressEvent =
  | { type: 'pipeline'; stage: PipelineStage }
  | { type: 'workspaces'; total: number }
  | { type: 'workspace-started'; workspace: string }
  | { type: 'workspace-stage'; workspace: string; stage: string }
  | { type: 'workspace-finished'; workspace: string; failed: boolean };

export type ProgressListener = (event: ProgressEvent) => void;

interface ActiveWorkspace {
  workspace: string;
  /** 1-based, in the order workspaces started: the n of n/N. */
  position: number;
  stage: string;
  stageSince: number;
}

export interface ProgressState {
  total: number;
  started: number;
  done: number;
  failed: number;
  pipeline?: { stage: PipelineStage; since: number };
  active: ActiveWorkspace[];
}

export const NO_PROGRESS: ProgressState = { total: 0, started: 0, done: 0, failed: 0, active: [] };

/** Before the first Terraform step: credentials, identity, the source lookup. */
const FIRST_WORKSPACE_STAGE = 'preparing';

const PIPELINE_LABELS: Record<PipelineStage, string> = {
  LoadRegistry: 'loading the registry',
  CheckBackend: 'checking state buckets',
  ObserveLocks: 'looking at state locks',
  ScanTerraform: 'scanning workspaces',
  ScanCluster: 'scanning clusters',
  ConfirmLocks: 'confirming state locks',
  RecordFindings: 'recording findings',
  WriteReports: 'writing reports',
  NotifyOwners: 'notifying owners',
};

/** The state after `event`, which happened at `at` (ms). Pure: returns a new state. */
export function applyProgress(state: ProgressState, event: ProgressEvent, at: number): ProgressState {
  switch (event.type) {
    case 'pipeline':
      return { ...state, pipeline: { stage: event.stage, since: at } };
    case 'workspaces':
      return { ...state, total: event.total };
    case 'workspace-started': {
      const position = state.started + 1;
      const started = { workspace: event.workspace, position, stage: FIRST_WORKSPACE_STAGE, stageSince: at };
      return { ...state, started: position, active: [...state.active, started] };
    }
    case 'workspace-stage':
      return {
        ...state,
        active: state.active.map((active) =>
          active.workspace === event.workspace ? { ...active, stage: event.stage, stageSince: at } : active,
        ),
      };
    case 'workspace-finished':
      return {
        ...state,
        done: state.done + (event.failed ? 0 : 1),
        failed: state.failed + (event.failed ? 1 : 0),
        active: state.active.filter((active) => active.workspace !== event.workspace),
      };
  }
}

/** 12s, 3m05s, 1h02m: short enough to tick in place. */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

/**
 * The one status line, e.g. `[2/5] payments-prod: terraform plan (12s) · 1 done, 0 failed`. The
 * workspace shown is the one running longest (the one being waited for); others running at the same
 * time are counted. Between workspaces it names the pipeline stage. `width`: the terminal's columns;
 * the line keeps one column free, as a line filling the last column wraps on some terminals and `\r`
 * would then redraw only its second half.
 */
export function renderProgress(state: ProgressState, now: number, width?: number): string {
  const finished = state.done + state.failed;
  const counts = ` · ${state.done} done, ${state.failed} failed`;
  const [current, ...others] = state.active;
  // No n/N before the registry is loaded (or when it has no Terraform workspace, only clusters).
  const of = (n: number) => (state.total ? `[${n}/${state.total}] ` : '');
  let head: string;
  if (current) {
    const more = others.length ? ` +${others.length} running` : '';
    head =
      `${of(current.position)}${stripForTerminal(current.workspace)}: ${current.stage} ` +
      `(${formatElapsed(now - current.stageSince)})${more}`;
  } else if (state.pipeline) {
    const label = PIPELINE_LABELS[state.pipeline.stage];
    head = `${of(finished)}${label} (${formatElapsed(now - state.pipeline.since)})`;
  } else {
    head = `${of(finished)}starting`;
  }
  return fitLine(head, counts, width);
}

/** Cuts the head first (with `…`): the counts say how far the scan is, the stage name can shrink. */
function fitLine(head: string, tail: string, width: number | undefined): string {
  if (width === undefined) return head + tail;
  const max = Math.max(1, width - 1);
  const chars = (text: string) => Array.from(text);
  const whole = chars(head + tail);
  if (whole.length <= max) return head + tail;
  const room = max - chars(tail).length;
  // Too narrow to keep the counts and a readable head: cut the whole line instead.
  if (room < 12) return `${whole.slice(0, max - 1).join('')}…`;
  return `${chars(head)
    .slice(0, room - 1)
    .join('')}…${tail}`;
}

/**
 * `DRIFTWATCH_PROGRESS=tty|plain` wins (tests, and people who want either); otherwise a line
 * redrawn in place only where a person watches: stderr is a terminal that is not `TERM=dumb`.
 * Into a pipe or a CI log the plain lines stay as they are, one event a line.
 */
export function progressMode({
  isTTY,
  env,
}: {
  isTTY: boolean;
  env: Readonly<Record<string, string | undefined>>;
}): 'tty' | 'plain' {
  const configured = env.DRIFTWATCH_PROGRESS;
  if (configured === 'tty' || configured === 'plain') return configured;
  return isTTY && env.TERM !== 'dumb' ? 'tty' : 'plain';
}
