/**
 * Runs `step` until `signal` aborts: again at once while it finds work, else after `idle()` (a poll interval or a
 * wake-up). A failing step is reported and retried after the idle wait, so one bad round never stops a worker.
 * The loop the projection runner, the webhook outbox writer and the dispatchers share.
 */
export async function followUntilAborted(
  signal: AbortSignal,
  step: () => Promise<boolean>,
  idle: () => Promise<void>,
  onError: (error: unknown) => void,
): Promise<void> {
  while (!signal.aborted) {
    let busy = false;
    try {
      busy = await step();
    } catch (error) {
      onError(error);
    }
    if (!busy && !signal.aborted) await idle();
  }
}

/** Waits `ms`, or less when `signal` aborts first; leaves no listener behind either way. */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

export interface WakeableOptions {
  /** Waits until woken or `ms` passed (or the loop's signal aborts): `AppendSignal.wait`, `waitForAppend`. */
  readonly wait: (ms: number) => Promise<void>;
  readonly pollIntervalMs: number;
  /**
   * After a wake-up whose step found nothing, look again soon (10 ms, doubling to 1 s, for up to 30 s or until the
   * step finds work) before the long wait: for readers of the log, where what was just appended is not readable while
   * an older transaction of the database server is still open (the log's watermark).
   */
  readonly chase?: boolean;
}

const CHASE_FIRST_MS = 10;
const CHASE_MAX_MS = 1_000;
const CHASE_FOR_MS = 30_000;

/**
 * `followUntilAborted` for a step woken by a signal (appends, queued jobs) and else polling. The wait is armed before
 * each step, so a wake-up that comes while the step runs is not lost; with `chase`, a wake-up whose step found
 * nothing is followed by short retries. A wake-up only ever shortens a wait: one missed leaves the work to the poll.
 */
export function followWakeable(
  signal: AbortSignal,
  step: () => Promise<boolean>,
  options: WakeableOptions,
  onError: (error: unknown) => void,
): Promise<void> {
  let armed: { readonly at: number; readonly done: Promise<void> } | null = null;
  let chaseMs = 0;
  let chasedMs = 0;
  const arm = () => {
    armed ??= { at: Date.now(), done: options.wait(options.pollIntervalMs) };
    return armed;
  };
  return followUntilAborted(
    signal,
    async () => {
      arm();
      const busy = await step();
      if (busy) chaseMs = 0;
      return busy;
    },
    async () => {
      if (chaseMs > 0 && chasedMs < CHASE_FOR_MS) {
        await sleepUnlessAborted(chaseMs, signal);
        chasedMs += chaseMs;
        chaseMs = Math.min(chaseMs * 2, CHASE_MAX_MS);
        return;
      }
      const { at, done } = arm();
      await done;
      armed = null;
      const woken = Date.now() - at < options.pollIntervalMs;
      chaseMs = options.chase && woken ? CHASE_FIRST_MS : 0;
      chasedMs = 0;
    },
    onError,
  );
}
