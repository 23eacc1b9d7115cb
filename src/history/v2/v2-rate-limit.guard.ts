import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimiter } from '../../api-keys/rate-limiter.js';
import { CLOCK, type Clock } from '../../common/clock.js';
import { enforceRateLimit } from '../../api-keys/enforce-rate-limit.js';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/config.module.js';
import { v2PolicyAt } from './v2-sunset.js';

/** v2's own limiter (counted on the injected clock, apart from the API keys' limits). */
export const V2_RATE_LIMITER = Symbol('V2RateLimiter');

/**
 * The shrinking v2 limit: once the schedule's first rate-limit date is reached, each caller (its API key id when it
 * sent a valid key, else its IP address) gets the month's requests per minute; beyond them 429 RATE_LIMITED with
 * `Retry-After`. Runs after the API-key guard, which says who the caller is.
 */
@Injectable()
export class V2RateLimitGuard implements CanActivate {
  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'v2'>,
    @Inject(V2_RATE_LIMITER) private readonly limiter: RateLimiter,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const policy = v2PolicyAt(this.config.v2, this.clock.now());
    if (policy.phase !== 'rate-limited') return true;
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const caller = request.apiKey ? `key:${request.apiKey.id}` : `ip:${request.ip}`;
    enforceRateLimit(
      this.limiter,
      http.getResponse<FastifyReply>(),
      caller,
      policy.limitPerMinute,
      (max, retryAfter) =>
        `GET /requests/v2 is deprecated and limited to ${max} requests per minute per caller this month; ` +
        `retry after ${retryAfter} s, or move to GET /requests/v3`,
    );
    return true;
  }
}
