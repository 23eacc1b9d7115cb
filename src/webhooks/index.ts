/**
 * Webhook delivery building blocks (ARCHITECTURE §7, docs/webhooks.md). Receivers need only `verifyWebhook`, which
 * depends on nothing but `node:crypto` (`webhook-signature.ts` can be copied as it is).
 */
export {
  DEFAULT_TOLERANCE_SECONDS,
  SIGNATURE_HEADER,
  SIGNATURE_TIMESTAMP_HEADER,
  signWebhook,
  verifyWebhook,
  WEBHOOK_ID_HEADER,
  type SignatureHeaders,
  type VerifyFailureReason,
  type VerifyOptions,
  type VerifyResult,
  type WebhookRequestHeaders,
} from './webhook-signature.js';
export {
  buildStatusPayload,
  NOT_APPLICABLE,
  serializePayload,
  STATUS_UPDATED_EVENT,
  UNKNOWN_REASON,
  type StatusPayloadOptions,
  type StatusUpdatedPayload,
  type WebhookDepositAddress,
} from './webhook-payload.js';
export {
  assertRetrySchedule,
  DEFAULT_RETRY_SCHEDULE,
  MAX_ATTEMPTS,
  MAX_RETRIES,
  nextAttemptDelayMs,
  parseHttpDate,
  parseRetryAfter,
  RETRY_AFTER_CAP_MS,
  retryDelayMs,
  type RetrySchedule,
} from './retry-schedule.js';
export {
  checkCustomHeaders,
  checkWebhookTarget,
  classifyAddress,
  CUSTOM_HEADER_VALUE_MAX_LENGTH,
  MAX_CUSTOM_HEADERS,
  RESERVED_WEBHOOK_HEADERS,
  systemResolver,
  type AddressClass,
  type AddressKind,
  type HeadersCheck,
  type HostResolver,
  type TargetCheck,
  type TargetPolicy,
} from './webhook-target.js';
export {
  closeWebhookAgents,
  DEFAULT_WEBHOOK_TIMEOUT_MS,
  deliveryHeaders,
  RESPONSE_EXCERPT_BYTES,
  sendWebhook,
  WEBHOOK_USER_AGENT,
  type DeliveryHeadersInput,
  type SendWebhookRequest,
  type SendWebhookResult,
} from './webhook-sender.js';
