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
