import { followWakeable } from '../../../src/common/follow-loop.js';
import { AppendSignal } from '../../../src/event-store/catch-up-subscription.js';

/** Polls `probe` every 5 ms until it holds, for at most `ms`. */
async function eventually(probe: () => boolean, ms = 2_000): Promise<void> {
  const started = Date.now();
  while (!probe()) {
    if (Date.now() - started > ms) throw new Error('condition not met');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe(followWakeable.name, () => {
  const HOUR = 3_600_000;
  let abort: AbortController;
  let wake: AppendSignal;
  let loop: Promise<void> | null;

  beforeEach(() => {
    abort = new AbortController();
    wake = new AppendSignal();
    loop = null;
  });
  afterEach(async () => {
    abort.abort();
    await loop;
  });

  const follow = (step: () => Promise<boolean>, chase = false) => {
    loop = followWakeable(
      abort.signal,
      step,
      { wait: (ms) => wake.wait(ms, abort.signal), pollIntervalMs: HOUR, chase },
      () => undefined,
    );
  };

  it('runs the step again when woken, long before its poll interval', async () => {
    let steps = 0;
    follow(async () => {
      steps += 1;
      return false;
    });
    await eventually(() => steps === 1);
    wake.notify();
    await eventually(() => steps === 2);
  });

  it('does not lose a wake-up that comes while the step runs', async () => {
    let steps = 0;
    follow(async () => {
      steps += 1;
      // The wake-up arrives before the step ends, when no one is waiting yet.
      if (steps === 1) wake.notify();
      return false;
    });
    await eventually(() => steps === 2);
  });

  it('with chase, looks again soon after a wake-up whose step found nothing, until it finds work', async () => {
    let steps = 0;
    let readableAt = Number.POSITIVE_INFINITY;
    follow(async () => {
      steps += 1;
      return steps === readableAt;
    }, true);
    await eventually(() => steps === 1);
    // Woken, but what was appended becomes readable only at the fourth step (an older transaction still open); the
    // fifth finds nothing more.
    readableAt = 4;
    wake.notify();
    await eventually(() => steps === 5);
    const settled = steps;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(steps).toBe(settled);
  });

  it('without chase, waits for the next wake-up after a step that found nothing', async () => {
    let steps = 0;
    follow(async () => {
      steps += 1;
      return false;
    });
    await eventually(() => steps === 1);
    wake.notify();
    await eventually(() => steps === 2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(steps).toBe(2);
  });
});
