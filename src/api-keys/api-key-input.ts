import { ApiError } from '../common/http/api-error.js';
import { RESERVED_WEBHOOK_HEADERS } from '../webhooks/webhook-target.js';

/** What an operator sets when creating a key. */
export interface CreateApiKeyInput {
  readonly label: string;
  /** Requests per minute for this key; null or absent = the configured default. */
  readonly rateLimitPerMinute?: number | null;
  readonly feeSponsorshipEnabled?: boolean;
  /** The app-fee account (EVM address) whose balance pays what the key's quotes sponsor; needs sponsorship. */
  readonly sponsorAddress?: string | null;
  /** Where `request.status.updated` events are posted (http or https). */
  readonly webhookUrl?: string | null;
  /** Extra headers sent with each webhook (e.g. the integrator's own authorization). */
  readonly webhookHeaders?: Readonly<Record<string, string>>;
}

/** The input after validation and normalisation. */
export interface ValidApiKeyInput {
  readonly label: string;
  readonly rateLimitPerMinute: number | null;
  readonly feeSponsorshipEnabled: boolean;
  readonly sponsorAddress: string | null;
  readonly webhookUrl: string | null;
  readonly webhookHeaders: Record<string, string>;
}

export const LABEL_MAX_LENGTH = 100;
export const MAX_RATE_LIMIT_PER_MINUTE = 1_000_000;
const WEBHOOK_URL_MAX_LENGTH = 2048;
const MAX_WEBHOOK_HEADERS = 20;
const HEADER_VALUE_MAX_LENGTH = 4096;
/** RFC 7230 `token`: the characters a header field name may have. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** RFC 7230 `field-value` without obs-fold: visible characters, spaces and tabs (no CR, LF or NUL). */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Headers the webhook sender sets itself (framing, target, body type); an integrator may not override them. */
/** Headers the webhook sender owns (signature, id, framing): the same list the sender enforces. */
const RESERVED_HEADERS = new Set(RESERVED_WEBHOOK_HEADERS);
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

const invalid = (field: string, problem: string): ApiError =>
  new ApiError('INVALID_INPUT', `${field} ${problem}`, [{ field, message: problem }]);

/** Validates and normalises a key's settings; throws ApiError INVALID_INPUT naming the field. */
export function validateApiKeyInput(input: CreateApiKeyInput): ValidApiKeyInput {
  const feeSponsorshipEnabled = validateBoolean(input.feeSponsorshipEnabled ?? false);
  return {
    label: validateLabel(input.label),
    rateLimitPerMinute: validateRateLimit(input.rateLimitPerMinute),
    feeSponsorshipEnabled,
    sponsorAddress: validateSponsorAddress(input.sponsorAddress, feeSponsorshipEnabled),
    webhookUrl: validateWebhookUrl(input.webhookUrl),
    webhookHeaders: validateWebhookHeaders(input.webhookHeaders ?? {}),
  };
}

function validateLabel(label: unknown): string {
  if (typeof label !== 'string') throw invalid('label', 'must be a string');
  const trimmed = label.trim();
  const length = [...trimmed].length;
  if (length < 1 || length > LABEL_MAX_LENGTH) {
    throw invalid('label', `must be 1 to ${LABEL_MAX_LENGTH} characters (got ${length})`);
  }
  if (CONTROL_CHARACTERS.test(trimmed)) throw invalid('label', 'must not contain control characters');
  return trimmed;
}

function validateRateLimit(limit: unknown): number | null {
  if (limit === undefined || limit === null) return null;
  if (
    typeof limit !== 'number' ||
    !Number.isInteger(limit) ||
    limit < 1 ||
    limit > MAX_RATE_LIMIT_PER_MINUTE
  ) {
    throw invalid(
      'rateLimitPerMinute',
      `must be an integer from 1 to ${MAX_RATE_LIMIT_PER_MINUTE} (got ${String(limit)})`,
    );
  }
  return limit;
}

function validateBoolean(value: unknown): boolean {
  if (typeof value !== 'boolean') throw invalid('feeSponsorshipEnabled', 'must be true or false');
  return value;
}

function validateSponsorAddress(address: unknown, sponsorship: boolean): string | null {
  if (address === undefined || address === null) return null;
  if (typeof address !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(address)) {
    throw invalid('sponsorAddress', 'must be an EVM address (0x and 40 hex digits)');
  }
  if (!sponsorship) throw invalid('sponsorAddress', 'needs fee sponsorship enabled on the key');
  return address.toLowerCase();
}

/** Revenue-share settings, checked: a boolean flag, an EVM address (lowercased) or null to clear it. */
export function validateRevenueShare(settings: {
  readonly kybVerified?: unknown;
  readonly payoutAddress?: unknown;
}): { kybVerified?: boolean; payoutAddress?: string | null } {
  const result: { kybVerified?: boolean; payoutAddress?: string | null } = {};
  if (settings.kybVerified !== undefined) {
    if (typeof settings.kybVerified !== 'boolean') throw invalid('kybVerified', 'must be true or false');
    result.kybVerified = settings.kybVerified;
  }
  if (settings.payoutAddress !== undefined) {
    const address = settings.payoutAddress;
    if (address !== null && (typeof address !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(address))) {
      throw invalid('payoutAddress', 'must be an EVM address (0x and 40 hex digits) or null');
    }
    result.payoutAddress = address === null ? null : address.toLowerCase();
  }
  if (result.kybVerified === undefined && result.payoutAddress === undefined) {
    throw invalid('kybVerified', 'or payoutAddress must be given');
  }
  return result;
}

function validateWebhookUrl(url: unknown): string | null {
  if (url === undefined || url === null) return null;
  if (typeof url !== 'string' || url.trim() === '') throw invalid('webhookUrl', 'must be an http(s) URL');
  if (url.length > WEBHOOK_URL_MAX_LENGTH) {
    throw invalid('webhookUrl', `must be at most ${WEBHOOK_URL_MAX_LENGTH} characters`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw invalid('webhookUrl', `must be an http(s) URL (cannot parse "${url}")`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw invalid('webhookUrl', `must use http or https (got ${parsed.protocol})`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw invalid('webhookUrl', 'must not carry credentials; send them as a webhook header');
  }
  return parsed.href;
}

function validateWebhookHeaders(headers: unknown): Record<string, string> {
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) {
    throw invalid('webhookHeaders', 'must be an object of header names to values');
  }
  const entries = Object.entries(headers as Record<string, unknown>);
  if (entries.length > MAX_WEBHOOK_HEADERS) {
    throw invalid('webhookHeaders', `may have at most ${MAX_WEBHOOK_HEADERS} headers`);
  }
  const seen = new Set<string>();
  const result: Record<string, string> = {};
  for (const [name, value] of entries) {
    if (!HEADER_NAME.test(name)) {
      throw invalid('webhookHeaders', `has an invalid header name ${JSON.stringify(name)} (RFC 7230 token)`);
    }
    const lower = name.toLowerCase();
    if (RESERVED_HEADERS.has(lower)) {
      throw invalid('webhookHeaders', `may not set ${name}: the webhook sender sets it`);
    }
    if (seen.has(lower)) throw invalid('webhookHeaders', `has ${name} twice (names are case-insensitive)`);
    seen.add(lower);
    if (typeof value !== 'string') throw invalid('webhookHeaders', `${name} must be a string`);
    const trimmed = value.trim();
    if (trimmed.length > HEADER_VALUE_MAX_LENGTH || !HEADER_VALUE.test(trimmed)) {
      throw invalid(
        'webhookHeaders',
        `${name} must be at most ${HEADER_VALUE_MAX_LENGTH} characters without CR, LF or control characters`,
      );
    }
    result[name] = trimmed;
  }
  return result;
}

/** Parses `Name: value` (the CLI's `--webhook-header`) into its name and value. */
export function parseHeaderLine(line: string): [string, string] {
  const colon = line.indexOf(':');
  if (colon <= 0)
    throw invalid('webhookHeaders', `must be given as "Name: value" (got ${JSON.stringify(line)})`);
  return [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
}
