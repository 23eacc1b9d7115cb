import type { CliOutput } from './output.js';

export interface Progress {
  readonly done: number;
  readonly total: number;
  readonly eventsPerSecond: number;
}

/** Pure: `[#########-----------] 450/1000 45.0% 1234 events/s`. The total never shows below `done`. */
export function formatProgress(progress: Progress, width = 30): string {
  const total = Math.max(progress.total, progress.done);
  const ratio = total > 0 ? Math.min(1, progress.done / total) : 1;
  const filled = Math.floor(ratio * width);
  const percent = (Math.floor(ratio * 1000) / 10).toFixed(1);
  return (
    `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${progress.done}/${total} ${percent}% ` +
    `${formatRate(progress.eventsPerSecond)} events/s`
  );
}

/** Events per second, whole above 10, one decimal below. */
export function formatRate(eventsPerSecond: number): string {
  if (!Number.isFinite(eventsPerSecond) || eventsPerSecond <= 0) return '0';
  return eventsPerSecond >= 10 ? Math.round(eventsPerSecond).toString() : eventsPerSecond.toFixed(1);
}

export interface ProgressRenderer {
  update(progress: Progress): void;
  /** Draws the last progress for good (a TTY line is ended; a log gets the final line). */
  finish(): void;
}

export interface ProgressRendererOptions {
  /** Text before the bar, e.g. `rebuilding stream-summaries`. */
  readonly label?: string;
  /** Milliseconds, monotonic. */
  readonly now?: () => number;
  /** Least time between two lines when stderr is not a terminal. */
  readonly logIntervalMs?: number;
  /** Least time between two redraws on a terminal. */
  readonly redrawIntervalMs?: number;
  readonly width?: number;
}

/**
 * Draws progress on stderr: on a terminal (with `errRaw`) one line redrawn in place (`\r`, then erase to the end
 * of the line) at most every `redrawIntervalMs`; otherwise a line at most every `logIntervalMs` (2 s) and a
 * final one.
 */
export function createProgressRenderer(
  output: Pick<CliOutput, 'err' | 'errRaw' | 'isTTY'>,
  options: ProgressRendererOptions = {},
): ProgressRenderer {
  const now = options.now ?? (() => performance.now());
  const logIntervalMs = options.logIntervalMs ?? 2000;
  const redrawIntervalMs = options.redrawIntervalMs ?? 100;
  const prefix = options.label ? `${options.label} ` : '';
  const line = (progress: Progress) => prefix + formatProgress(progress, options.width);
  const errRaw = output.isTTY ? output.errRaw?.bind(output) : undefined;
  let last: Progress | null = null;
  let lastDrawnAt = errRaw ? Number.NEGATIVE_INFINITY : now();
  let lastDrawn: Progress | null = null;
  let finished = false;

  const draw = (progress: Progress) => {
    if (errRaw) errRaw(`\r${line(progress)}\x1b[K`);
    else output.err(line(progress));
    lastDrawn = progress;
    lastDrawnAt = now();
  };

  return {
    update(progress) {
      if (finished) return;
      last = progress;
      const interval = errRaw ? redrawIntervalMs : logIntervalMs;
      if (now() - lastDrawnAt >= interval) draw(progress);
    },
    finish() {
      if (finished) return;
      finished = true;
      if (last && last !== lastDrawn) draw(last);
      if (errRaw && lastDrawn) errRaw('\n');
    },
  };
}
