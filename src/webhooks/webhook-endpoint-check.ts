import type { WebhooksConfig } from '../config/app-config.js';
import {
  checkCustomHeaders,
  checkWebhookTarget,
  type HostResolver,
  systemResolver,
} from './webhook-target.js';

/** The longest endpoint URL accepted (as at key creation, `api-key-input.ts`). */
export const WEBHOOK_URL_MAX_LENGTH = 2048;

/** What decides the target policy: `config.webhooks` fits as it is. */
export type WebhookEndpointPolicy = Pick<WebhooksConfig, 'allowInsecureLocalTargets'>;

/**
 * Why an endpoint (URL and custom headers) may not be configured on an API key, or null when it may. Everything
 * the issue asks of a configured endpoint, in one place (`checkCustomHeaders`, then `checkWebhookTarget`):
 *
 * - HTTPS only, no credentials in the URL, at most 2048 characters;
 * - the host must resolve to public addresses only: private, loopback, link-local, unique-local, CGNAT, metadata
 *   and reserved targets are refused, except loopback (over http too) when `allowInsecureLocalTargets` is set
 *   (development and test only);
 * - custom headers cannot set the signature headers, `X-Webhook-Id`, `Content-Type`, `Host`, `Content-Length` or the
 *   framing and hop-by-hop headers, and must be valid header names and values.
 *
 * Headers are checked first (no network); the URL's host is resolved with `resolve` (the system resolver by
 * default). Never throws. This is the `check` argument of `ApiKeysService.setWebhook`.
 */
export async function webhookEndpointProblem(
  url: string,
  headers: Readonly<Record<string, string>>,
  policy: WebhookEndpointPolicy,
  resolve: HostResolver = systemResolver,
): Promise<string | null> {
  const headersCheck = checkCustomHeaders(headers);
  if (!headersCheck.ok) return `Refused webhook headers: ${headersCheck.reason}`;
  if (typeof url !== 'string' || url.trim() === '') return 'Refused webhook URL: it is empty';
  if (url.length > WEBHOOK_URL_MAX_LENGTH) {
    return `Refused webhook URL: it must be at most ${WEBHOOK_URL_MAX_LENGTH} characters`;
  }
  const target = await checkWebhookTarget(
    url.trim(),
    { allowInsecureLocal: policy.allowInsecureLocalTargets },
    resolve,
  );
  return target.ok ? null : `Refused webhook URL: ${target.reason}`;
}

/** `webhookEndpointProblem` under a fixed policy: the shape `ApiKeysService.setWebhook` takes as its `check`. */
export function webhookEndpointCheck(
  policy: WebhookEndpointPolicy,
  resolve: HostResolver = systemResolver,
): (url: string, headers: Readonly<Record<string, string>>) => Promise<string | null> {
  return (url, headers) => webhookEndpointProblem(url, headers, policy, resolve);
}

/**
 * The endpoint as it is stored: the URL without surrounding whitespace, header values trimmed (as the check reads
 * them). Names are kept as given, so a bad one is still refused by the check.
 */
export function normalizeWebhookEndpoint(
  url: string,
  headers: Readonly<Record<string, string>> = {},
): { url: string; headers: Record<string, string> } {
  return {
    url: typeof url === 'string' ? url.trim() : url,
    headers: Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [
        name,
        typeof value === 'string' ? value.trim() : value,
      ]),
    ),
  };
}
