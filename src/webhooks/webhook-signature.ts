import { Buffer } from 'node:buffer';
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signing and verifying webhook requests (spec: Events, "Verification headers"). The signature is the hex
 * HMAC-SHA256 of `<timestamp>.<body>` (the unix-seconds timestamp, a dot, the exact request body bytes) keyed with
 * the API key. This file depends on `node:crypto` only, so a receiver can copy it as it is.
 */

export const SIGNATURE_TIMESTAMP_HEADER = 'X-Signature-Timestamp';
export const SIGNATURE_HEADER = 'X-Signature-SHA256';
/** Stable across retries and redeliveries of one event to one endpoint: receivers dedupe on it. */
export const WEBHOOK_ID_HEADER = 'X-Webhook-Id';

/** How far (either way) a signature timestamp may be from the receiver's clock, by default. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type SignatureHeaders = {
  readonly 'X-Signature-Timestamp': string;
  readonly 'X-Signature-SHA256': string;
};

/** The hex HMAC-SHA256 of `<timestamp>.<body>` keyed with `apiKey`, over the body's exact bytes. */
function hmacHex(timestamp: string, body: string | Uint8Array, apiKey: string): string {
  return createHmac('sha256', apiKey).update(`${timestamp}.`).update(body).digest('hex');
}

/**
 * The two signature headers for one delivery attempt. `body` is the exact string sent (serialised once);
 * `timestampSeconds` is the attempt's send time in unix seconds (a fresh one per attempt).
 */
export function signWebhook(body: string, apiKey: string, timestampSeconds: number): SignatureHeaders {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError(`timestampSeconds must be a non-negative integer (got ${timestampSeconds})`);
  }
  if (typeof body !== 'string') throw new TypeError('body must be the serialised string');
  if (typeof apiKey !== 'string' || apiKey === '') throw new TypeError('apiKey must be a non-empty string');
  const timestamp = String(timestampSeconds);
  return {
    [SIGNATURE_TIMESTAMP_HEADER]: timestamp,
    [SIGNATURE_HEADER]: hmacHex(timestamp, body, apiKey),
  } as SignatureHeaders;
}

export type VerifyFailureReason =
  | 'missing-headers'
  | 'malformed-timestamp'
  | 'stale-timestamp'
  | 'malformed-signature'
  | 'signature-mismatch';

export type VerifyResult =
  { readonly ok: true } | { readonly ok: false; readonly reason: VerifyFailureReason };

/** Node's `IncomingMessage.headers`, a plain object, or a Fetch `Headers` (anything with `get(name)`). */
export type WebhookRequestHeaders =
  Readonly<Record<string, string | readonly string[] | undefined>> | { get(name: string): string | null };

export interface VerifyOptions {
  /** How far (seconds, either way) the timestamp may be from `now`; default 300. */
  readonly toleranceSeconds?: number;
  /** The receiver's clock in unix milliseconds; default `Date.now`. */
  readonly now?: () => number;
}

const TIMESTAMP = /^[0-9]{1,15}$/;
/** 32 bytes in hex; either case is accepted (hex is case-insensitive; Ferry sends lower case). */
const SIGNATURE = /^[0-9a-fA-F]{64}$/;

type HeaderValue = { kind: 'missing' } | { kind: 'many' } | { kind: 'one'; value: string };

/** A header by case-insensitive name. Several values (a repeated header) are reported as such, never guessed at. */
function headerValue(headers: WebhookRequestHeaders, name: string): HeaderValue {
  let raw: unknown;
  if (typeof (headers as { get?: unknown }).get === 'function') {
    raw = (headers as { get(name: string): string | null }).get(name);
  } else {
    const lower = name.toLowerCase();
    const values: unknown[] = [];
    for (const [key, value] of Object.entries(headers)) {
      if (key.toLowerCase() === lower && value !== undefined) values.push(value);
    }
    if (values.length > 1) return { kind: 'many' };
    raw = values[0];
  }
  if (Array.isArray(raw)) {
    if (raw.length === 0) return { kind: 'missing' };
    if (raw.length > 1) return { kind: 'many' };
    raw = raw[0];
  }
  if (typeof raw !== 'string' || raw.trim() === '') return { kind: 'missing' };
  return { kind: 'one', value: raw.trim() };
}

/**
 * Checks a webhook request as received: `rawBody` must be the body bytes exactly as they arrived (never a
 * re-serialised parsed object), `apiKey` the key the endpoint is configured on. Constant-time comparison after an
 * equal-length check; the timestamp must lie within `toleranceSeconds` of `now` in both directions (a replay of an old
 * request and a request dated in the future both fail). Never throws: any bad input is `{ok: false, reason}`.
 */
export function verifyWebhook(
  rawBody: string | Buffer | Uint8Array,
  headers: WebhookRequestHeaders,
  apiKey: string,
  options: VerifyOptions = {},
): VerifyResult {
  try {
    if (headers === null || typeof headers !== 'object') return { ok: false, reason: 'missing-headers' };
    const timestampHeader = headerValue(headers, SIGNATURE_TIMESTAMP_HEADER);
    const signatureHeader = headerValue(headers, SIGNATURE_HEADER);
    if (timestampHeader.kind === 'missing' || signatureHeader.kind === 'missing') {
      return { ok: false, reason: 'missing-headers' };
    }
    if (timestampHeader.kind === 'many' || !TIMESTAMP.test(timestampHeader.value)) {
      return { ok: false, reason: 'malformed-timestamp' };
    }
    if (signatureHeader.kind === 'many' || !SIGNATURE.test(signatureHeader.value)) {
      return { ok: false, reason: 'malformed-signature' };
    }
    const tolerance =
      typeof options.toleranceSeconds === 'number' &&
      Number.isFinite(options.toleranceSeconds) &&
      options.toleranceSeconds >= 0
        ? options.toleranceSeconds
        : DEFAULT_TOLERANCE_SECONDS;
    const nowMs = (options.now ?? Date.now)();
    const nowSeconds = nowMs / 1000;
    const timestamp = Number(timestampHeader.value);
    if (!Number.isFinite(nowSeconds) || Math.abs(nowSeconds - timestamp) > tolerance) {
      return { ok: false, reason: 'stale-timestamp' };
    }
    if (typeof apiKey !== 'string' || apiKey === '') return { ok: false, reason: 'signature-mismatch' };
    const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
    if (!(body instanceof Uint8Array)) return { ok: false, reason: 'signature-mismatch' };
    // Sign the timestamp text exactly as received (leading zeros included): that is what the sender signed.
    const expected = Buffer.from(hmacHex(timestampHeader.value, body, apiKey), 'hex');
    const given = Buffer.from(signatureHeader.value, 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return { ok: false, reason: 'signature-mismatch' };
    }
    return { ok: true };
  } catch {
    return { ok: false, reason: 'signature-mismatch' };
  }
}
