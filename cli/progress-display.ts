import { applyProgress, NO_PROGRESS, type ProgressEvent, renderProgress } from './progress.js';

export interface ProgressDisplay {
  /** Feeds the model; the line is redrawn at most every `minIntervalMs`. */
  event(event: ProgressEvent): void;
  /** Writes one whole output line (a log line) above the status line, which comes back after it. */
  line(text: string): void;
  /** Clears the status line for good (before the scan's closing lines, or an error). */
  stop(): void;
}

export interface ProgressDisplayOptions {
  write: (text: string) => void;
  /** The terminal's columns. */
  width?: number;
  now?: () => number;
  /** At most ~5 redraws a second: a terminal over ssh should not spend its bandwidth on a clock. */
  minIntervalMs?: number;
}

/** `\r` back to the column 0, `ESC [K` erases what an older, longer line left to the right. */
const CLEAR = '\r\u001b[K';

/**
 * One status line redrawn in place on a terminal. Any other output line clears it first, so log
 * lines scroll above it whole; elapsed times tick once a second while nothing else happens.
 */
export function createProgressDisplay(options: ProgressDisplayOptions): ProgressDisplay {
  const now = options.now ?? Date.now;
  const minInterval = options.minIntervalMs ?? 200;
  let state = NO_PROGRESS;
  let shown = false;
  let stopped = false;
  let lastDraw = Number.NEGATIVE_INFINITY;
  let pending: ReturnType<typeof setTimeout> | undefined;

  const draw = () => {
    pending = undefined;
    if (stopped) return;
    lastDraw = now();
    options.write(`\r${renderProgress(state, lastDraw, options.width)}\u001b[K`);
    shown = true;
  };
  const schedule = () => {
    if (stopped || pending) return;
    const wait = lastDraw + minInterval - now();
    if (wait <= 0) draw();
    // unref: a pending redraw never keeps the process alive.
    else pending = setTimeout(draw, wait).unref();
  };
  const clear = () => {
    if (shown) options.write(CLEAR);
    shown = false;
  };
  const ticker = setInterval(schedule, 1000).unref();

  return {
    event(event) {
      state = applyProgress(state, event, now());
      schedule();
    },
    line(text) {
      clear();
      options.write(`${text}\n`);
      schedule();
    },
    stop() {
      stopped = true;
      clearInterval(ticker);
      if (pending) clearTimeout(pending);
      pending = undefined;
      clear();
    },
  };
}
