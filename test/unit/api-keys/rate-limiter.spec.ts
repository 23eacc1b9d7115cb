import { RateLimiter } from '../../../src/api-keys/rate-limiter.js';

/** A clock the test moves by hand (milliseconds). */
function fakeClock(start = 1_000_000) {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number) => void (now += ms),
  };
}

const takeMany = (sut: RateLimiter, key: string, limit: number, count: number) =>
  Array.from({ length: count }, () => sut.take(key, limit));

describe(RateLimiter.name, () => {
  it('allows N requests per minute, counting down remaining, and refuses N+1 with Retry-After', () => {
    const clock = fakeClock();
    const sut = new RateLimiter({ now: clock.now });
    const decisions = takeMany(sut, 'k', 3, 3);
    expect(decisions.map((decision) => [decision.allowed, decision.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
    ]);
    expect(decisions[0]).toEqual({ allowed: true, limit: 3, remaining: 2, retryAfterSeconds: 0 });
    clock.advance(20_000);
    expect(sut.take('k', 3)).toEqual({ allowed: false, limit: 3, remaining: 0, retryAfterSeconds: 40 });
    clock.advance(39_001);
    // Refused requests do not count; the first three leave the window 60 s after they were made.
    expect(sut.take('k', 3)).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    clock.advance(999);
    expect(sut.take('k', 3)).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('slides: requests leave the window one by one, 60 s after each was made', () => {
    const clock = fakeClock();
    const sut = new RateLimiter({ now: clock.now });
    expect(sut.take('k', 2).allowed).toBe(true); // t = 0
    clock.advance(30_000);
    expect(sut.take('k', 2).allowed).toBe(true); // t = 30 s
    clock.advance(10_000);
    expect(sut.take('k', 2)).toMatchObject({ allowed: false, retryAfterSeconds: 20 }); // the first leaves at 60 s
    clock.advance(20_000);
    expect(sut.take('k', 2)).toMatchObject({ allowed: true, remaining: 0 }); // t = 60 s: the t = 0 one left
    clock.advance(10_000);
    expect(sut.take('k', 2)).toMatchObject({ allowed: false, retryAfterSeconds: 20 }); // the 30 s one leaves at 90 s
    clock.advance(20_000);
    expect(sut.take('k', 2).allowed).toBe(true);
  });

  it('never allows more than N in any 60-second window under steady traffic', () => {
    const clock = fakeClock();
    const sut = new RateLimiter({ now: clock.now });
    const allowedAt: number[] = [];
    for (let i = 0; i < 5000; i += 1) {
      if (sut.take('k', 10).allowed) allowedAt.push(clock.now());
      clock.advance(137);
    }
    for (let i = 10; i < allowedAt.length; i += 1) {
      expect(allowedAt[i] - allowedAt[i - 10]).toBeGreaterThanOrEqual(60_000);
    }
    // …and loses at most a bucket's worth of throughput for it.
    expect(allowedAt.length).toBeGreaterThanOrEqual(Math.floor((5000 * 137) / 61_000) * 10);
  });

  it('counts keys separately and takes the limit of each call', () => {
    const clock = fakeClock();
    const sut = new RateLimiter({ now: clock.now });
    takeMany(sut, 'a', 1, 1);
    expect(sut.take('a', 1).allowed).toBe(false);
    expect(sut.take('b', 1).allowed).toBe(true);
    // A raised limit applies at once (e.g. an operator changed the key's limit).
    expect(sut.take('a', 2)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('evicts keys idle for a whole window, and bounds the number of keys', () => {
    const clock = fakeClock();
    const sut = new RateLimiter({ now: clock.now, maxKeys: 3 });
    sut.take('a', 1);
    sut.take('b', 1);
    expect(sut.size).toBe(2);
    clock.advance(60_000);
    sut.take('c', 1);
    expect(sut.size).toBe(1); // a and b were idle for a minute: nothing to remember
    expect(sut.take('a', 1).allowed).toBe(true);
    sut.take('d', 1);
    sut.take('e', 1);
    expect(sut.size).toBe(3); // c, the least recently seen, was forgotten
    expect(sut.take('a', 1).allowed).toBe(false);
    expect(sut.take('c', 1).allowed).toBe(true);
  });

  it('keeps memory per key bounded by the window, whatever the limit', () => {
    const clock = fakeClock();
    const sut = new RateLimiter({ now: clock.now });
    for (let i = 0; i < 100_000; i += 1) {
      sut.take('busy', 1_000_000);
      clock.advance(7);
    }
    const state = (
      sut as unknown as { states: Map<string, { buckets: unknown[]; head: number }> }
    ).states.get('busy')!;
    expect(state.buckets.length - state.head).toBeLessThanOrEqual(61);
    expect(state.buckets.length).toBeLessThanOrEqual(130);
  });

  it('refuses a limit that is not a positive integer', () => {
    const sut = new RateLimiter({ now: () => 0 });
    expect(() => sut.take('k', 0)).toThrow(RangeError);
    expect(() => sut.take('k', 1.5)).toThrow(RangeError);
  });
});
