import type { FastifyReply } from 'fastify';
import { ApiError } from '../common/http/api-error.js';
import type { RateLimiter } from './rate-limiter.js';

/**
 * Takes one request from `key`'s allowance, sets `X-RateLimit-Limit` / `X-RateLimit-Remaining` on the reply, and past
 * the limit sets `Retry-After` and throws 429 RATE_LIMITED with `message(limit, retryAfterSeconds)`.
 */
export function enforceRateLimit(
  limiter: RateLimiter,
  reply: FastifyReply,
  key: string,
  limitPerMinute: number,
  message: (limit: number, retryAfterSeconds: number) => string,
): void {
  const decision = limiter.take(key, limitPerMinute);
  void reply.header('X-RateLimit-Limit', String(decision.limit));
  void reply.header('X-RateLimit-Remaining', String(decision.remaining));
  if (decision.allowed) return;
  void reply.header('Retry-After', String(decision.retryAfterSeconds));
  throw new ApiError('RATE_LIMITED', message(decision.limit, decision.retryAfterSeconds), {
    limit: decision.limit,
    retryAfterSeconds: decision.retryAfterSeconds,
  });
}
