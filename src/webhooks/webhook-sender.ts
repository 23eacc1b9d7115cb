import { Buffer } from 'node:buffer';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { parseRetryAfter } from './retry-schedule.js';
import { signWebhook, WEBHOOK_ID_HEADER } from './webhook-signature.js';
import { RESERVED_WEBHOOK_HEADERS } from './webhook-target.js';

/** The spec's receiver timeout (ARCHITECTURE §7). */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 15_000;
/** How much of a response body is kept for the delivery log (and read at all). */
export const RESPONSE_EXCERPT_BYTES = 1024;
export const WEBHOOK_USER_AGENT = 'Ferry-Webhooks/1';

export interface SendWebhookRequest {
  readonly url: string | URL;
  /** The serialised payload, sent as it is (`serializePayload`, once per event). */
  readonly body: string;
  /** Signature, id and custom headers (`deliveryHeaders`). The sender sets Host, Content-Type and Content-Length. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The whole attempt (connect, send, response head, excerpt) must finish within this; default 15 000. */
  readonly timeoutMs?: number;
  /**
   * The address to connect to, as checked by `checkWebhookTarget`: DNS is not asked again, so a host that re-resolves
   * to an internal address after the check (DNS rebinding) cannot redirect the delivery. Host header and TLS SNI /
   * certificate name stay the URL's host.
   */
  readonly connectTo?: string;
}

export interface SendWebhookResult {
  /** 2xx only. A redirect is not followed and is a failure. */
  readonly ok: boolean;
  /** The receiver's status, or null when none arrived (connection error, timeout). */
  readonly statusCode: number | null;
  /** From the start of the attempt to its outcome, whole milliseconds. */
  readonly latencyMs: number;
  /** Null exactly when `ok`; otherwise what went wrong (`HTTP 500`, `timeout after 15000 ms`, `connect ECONNREFUSED …`). */
  readonly error: string | null;
  /** The first 1024 bytes of the response body as UTF-8 text ('' for an empty body, null when no response). */
  readonly responseExcerpt: string | null;
  /** The receiver's `Retry-After` in ms (capped at 1 hour), or null. */
  readonly retryAfterMs: number | null;
  /** 410 Gone: the receiver asks us to stop; the endpoint is disabled. */
  readonly gone: boolean;
}

export interface DeliveryHeadersInput {
  readonly body: string;
  readonly apiKey: string;
  /** Stable across every attempt of the delivery (receivers dedupe on it). */
  readonly webhookId: string;
  /** The attempt's send time, unix seconds: a fresh signature per attempt. */
  readonly timestampSeconds: number;
  /** The endpoint's custom headers (validated by `checkCustomHeaders`); reserved names are dropped here too. */
  readonly customHeaders?: Readonly<Record<string, string>>;
}

/** The headers of one delivery attempt: custom headers, then `X-Webhook-Id` and the two signature headers. */
export function deliveryHeaders(input: DeliveryHeadersInput): Record<string, string> {
  return {
    ...withoutReserved(input.customHeaders ?? {}, RESERVED_WEBHOOK_HEADERS),
    [WEBHOOK_ID_HEADER]: input.webhookId,
    ...signWebhook(input.body, input.apiKey, input.timestampSeconds),
  };
}

/** Headers the sender owns: whatever a caller passes under these names is ignored. */
const SENDER_HEADERS = [
  'host',
  'content-type',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'upgrade',
  'te',
  'trailer',
  'expect',
];

function withoutReserved(headers: Readonly<Record<string, string>>, reserved: readonly string[]) {
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => !reserved.includes(name.toLowerCase())),
  ) as Record<string, string>;
}

const agents = new Map<string, http.Agent>();

/** One keep-alive agent per origin (and pinned address), so consecutive deliveries reuse connections. */
function agentFor(url: URL, connectTo: string | undefined): http.Agent {
  const key = `${url.protocol}//${url.host}|${connectTo ?? ''}`;
  let agent = agents.get(key);
  if (!agent) {
    const options = { keepAlive: true, keepAliveMsecs: 1_000, maxSockets: 256, maxFreeSockets: 64 };
    agent = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    agents.set(key, agent);
  }
  return agent;
}

/** Closes every pooled connection (at shutdown, and after tests). Later sends open new ones. */
export function closeWebhookAgents(): void {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}

/** The longest prefix of `bytes` (at most `max`) that does not end inside a UTF-8 character, as text. */
function utf8Excerpt(bytes: Buffer, max: number): string {
  if (bytes.length <= max) return bytes.toString('utf8');
  let end = max;
  // Step back over continuation bytes to the start of the last character; drop it if it does not fit.
  let start = end - 1;
  while (start > 0 && end - start < 4 && (bytes[start] & 0xc0) === 0x80) start--;
  const lead = bytes[start];
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  if (start + length > end) end = start;
  return bytes.subarray(0, end).toString('utf8');
}

/** The parsed URL and pinned address, or why the request cannot be sent. */
function validTarget(
  request: SendWebhookRequest,
  timeoutMs: number,
): { url: URL; connectTo: string | undefined } | string {
  let url: URL;
  try {
    url = typeof request.url === 'string' ? new URL(request.url) : new URL(request.url.href);
  } catch {
    return 'invalid url';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `unsupported protocol ${url.protocol}`;
  if (typeof request.body !== 'string') return 'body must be a string';
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) return `invalid timeoutMs ${timeoutMs}`;
  const connectTo = request.connectTo?.replace(/^\[(.*)\]$/, '$1');
  if (connectTo !== undefined && !isIP(connectTo)) return `connectTo ${connectTo} is not an IP address`;
  return { url, connectTo };
}

const RETRYABLE_ON_REUSED_SOCKET = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);
const MAX_STALE_SOCKET_RETRIES = 3;

/**
 * One delivery attempt: POSTs `body` to `url` and reports the outcome. Success is 2xx only; a 3xx is not followed.
 * At most ~1 KB of the response is read (beyond that the connection is closed); a short response lets the
 * keep-alive connection go back to the pool. Never throws: every failure is a result with `ok: false`.
 */
export function sendWebhook(request: SendWebhookRequest): Promise<SendWebhookResult> {
  const started = performance.now();
  const timeoutMs = request.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  const failure = (error: string): SendWebhookResult => ({
    ok: false,
    statusCode: null,
    latencyMs: Math.round(performance.now() - started),
    error,
    responseExcerpt: null,
    retryAfterMs: null,
    gone: false,
  });
  const target = validTarget(request, timeoutMs);
  if (typeof target === 'string') return Promise.resolve(failure(target));
  const { url, connectTo } = target;

  return new Promise<SendWebhookResult>((resolve) => {
    let settled = false;
    let current: http.ClientRequest | null = null;
    /** Set once the response head arrived: settles with the status and whatever body was read. */
    let answered: (() => void) | null = null;
    const finish = (result: Omit<SendWebhookResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const { ok, statusCode, error, responseExcerpt, retryAfterMs, gone } = result;
      const latencyMs = Math.round(performance.now() - started);
      resolve({ ok, statusCode, latencyMs, error, responseExcerpt, retryAfterMs, gone });
    };
    const fail = (error: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(failure(error));
    };
    const timer = setTimeout(() => {
      if (answered) answered();
      else fail(`timeout after ${timeoutMs} ms`);
      current?.destroy();
    }, timeoutMs);

    const body = Buffer.from(request.body, 'utf8');
    let headers: Record<string, string>;
    try {
      headers = {
        'User-Agent': WEBHOOK_USER_AGENT,
        ...withoutReserved(request.headers ?? {}, SENDER_HEADERS),
        'Content-Type': 'application/json',
        'Content-Length': String(body.length),
      };
    } catch {
      return fail('headers must be an object of names to values');
    }
    const pinned: LookupFunction | undefined = connectTo
      ? (_hostname, options, callback) => {
          const family = isIP(connectTo);
          if ((options as { all?: boolean }).all) {
            (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
              { address: connectTo, family },
            ]);
          } else {
            callback(null, connectTo, family);
          }
        }
      : undefined;
    const transport = url.protocol === 'https:' ? https : http;

    const attempt = (staleRetries: number) => {
      let req: http.ClientRequest;
      try {
        req = transport.request({
          protocol: url.protocol,
          hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: url.port || (url.protocol === 'https:' ? 443 : 80),
          path: `${url.pathname}${url.search}`,
          method: 'POST',
          headers,
          agent: agentFor(url, connectTo),
          ...(pinned ? { lookup: pinned } : {}),
        });
      } catch (error) {
        return fail((error as Error).message);
      }
      current = req;
      let responded = false;
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (settled) return;
        if (
          !responded &&
          req.reusedSocket &&
          staleRetries < MAX_STALE_SOCKET_RETRIES &&
          RETRYABLE_ON_REUSED_SOCKET.has(error.code ?? '')
        ) {
          // The receiver closed an idle keep-alive connection just as we reused it, before any answer: try again on
          // a fresh connection (a receiver that did see the first copy dedupes on X-Webhook-Id).
          return attempt(staleRetries + 1);
        }
        fail(error.message || error.code || 'request failed');
      });
      req.on('response', (res) => {
        responded = true;
        const statusCode = res.statusCode ?? 0;
        const retryAfterMs = parseRetryAfter(res.headers['retry-after'], Date.now());
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => {
          const excerpt = utf8Excerpt(Buffer.concat(chunks), RESPONSE_EXCERPT_BYTES);
          const ok = statusCode >= 200 && statusCode < 300;
          const location = res.headers.location;
          finish({
            ok,
            statusCode,
            error: ok
              ? null
              : statusCode >= 300 && statusCode < 400
                ? `HTTP ${statusCode}: redirect not followed${location ? ` (to ${location.slice(0, 200)})` : ''}`
                : `HTTP ${statusCode}`,
            responseExcerpt: excerpt,
            retryAfterMs,
            gone: statusCode === 410,
          });
        };
        answered = done;
        res.on('data', (chunk: Buffer) => {
          if (settled) return;
          chunks.push(chunk);
          size += chunk.length;
          if (size > RESPONSE_EXCERPT_BYTES) {
            done();
            res.destroy(); // enough read: close the connection rather than drain a large body
          }
        });
        res.on('end', done);
        res.on('close', done); // a receiver that closes mid-body still answered with its status
        res.on('error', () => undefined);
      });
      req.end(body);
    };
    attempt(0);
  });
}
