/**
 * How long a dispatcher round waits for its attempts before recording those that have finished and claiming more:
 * the most a receiver that hangs until the timeout delays the deliveries of others. An attempt that outlasts it is
 * recorded by a later round, at most this long after it ends.
 */
export const ROUND_WAIT_MS = 1_000;

/**
 * How long an attempt can keep its delivery unrecorded: the DNS lookup of the endpoint (`resolveTimeoutMs`), the
 * request (`timeoutMs`), then up to a round's wait before a round records it. A lease must be longer, or the
 * delivery's lease runs out while its attempt is still in flight and a dispatcher (the same one included) claims it
 * again: a concurrent duplicate, a later status overtaking it, and two attempts with one number that fail a whole
 * round's record.
 */
export function longestUnrecordedAttemptMs(timeoutMs: number, resolveTimeoutMs: number): number {
  return timeoutMs + resolveTimeoutMs + ROUND_WAIT_MS;
}
