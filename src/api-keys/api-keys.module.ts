import { Global, Module } from '@nestjs/common';
import { API_KEY_RATE_LIMITER, ApiKeyGuard } from './api-key.guard.js';
import { ApiKeysService } from './api-keys.service.js';
import { RateLimiter } from './rate-limiter.js';

/**
 * API keys: the service, the guard behind `@RequireApiKey()` / `@OptionalApiKey()`, and the per-process rate
 * limiter they count against. Global, so any controller can use the decorators without importing this module.
 */
@Global()
@Module({
  providers: [
    ApiKeysService,
    ApiKeyGuard,
    { provide: API_KEY_RATE_LIMITER, useFactory: (): RateLimiter => new RateLimiter() },
  ],
  exports: [ApiKeysService, ApiKeyGuard, API_KEY_RATE_LIMITER],
})
export class ApiKeysModule {}
