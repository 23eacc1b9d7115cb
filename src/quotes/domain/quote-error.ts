import type { ErrorCode } from '../../common/http/error-codes.js';

/**
 * A quote that cannot be given, for a reason the caller can act on. Thrown by the pure quote domain (registry
 * lookups, validation, fees, steps) and mapped to `400 {message, errorCode, errorData}` at the HTTP edge.
 */
export class QuoteError extends Error {
  constructor(
    readonly errorCode: ErrorCode,
    message: string,
    readonly errorData?: Record<string, unknown>,
    /** Fields of the spec's error body beside errorData (`failedCallData`, `approxSimulatedBlock`). */
    readonly bodyFields?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'QuoteError';
  }
}
