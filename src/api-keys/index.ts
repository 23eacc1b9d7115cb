export { CurrentApiKey, OptionalApiKey, RequireApiKey } from './api-key.decorators.js';
export { API_KEY_HEADER, API_KEY_RATE_LIMITER, ApiKeyGuard } from './api-key.guard.js';
export type { CreateApiKeyInput } from './api-key-input.js';
export { ApiKeysModule } from './api-keys.module.js';
export {
  type ApiKeyDetails,
  type ApiKeySummary,
  ApiKeysService,
  type AuthenticatedApiKey,
  type CreatedApiKey,
  type RevokeResult,
} from './api-keys.service.js';
export {
  RATE_LIMIT_WINDOW_MS,
  type RateLimitDecision,
  RateLimiter,
  type RateLimiterOptions,
} from './rate-limiter.js';
