import {
  applyDecorators,
  createParamDecorator,
  type ExecutionContext,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { ApiSecurity } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ANONYMOUS_RATE_LIMIT, API_KEY_MODE, ApiKeyGuard, type ApiKeyMode } from './api-key.guard.js';
import type { AuthenticatedApiKey } from './api-keys.service.js';

/**
 * The route (or every route of the controller) needs a valid, unrevoked `x-api-key`: 401 without one, 429 past
 * the key's rate limit. Declares the `apiKey` security scheme in OpenAPI; the route declares its own error responses.
 */
export const RequireApiKey = (): MethodDecorator & ClassDecorator =>
  applyDecorators(
    SetMetadata(API_KEY_MODE, 'required' satisfies ApiKeyMode),
    UseGuards(ApiKeyGuard),
    ApiSecurity('apiKey'),
  );

/**
 * The route accepts a key but does not need one (quotes): absent → `@CurrentApiKey()` is null; present but invalid
 * or revoked → 401; valid → counted against its rate limit like on required routes.
 */
export const OptionalApiKey = (): MethodDecorator & ClassDecorator =>
  applyDecorators(SetMetadata(API_KEY_MODE, 'optional' satisfies ApiKeyMode), UseGuards(ApiKeyGuard));

/**
 * On an `@OptionalApiKey()` route: callers without a key are limited per client address
 * (`apiKeys.anonymousRateLimitPerMinute`, `ANONYMOUS_RATE_LIMIT_PER_MINUTE`; 0: no limit). For routes that append
 * events or spend relayer gas (`POST /quote/v2`, `POST /execute/permits`), so an anonymous caller cannot grow the log
 * or drain the relayer without bound.
 */
export const AnonymousRateLimit = (): MethodDecorator & ClassDecorator =>
  SetMetadata(ANONYMOUS_RATE_LIMIT, true);

/** The caller's key (`AuthenticatedApiKey`), or null when the route is optional and none was sent. */
export const CurrentApiKey = createParamDecorator(
  (_data: unknown, context: ExecutionContext): AuthenticatedApiKey | null =>
    context.switchToHttp().getRequest<FastifyRequest>().apiKey ?? null,
);
