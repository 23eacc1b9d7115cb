import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../common/http/api-error.js';
import { enforceRateLimit } from './enforce-rate-limit.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { ApiKeysService, type AuthenticatedApiKey } from './api-keys.service.js';
import type { RateLimiter } from './rate-limiter.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Set by ApiKeyGuard: the caller's key, or null on an `@OptionalApiKey()` route called without one.
     * Undefined on routes without the guard. Read it with `@CurrentApiKey()`.
     */
    apiKey?: AuthenticatedApiKey | null;
  }
}

export const API_KEY_HEADER = 'x-api-key';
/** The one RateLimiter instance (per process) that every API-key route counts against. */
export const API_KEY_RATE_LIMITER = Symbol('ApiKeyRateLimiter');
/** Metadata key: whether a route requires a key or merely accepts one. */
export const API_KEY_MODE = 'ferry:api-key-mode';
export type ApiKeyMode = 'required' | 'optional';
/** Metadata key: callers without a key are rate-limited per client address (`@AnonymousRateLimit()`). */
export const ANONYMOUS_RATE_LIMIT = 'ferry:anonymous-rate-limit';

/**
 * Authenticates the `x-api-key` header and enforces the key's rate limit. Missing (on a required route) → 401;
 * present but unknown or revoked → 401 (on optional routes too); over the key's limit → 429 with `Retry-After`.
 * Responses of authenticated requests carry `X-RateLimit-Limit` and `X-RateLimit-Remaining`.
 *
 * Apply it with `@RequireApiKey()` or `@OptionalApiKey()`, not directly (those set the mode; the default is
 * required). Limits are counted per process: with N instances a key may make up to N × its limit.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly apiKeys: ApiKeysService,
    @Inject(API_KEY_RATE_LIMITER) private readonly limiter: RateLimiter,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'apiKeys'>,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    // Applied on both the class and the handler, the guard runs twice: the first run decided (and counted) already.
    if (request.apiKey !== undefined) return true;
    const mode =
      this.reflector.getAllAndOverride<ApiKeyMode | undefined>(API_KEY_MODE, [
        context.getHandler(),
        context.getClass(),
      ]) ?? 'required';

    const header = request.headers[API_KEY_HEADER];
    if (header === undefined || header === '') {
      if (mode === 'optional') {
        this.limitAnonymous(context, request, http.getResponse<FastifyReply>());
        request.apiKey = null;
        return true;
      }
      throw new ApiError('UNAUTHORIZED', 'Missing x-api-key header');
    }
    const apiKey = typeof header === 'string' ? await this.apiKeys.authenticate(header.trim()) : null;
    if (!apiKey) throw new ApiError('UNAUTHORIZED', 'Invalid or revoked API key');

    const limit = apiKey.rateLimitPerMinute ?? this.config.apiKeys.defaultRateLimitPerMinute;
    enforceRateLimit(
      this.limiter,
      http.getResponse<FastifyReply>(),
      `api-key:${apiKey.id}`,
      limit,
      (max, retryAfter) =>
        `Rate limit of ${max} requests per minute exceeded for this API key; retry after ${retryAfter} s`,
    );
    request.apiKey = apiKey;
    return true;
  }

  /**
   * A keyless caller of an `@AnonymousRateLimit()` route counts against its client address (`request.ip`: the
   * socket's peer, or with `TRUST_PROXY` the client the proxies name). 429 with `Retry-After` over the limit.
   */
  private limitAnonymous(context: ExecutionContext, request: FastifyRequest, reply: FastifyReply): void {
    const limit = this.config.apiKeys.anonymousRateLimitPerMinute;
    if (limit === 0 || !this.reflector.get<boolean>(ANONYMOUS_RATE_LIMIT, context.getHandler())) return;
    enforceRateLimit(
      this.limiter,
      reply,
      `anonymous:${request.ip}`,
      limit,
      (max, retryAfter) =>
        `Rate limit of ${max} requests per minute exceeded for callers without an API key from this address; ` +
        `retry after ${retryAfter} s, or send an x-api-key`,
    );
  }
}
