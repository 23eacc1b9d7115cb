import {
  assertRetrySchedule,
  DEFAULT_RETRY_SCHEDULE,
  MAX_ATTEMPTS,
  MAX_RETRIES,
  nextAttemptDelayMs,
  parseRetryAfter,
  retryDelayMs,
  type RetrySchedule,
} from '../../../src/webhooks/index.js';

const schedule: RetrySchedule = { baseMs: 1_000, maxMs: 60_000, factor: 2, jitter: 0.25 };
const attempts = Array.from({ length: MAX_RETRIES }, (_, i) => i + 1);
/** A seeded generator (mulberry32), so the jitter test is random but reproducible. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('nextAttemptDelayMs', () => {
  it('allows 10 retries, 11 attempts in all', () => {
    expect(MAX_RETRIES).toBe(10);
    expect(MAX_ATTEMPTS).toBe(11);
  });

  it('grows exponentially up to maxMs without jitter (random 0)', () => {
    expect(attempts.map((n) => nextAttemptDelayMs(n, schedule, () => 0))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000, 60_000,
    ]);
  });

  it('is monotonic for any fixed draw, and bounded by maxMs', () => {
    for (const r of [0, 0.1, 0.5, 0.999999]) {
      const delays = attempts.map((n) => nextAttemptDelayMs(n, schedule, () => r));
      delays.forEach((d, i) => i > 0 && expect(d).toBeGreaterThanOrEqual(delays[i - 1]));
      expect(Math.max(...delays)).toBeLessThanOrEqual(schedule.maxMs);
    }
  });

  it('keeps jittered delays within [(1 − jitter) × ceiling, ceiling] and actually spreads them', () => {
    const random = seeded(42);
    for (const n of attempts) {
      const ceiling = Math.min(schedule.maxMs, schedule.baseMs * 2 ** (n - 1));
      const seen = new Set<number>();
      for (let i = 0; i < 200; i++) {
        const delay = nextAttemptDelayMs(n, schedule, random);
        expect(delay).toBeGreaterThanOrEqual(Math.floor(ceiling * (1 - schedule.jitter)));
        expect(delay).toBeLessThanOrEqual(ceiling);
        seen.add(delay);
      }
      expect(seen.size).toBeGreaterThan(50);
    }
  });

  it('clamps a misbehaving random source', () => {
    expect(nextAttemptDelayMs(1, schedule, () => 5)).toBe(750);
    expect(nextAttemptDelayMs(1, schedule, () => -1)).toBe(1_000);
    expect(nextAttemptDelayMs(1, schedule, () => NaN)).toBe(1_000);
  });

  it('works in milliseconds for tests and stays finite far beyond the last retry', () => {
    const fast = { baseMs: 5, maxMs: 50, factor: 3, jitter: 0 };
    expect(attempts.map((n) => nextAttemptDelayMs(n, fast, Math.random))).toEqual([
      5, 15, 45, 50, 50, 50, 50, 50, 50, 50,
    ]);
    expect(nextAttemptDelayMs(5_000, fast, Math.random)).toBe(50);
    expect(nextAttemptDelayMs(5_000, { ...fast, baseMs: 0, maxMs: 0 }, Math.random)).toBe(0);
  });

  it('refuses bad attempts and schedules', () => {
    expect(() => nextAttemptDelayMs(0, schedule, Math.random)).toThrow(RangeError);
    expect(() => nextAttemptDelayMs(1.5, schedule, Math.random)).toThrow(RangeError);
    expect(() => assertRetrySchedule({ ...schedule, jitter: 1.5 })).toThrow(/jitter/);
    expect(() => assertRetrySchedule({ ...schedule, factor: 0.5 })).toThrow(/factor/);
    expect(() => assertRetrySchedule({ ...schedule, maxMs: 10 })).toThrow(/maxMs/);
    expect(() => assertRetrySchedule({ ...schedule, baseMs: -1 })).toThrow(/baseMs/);
    expect(() => assertRetrySchedule(DEFAULT_RETRY_SCHEDULE)).not.toThrow();
  });
});

describe('retryDelayMs', () => {
  it('gives up after the 11th attempt', () => {
    expect(retryDelayMs(10, schedule, () => 0)).toBe(60_000);
    expect(retryDelayMs(11, schedule, () => 0)).toBeNull();
  });

  it('honours Retry-After as a minimum, capped at an hour', () => {
    expect(retryDelayMs(1, schedule, () => 0, 3_000)).toBe(3_000);
    expect(retryDelayMs(7, schedule, () => 0, 3_000)).toBe(60_000);
    expect(retryDelayMs(1, schedule, () => 0, 10 * 3_600_000)).toBe(3_600_000);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-01T12:00:00Z');

  it('reads delta-seconds', () => {
    expect(parseRetryAfter('3', now)).toBe(3_000);
    expect(parseRetryAfter(' 120 ', now)).toBe(120_000);
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter(['7'], now)).toBe(7_000);
  });

  it('reads the three HTTP-date formats as a wait from now', () => {
    expect(parseRetryAfter('Sun, 01 Nov 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sunday, 01-Nov-26 12:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Sun Nov  1 12:00:05 2026', now)).toBe(5_000);
  });

  it('treats a past date as no wait', () => {
    expect(parseRetryAfter('Sat, 31 Oct 2026 12:00:00 GMT', now)).toBe(0);
  });

  it('caps long waits at one hour (or a given cap)', () => {
    expect(parseRetryAfter('999999999', now)).toBe(3_600_000);
    expect(parseRetryAfter('9'.repeat(400), now)).toBe(3_600_000);
    expect(parseRetryAfter('Tue, 01 Dec 2026 12:00:00 GMT', now)).toBe(3_600_000);
    expect(parseRetryAfter('600', now, 60_000)).toBe(60_000);
  });

  it.each([
    undefined,
    null,
    '',
    '  ',
    '-5',
    '1.5',
    '5s',
    'soon',
    '2026-11-01T12:00:30Z',
    'Sun, 31 Feb 2026 12:00:00 GMT',
    'Sun, 01 Foo 2026 12:00:00 GMT',
    'Sun, 01 Nov 2026 25:00:00 GMT',
    'Sun, 01 Nov 2026 12:00:00 PST',
  ])('returns null for %p', (value) => {
    expect(parseRetryAfter(value, now)).toBeNull();
  });
});
