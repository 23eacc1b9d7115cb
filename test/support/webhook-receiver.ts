import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';

export interface ReceivedWebhook {
  readonly body: string;
  readonly headers: IncomingHttpHeaders;
  readonly receivedAt: number;
}

/** What the receiver does with one request: answer a status (with headers), or never answer. */
export type Reply = { status: number; headers?: Record<string, string>; body?: string } | 'hang';

/**
 * A real webhook receiver on loopback: records every request (raw body, headers, time) and answers from a script
 * (`replies`, one per request, then `fallback`).
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  replies: Reply[] = [];
  fallback: Reply = { status: 200, body: 'ok' };
  /** Called for each request before it is answered (e.g. to delay the answer). */
  onRequest: ((webhook: ReceivedWebhook) => Promise<void> | void) | null = null;
  private readonly hanging = new Set<ServerResponse>();
  private server: Server | null = null;
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  async start(port = 0): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', async () => {
        const webhook = {
          body: Buffer.concat(chunks).toString('utf8'),
          headers: request.headers,
          receivedAt: Date.now(),
        };
        this.received.push(webhook);
        await this.onRequest?.(webhook);
        const reply = this.replies.shift() ?? this.fallback;
        if (reply === 'hang') {
          this.hanging.add(response);
          return;
        }
        response.writeHead(reply.status, reply.headers ?? {});
        response.end(reply.body ?? '');
      });
    });
    this.server.keepAliveTimeout = 1000;
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  async stop(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.hanging.clear();
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server = null;
  }

  /** Resolves once `count` requests have arrived (or throws after `timeoutMs`). */
  async waitFor(count: number, timeoutMs = 20_000): Promise<ReceivedWebhook[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      if (Date.now() > deadline)
        throw new Error(`Received ${this.received.length} of ${count} webhooks in ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return this.received.slice(0, count);
  }
}
