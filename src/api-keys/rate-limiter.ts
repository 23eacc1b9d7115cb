/** The window every limit is counted over: a limit of N allows at most N requests in any 60 seconds. */
export const RATE_LIMIT_WINDOW_MS = 60_000;

export interface RateLimitDecision {
  readonly allowed: boolean;
  /** The limit this decision was taken against (requests per minute). */
  readonly limit: number;
  /** Requests left in the window after this one (0 when refused). */
  readonly remaining: number;
  /** When refused, whole seconds until a request would be allowed again (at least 1); 0 when allowed. */
  readonly retryAfterSeconds: number;
}

export interface RateLimiterOptions {
  /** Milliseconds, monotonic (tests pass a fake clock). `performance.now()` by default. */
  readonly now?: () => number;
  /** Most keys tracked at once; past it the least recently seen key is forgotten (100 000). */
  readonly maxKeys?: number;
  /** Requests within one bucket share one expiry: the precision of the window (1000 ms). */
  readonly bucketMs?: number;
}

/** Requests counted together: those whose time falls in bucket `index` (time / bucketMs), the last one at `lastAt`. */
interface Bucket {
  readonly index: number;
  lastAt: number;
  count: number;
}

interface KeyState {
  /** Oldest first; `head` is the first live one (a queue without shifting). */
  buckets: Bucket[];
  head: number;
  total: number;
  lastSeenAt: number;
}

/**
 * A sliding-window rate limiter, keyed by any string, in memory. Pure apart from the injected clock; no timers.
 *
 * A limit of N per minute allows at most N requests in any 60-second window (refused requests do not count).
 * Requests are counted in buckets of `bucketMs` (1 s); a bucket leaves the window 60 s after the last request in it,
 * so the limiter errs by at most one bucket on the strict side. Memory: at most 60 buckets per key, and keys idle
 * for a whole window are evicted as other keys are used; `maxKeys` bounds the rest (least recently seen first).
 *
 * The state is per process: N instances behind a load balancer each allow the limit. Reusable: each user
 * (API keys, the v2 endpoint, …) holds its own instance or prefixes its keys.
 */
export class RateLimiter {
  private readonly now: () => number;
  private readonly maxKeys: number;
  private readonly bucketMs: number;
  /** Insertion order = order of last use: the first entries are the least recently seen. */
  private readonly states = new Map<string, KeyState>();

  constructor(options: RateLimiterOptions = {}) {
    this.now = options.now ?? (() => performance.now());
    this.maxKeys = options.maxKeys ?? 100_000;
    this.bucketMs = options.bucketMs ?? 1000;
    if (!Number.isInteger(this.maxKeys) || this.maxKeys < 1) throw new RangeError('maxKeys must be ≥ 1');
    if (!(this.bucketMs > 0 && this.bucketMs <= RATE_LIMIT_WINDOW_MS)) {
      throw new RangeError(`bucketMs must be in (0, ${RATE_LIMIT_WINDOW_MS}]`);
    }
  }

  /** Counts one request for `key` if it is within `limitPerMinute`, and says so. */
  take(key: string, limitPerMinute: number): RateLimitDecision {
    if (!Number.isInteger(limitPerMinute) || limitPerMinute < 1) {
      throw new RangeError(`The limit must be a positive integer (got ${limitPerMinute})`);
    }
    const now = this.now();
    this.evictIdle(now);
    const state = this.touch(key, now);
    this.expire(state, now);

    if (state.total < limitPerMinute) {
      this.record(state, now);
      return {
        allowed: true,
        limit: limitPerMinute,
        remaining: limitPerMinute - state.total,
        retryAfterSeconds: 0,
      };
    }
    // Refused: wait until enough of the oldest requests leave the window to make room for one.
    let excess = state.total - limitPerMinute + 1;
    let freeAt = now;
    for (let i = state.head; i < state.buckets.length && excess > 0; i += 1) {
      excess -= state.buckets[i].count;
      freeAt = state.buckets[i].lastAt + RATE_LIMIT_WINDOW_MS;
    }
    return {
      allowed: false,
      limit: limitPerMinute,
      remaining: 0,
      retryAfterSeconds: Math.max(1, Math.ceil((freeAt - now) / 1000)),
    };
  }

  /** How many keys are tracked (for tests and metrics). */
  get size(): number {
    return this.states.size;
  }

  /** Forgets every key. */
  clear(): void {
    this.states.clear();
  }

  /** Returns the key's state, moved to the most recently seen end (created when absent). */
  private touch(key: string, now: number): KeyState {
    let state = this.states.get(key);
    if (state) this.states.delete(key);
    else state = { buckets: [], head: 0, total: 0, lastSeenAt: now };
    state.lastSeenAt = now;
    this.states.set(key, state);
    if (this.states.size > this.maxKeys) {
      const oldest = this.states.keys().next().value as string;
      this.states.delete(oldest);
    }
    return state;
  }

  /** Drops keys not seen for a whole window (they hold nothing). Amortised O(1): each key is dropped once. */
  private evictIdle(now: number): void {
    for (const [key, state] of this.states) {
      if (now - state.lastSeenAt < RATE_LIMIT_WINDOW_MS) return;
      this.states.delete(key);
    }
  }

  private expire(state: KeyState, now: number): void {
    while (
      state.head < state.buckets.length &&
      state.buckets[state.head].lastAt + RATE_LIMIT_WINDOW_MS <= now
    ) {
      state.total -= state.buckets[state.head].count;
      state.head += 1;
    }
    if (state.head === state.buckets.length) {
      state.buckets = [];
      state.head = 0;
    } else if (state.head >= 32 && state.head * 2 >= state.buckets.length) {
      state.buckets = state.buckets.slice(state.head);
      state.head = 0;
    }
  }

  private record(state: KeyState, now: number): void {
    const index = Math.floor(now / this.bucketMs);
    const last = state.buckets.length > state.head ? state.buckets[state.buckets.length - 1] : undefined;
    if (last && last.index >= index) {
      // Same bucket (or a clock that stepped back): count it with the newest bucket.
      last.count += 1;
      last.lastAt = Math.max(last.lastAt, now);
    } else {
      state.buckets.push({ index, lastAt: now, count: 1 });
    }
    state.total += 1;
  }
}
