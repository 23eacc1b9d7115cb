/**
 * When to try a webhook delivery again (spec: "up to 10 retries with exponential backoff"; ARCHITECTURE §7: with
 * jitter, schedule in config so tests can use milliseconds). Pure: the clock and the random source are arguments.
 */

/** Retries after the first attempt: up to 11 attempts in all. */
export const MAX_RETRIES = 10;
export const MAX_ATTEMPTS = MAX_RETRIES + 1;
/** The longest wait a receiver's `Retry-After` can ask for; longer values are capped to this. */
export const RETRY_AFTER_CAP_MS = 60 * 60 * 1000;

export interface RetrySchedule {
  /** The wait before the first retry (before jitter). */
  readonly baseMs: number;
  /** No wait (before jitter) is longer than this. */
  readonly maxMs: number;
  /** Each retry waits `factor` times the previous one (>= 1). */
  readonly factor: number;
  /** 0..1: the share of each wait that is randomised (0 = none; 1 = anywhere from 0 to the full wait). */
  readonly jitter: number;
}

/**
 * A suggested production schedule: 5 s, 10 s, 20 s, … doubling, at most 30 min, ±0–20 % shorter at random.
 * The ten retries span about 70 minutes (before jitter).
 */
export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = {
  baseMs: 5_000,
  maxMs: 30 * 60 * 1000,
  factor: 2,
  jitter: 0.2,
};

/** Throws a RangeError naming the first unusable field (for config validation at boot). */
export function assertRetrySchedule(schedule: RetrySchedule): void {
  const { baseMs, maxMs, factor, jitter } = schedule;
  if (!Number.isFinite(baseMs) || baseMs < 0) throw new RangeError(`baseMs must be >= 0 (got ${baseMs})`);
  if (!Number.isFinite(maxMs) || maxMs < baseMs) {
    throw new RangeError(`maxMs must be >= baseMs (got ${maxMs})`);
  }
  if (!Number.isFinite(factor) || factor < 1) throw new RangeError(`factor must be >= 1 (got ${factor})`);
  if (!Number.isFinite(jitter) || jitter < 0 || jitter > 1) {
    throw new RangeError(`jitter must be from 0 to 1 (got ${jitter})`);
  }
}

/**
 * The wait before the next attempt, after `attempt` attempts have failed (1 after the first attempt, …, 10 before
 * the last retry). Before jitter: `min(maxMs, baseMs × factor^(attempt − 1))`, non-decreasing in `attempt`; jitter
 * then takes off up to `jitter` of it at random: the result lies in `[(1 − jitter) × ceiling, ceiling]`, so it never
 * exceeds `maxMs`. `random` returns a number in [0, 1) (e.g. `Math.random`); out-of-range values are clamped.
 * An integer number of milliseconds.
 */
export function nextAttemptDelayMs(attempt: number, schedule: RetrySchedule, random: () => number): number {
  if (!Number.isInteger(attempt) || attempt < 1) {
    throw new RangeError(`attempt must be an integer >= 1 (got ${attempt})`);
  }
  assertRetrySchedule(schedule);
  const ceiling =
    schedule.baseMs === 0 ? 0 : Math.min(schedule.maxMs, schedule.baseMs * schedule.factor ** (attempt - 1));
  const draw = random();
  const r = Number.isFinite(draw) ? Math.min(1, Math.max(0, draw)) : 0;
  return Math.round(ceiling * (1 - schedule.jitter * r));
}

/**
 * The wait before the next attempt after `attemptsMade` failed attempts, or null when no retry is left (after
 * `MAX_ATTEMPTS`). A receiver's `Retry-After` (ms, already capped) is honoured: the wait is at least that long.
 */
export function retryDelayMs(
  attemptsMade: number,
  schedule: RetrySchedule,
  random: () => number,
  retryAfterMs: number | null = null,
): number | null {
  if (attemptsMade >= MAX_ATTEMPTS) return null;
  const backoff = nextAttemptDelayMs(attemptsMade, schedule, random);
  return retryAfterMs === null ? backoff : Math.max(backoff, Math.min(retryAfterMs, RETRY_AFTER_CAP_MS));
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** RFC 7231 IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`. */
const IMF_FIXDATE = /^[A-Za-z]{3}, (\d{2}) ([A-Za-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
/** Obsolete RFC 850: `Sunday, 06-Nov-94 08:49:37 GMT`. */
const RFC850 = /^[A-Za-z]{6,9}, (\d{2})-([A-Za-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
/** ANSI C asctime(): `Sun Nov  6 08:49:37 1994` (UTC). */
const ASCTIME = /^[A-Za-z]{3} ([A-Za-z]{3}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

/** An HTTP-date (the three formats RFC 7231 §7.1.1.1 says recipients accept) as unix ms, or null. */
export function parseHttpDate(text: string, nowMs: number): number | null {
  let day: string, month: string, year: number, hh: string, mm: string, ss: string;
  let match = IMF_FIXDATE.exec(text);
  if (match) {
    [, day, month, , hh, mm, ss] = match;
    year = Number(match[3]);
  } else if ((match = RFC850.exec(text))) {
    [, day, month, , hh, mm, ss] = match;
    // A two-digit year more than 50 years ahead is the most recent such year in the past (RFC 7231).
    const nowYear = new Date(nowMs).getUTCFullYear();
    year = Math.floor(nowYear / 100) * 100 + Number(match[3]);
    if (year > nowYear + 50) year -= 100;
  } else if ((match = ASCTIME.exec(text))) {
    [, month, day, hh, mm, ss] = match;
    year = Number(match[6]);
  } else {
    return null;
  }
  const monthIndex = MONTHS.indexOf(month.toLowerCase());
  const [d, h, m, s] = [Number(day.trim()), Number(hh), Number(mm), Number(ss)];
  if (monthIndex < 0 || d < 1 || d > 31 || h > 23 || m > 59 || s > 60) return null;
  const ms = Date.UTC(year, monthIndex, d, h, m, Math.min(s, 59));
  // Reject dates that roll over (31 Feb).
  if (new Date(ms).getUTCDate() !== d) return null;
  return ms;
}

/**
 * A `Retry-After` header as a wait in ms from `nowMs`: delta-seconds (`120`) or an HTTP-date (a past date is 0).
 * Capped at `capMs` (default 1 hour). Missing, empty or invalid (negative, fractional, unparseable) → null.
 */
export function parseRetryAfter(
  header: string | readonly string[] | null | undefined,
  nowMs: number,
  capMs: number = RETRY_AFTER_CAP_MS,
): number | null {
  const raw = Array.isArray(header) ? header[0] : header;
  if (typeof raw !== 'string') return null;
  const text = raw.trim();
  if (text === '') return null;
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return Number.isFinite(seconds) ? Math.min(seconds * 1000, capMs) : capMs;
  }
  const at = parseHttpDate(text, nowMs);
  if (at === null) return null;
  return Math.min(Math.max(0, at - nowMs), capMs);
}
