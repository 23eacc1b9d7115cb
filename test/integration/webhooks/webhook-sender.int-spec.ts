import { Buffer } from 'node:buffer';
import http from 'node:http';
import {
  type AddressInfo,
  createServer as createTcpServer,
  type Server as TcpServer,
  type Socket,
} from 'node:net';
import {
  closeWebhookAgents,
  DEFAULT_WEBHOOK_TIMEOUT_MS,
  deliveryHeaders,
  sendWebhook,
  verifyWebhook,
} from '../../../src/webhooks/index.js';

/** What a receiver saw of one request. */
interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
  readonly socket: Socket;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => void;

/** A real HTTP receiver on 127.0.0.1 that records every request. */
class Receiver {
  readonly received: Received[] = [];
  private readonly server: http.Server;
  handler: Handler = (_req, res) => res.end('ok');

  constructor() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        this.received.push({
          method: req.method!,
          url: req.url!,
          headers: req.headers,
          body,
          socket: req.socket,
        });
        this.handler(req, res, body);
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const API_KEY = 'fk_test_0123456789abcdef';
const BODY = JSON.stringify({
  event: 'request.status.updated',
  timestamp: 1793505600123,
  data: { status: 'success', referrer: 'café ☕', requestId: `0x${'ab'.repeat(32)}` },
});
const signedHeaders = (webhookId = 'wh_1') =>
  deliveryHeaders({
    body: BODY,
    apiKey: API_KEY,
    webhookId,
    timestampSeconds: Math.floor(Date.now() / 1000),
    customHeaders: { Authorization: 'Bearer integrator-secret' },
  });

let receiver: Receiver;
let other: Receiver;

beforeAll(async () => {
  receiver = await new Receiver().start();
  other = await new Receiver().start();
});

beforeEach(() => {
  receiver.received.length = 0;
  other.received.length = 0;
  receiver.handler = (_req, res) => res.end('ok');
});

afterAll(async () => {
  closeWebhookAgents();
  await receiver.stop();
  await other.stop();
});

describe('sendWebhook against real HTTP receivers', () => {
  it('delivers: 200 → ok, and the receiver gets the exact bytes and headers, which verifyWebhook accepts', async () => {
    const headers = signedHeaders('wh_exact');
    const result = await sendWebhook({ url: receiver.url('/hook?tenant=acme'), body: BODY, headers });

    expect(result).toEqual({
      ok: true,
      statusCode: 200,
      latencyMs: expect.any(Number),
      error: null,
      responseExcerpt: 'ok',
      retryAfterMs: null,
      gone: false,
    });
    expect(receiver.received).toHaveLength(1);
    const [seen] = receiver.received;
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/hook?tenant=acme');
    expect(seen.body.equals(Buffer.from(BODY, 'utf8'))).toBe(true);
    expect(seen.headers).toMatchObject({
      host: `127.0.0.1:${receiver.port}`,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(BODY)),
      'x-webhook-id': 'wh_exact',
      'x-signature-timestamp': headers['X-Signature-Timestamp'],
      'x-signature-sha256': headers['X-Signature-SHA256'],
      authorization: 'Bearer integrator-secret',
      'user-agent': 'Ferry-Webhooks/1',
    });
    expect(verifyWebhook(seen.body, seen.headers, API_KEY)).toEqual({ ok: true });
    expect(verifyWebhook(seen.body, seen.headers, 'another key')).toEqual({
      ok: false,
      reason: 'signature-mismatch',
    });
  });

  it('ignores caller attempts to set framing headers (Host, Content-Length, Transfer-Encoding)', async () => {
    const result = await sendWebhook({
      url: receiver.url(),
      body: BODY,
      headers: {
        ...signedHeaders(),
        Host: 'evil.example',
        'content-length': '1',
        'Transfer-Encoding': 'chunked',
      },
    });
    expect(result.ok).toBe(true);
    const [seen] = receiver.received;
    expect(seen.headers.host).toBe(`127.0.0.1:${receiver.port}`);
    expect(seen.headers['content-length']).toBe(String(Buffer.byteLength(BODY)));
    expect(seen.headers['transfer-encoding']).toBeUndefined();
    expect(seen.body.toString('utf8')).toBe(BODY);
  });

  it('500 → not ok, with the excerpt truncated to 1 KB of a 5 KB body', async () => {
    const big = Array.from({ length: 5 * 1024 }, (_, i) => String.fromCharCode(65 + (i % 26))).join('');
    receiver.handler = (_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(big);
    };
    const result = await sendWebhook({ url: receiver.url(), body: BODY, headers: signedHeaders() });
    expect(result).toMatchObject({
      ok: false,
      statusCode: 500,
      error: 'HTTP 500',
      gone: false,
      retryAfterMs: null,
    });
    expect(result.responseExcerpt).toHaveLength(1024);
    expect(result.responseExcerpt).toBe(big.slice(0, 1024));
  });

  it('cuts the excerpt on a character boundary', async () => {
    receiver.handler = (_req, res) => {
      res.writeHead(400);
      res.end('€'.repeat(2000)); // 3 bytes each: 1024 is not a multiple of 3
    };
    const result = await sendWebhook({ url: receiver.url(), body: BODY, headers: signedHeaders() });
    expect(result.statusCode).toBe(400);
    expect(result.responseExcerpt).toBe('€'.repeat(341));
    expect(Buffer.byteLength(result.responseExcerpt!)).toBeLessThanOrEqual(1024);
  });

  it('302 → not ok, and the redirect is not followed (its target gets no request)', async () => {
    receiver.handler = (_req, res) => {
      res.writeHead(302, { location: other.url('/elsewhere') });
      res.end();
    };
    const result = await sendWebhook({ url: receiver.url(), body: BODY, headers: signedHeaders() });
    expect(result).toMatchObject({
      ok: false,
      statusCode: 302,
      error: `HTTP 302: redirect not followed (to ${other.url('/elsewhere')})`,
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(receiver.received).toHaveLength(1);
    expect(other.received).toHaveLength(0);
  });

  it('counts only 2xx as success (204, 299 ok; 199-style and 304 not)', async () => {
    receiver.handler = (req, res) => {
      res.writeHead(Number(new URL(req.url!, 'http://x').searchParams.get('s')));
      res.end();
    };
    const outcome = async (status: number) =>
      (await sendWebhook({ url: receiver.url(`/?s=${status}`), body: BODY, headers: signedHeaders() })).ok;
    expect(await outcome(204)).toBe(true);
    expect(await outcome(299)).toBe(true);
    expect(await outcome(304)).toBe(false);
    expect(await outcome(404)).toBe(false);
  });

  it('a hanging receiver → timeout after timeoutMs', async () => {
    receiver.handler = () => undefined; // never answers
    const result = await sendWebhook({
      url: receiver.url(),
      body: BODY,
      headers: signedHeaders(),
      timeoutMs: 300,
    });
    expect(result).toMatchObject({
      ok: false,
      statusCode: null,
      error: 'timeout after 300 ms',
      responseExcerpt: null,
    });
    expect(result.latencyMs).toBeGreaterThanOrEqual(295);
    expect(result.latencyMs).toBeLessThan(5_000);
    expect(receiver.received).toHaveLength(1); // it did get the request
  });

  it('uses 15 s as the default timeout', () => {
    expect(DEFAULT_WEBHOOK_TIMEOUT_MS).toBe(15_000);
  });

  it('429 with Retry-After: 3 → retryAfterMs 3000', async () => {
    receiver.handler = (_req, res) => {
      res.writeHead(429, { 'retry-after': '3' });
      res.end('slow down');
    };
    const result = await sendWebhook({ url: receiver.url(), body: BODY, headers: signedHeaders() });
    expect(result).toMatchObject({
      ok: false,
      statusCode: 429,
      retryAfterMs: 3000,
      responseExcerpt: 'slow down',
      gone: false,
    });
  });

  it('503 with an HTTP-date Retry-After → the wait until then', async () => {
    receiver.handler = (_req, res) => {
      res.writeHead(503, { 'retry-after': new Date(Date.now() + 60_000).toUTCString() });
      res.end();
    };
    const result = await sendWebhook({ url: receiver.url(), body: BODY, headers: signedHeaders() });
    expect(result.retryAfterMs).toBeGreaterThan(55_000);
    expect(result.retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  it('410 → gone', async () => {
    receiver.handler = (_req, res) => {
      res.writeHead(410);
      res.end('endpoint removed');
    };
    const result = await sendWebhook({ url: receiver.url(), body: BODY, headers: signedHeaders() });
    expect(result).toMatchObject({ ok: false, statusCode: 410, gone: true, error: 'HTTP 410' });
  });

  it('connection refused → an error text, no status', async () => {
    const closed = await new Receiver().start();
    const url = closed.url();
    await closed.stop();
    const result = await sendWebhook({ url, body: BODY, headers: signedHeaders() });
    expect(result).toMatchObject({ ok: false, statusCode: null, responseExcerpt: null, gone: false });
    expect(result.error).toMatch(/ECONNREFUSED/);
  });

  it('a receiver that drops the connection → an error text', async () => {
    receiver.handler = (req) => req.socket.destroy();
    const result = await sendWebhook({ url: receiver.url(), body: BODY, headers: signedHeaders() });
    expect(result).toMatchObject({ ok: false, statusCode: null });
    expect(result.error).toMatch(/socket hang up|ECONNRESET/);
  });

  it('never throws on bad input', async () => {
    await expect(sendWebhook({ url: 'not a url', body: BODY })).resolves.toMatchObject({
      ok: false,
      error: 'invalid url',
    });
    await expect(sendWebhook({ url: 'ftp://127.0.0.1/', body: BODY })).resolves.toMatchObject({ ok: false });
    await expect(
      sendWebhook({ url: receiver.url(), body: BODY, headers: { 'X-Bad': 'a\r\nInjected: 1' } }),
    ).resolves.toMatchObject({ ok: false, statusCode: null });
    await expect(
      sendWebhook({ url: receiver.url(), body: BODY, connectTo: 'not-an-ip' }),
    ).resolves.toMatchObject({ ok: false });
    await expect(sendWebhook({ url: receiver.url(), body: 42 as never })).resolves.toMatchObject({
      ok: false,
    });
    await expect(sendWebhook({ url: receiver.url(), body: BODY, timeoutMs: 0 })).resolves.toMatchObject({
      ok: false,
    });
    expect(receiver.received).toHaveLength(0);
  });

  it('connects to the pinned address without asking DNS, sending the URL host as Host', async () => {
    // `.invalid` never resolves (RFC 6761): the delivery can only arrive through connectTo.
    const url = `http://hooks.ferry.invalid:${receiver.port}/pinned`;
    const result = await sendWebhook({ url, body: BODY, headers: signedHeaders(), connectTo: '127.0.0.1' });
    expect(result).toMatchObject({ ok: true, statusCode: 200 });
    expect(receiver.received[0].headers.host).toBe(`hooks.ferry.invalid:${receiver.port}`);
    expect(receiver.received[0].url).toBe('/pinned');
    const unpinned = await sendWebhook({ url, body: BODY, headers: signedHeaders() });
    expect(unpinned.ok).toBe(false);
    expect(unpinned.error).toMatch(/ENOTFOUND|EAI_AGAIN/);
  });

  it('reuses keep-alive connections across deliveries', async () => {
    for (let i = 0; i < 20; i++) {
      expect((await sendWebhook({ url: receiver.url(), body: BODY, headers: signedHeaders() })).ok).toBe(
        true,
      );
    }
    expect(new Set(receiver.received.map((r) => r.socket)).size).toBe(1);
  });

  it('delivers many concurrent deliveries, each exactly once', async () => {
    // Correctness under concurrency only; the rate is measured by `npm run bench`, not asserted on a shared CI box.
    const results = await Promise.all(
      Array.from({ length: 500 }, (_, i) =>
        sendWebhook({ url: receiver.url(), body: BODY, headers: signedHeaders(`wh_${i}`) }),
      ),
    );
    expect(results.every((r) => r.ok)).toBe(true);
    expect(receiver.received).toHaveLength(500);
    expect(new Set(receiver.received.map((r) => r.headers['x-webhook-id'])).size).toBe(500);
    expect(receiver.received.every((r) => verifyWebhook(r.body, r.headers, API_KEY).ok)).toBe(true);
  });
});

describe('sendWebhook with a receiver that closes idle keep-alive connections', () => {
  let server: TcpServer;
  let connections = 0;
  let requests = 0;

  beforeAll(async () => {
    // A raw receiver: answers the first request on each connection with keep-alive, then closes the connection
    // without answering when a second request arrives on it (as a server whose idle timeout just fired would).
    server = createTcpServer((socket) => {
      connections++;
      let seen = 0;
      let buffer = '';
      socket.on('data', (data) => {
        buffer += data.toString('latin1');
        while (buffer.includes('\r\n\r\n')) {
          const headEnd = buffer.indexOf('\r\n\r\n');
          const length = Number(/content-length: (\d+)/i.exec(buffer.slice(0, headEnd))?.[1] ?? 0);
          if (buffer.length < headEnd + 4 + length) return;
          buffer = buffer.slice(headEnd + 4 + length);
          seen++;
          requests++;
          if (seen === 1) {
            socket.write('HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok');
          } else {
            socket.destroy();
            return;
          }
        }
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    closeWebhookAgents();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('retries once on a fresh connection when a reused one turns out to be closed', async () => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    expect((await sendWebhook({ url, body: BODY, headers: signedHeaders() })).ok).toBe(true);
    const second = await sendWebhook({ url, body: BODY, headers: signedHeaders() });
    expect(second).toMatchObject({ ok: true, statusCode: 200, responseExcerpt: 'ok' });
    expect(connections).toBe(2);
    expect(requests).toBe(3); // the one lost on the stale connection, then the retry
  });
});
