import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as OTLP/JSON carries it, with the name of the instrumentation scope that made it. */
export interface ReceivedSpan {
  readonly scope: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  /** 1 internal, 2 server, 3 client. */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, unknown>>;
}

export interface OtlpReceiver {
  /** For `OTEL_EXPORTER_OTLP_ENDPOINT` (exporters append `/v1/traces`). */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  /** Every request received, whatever its path (`/v1/traces`, `/v1/metrics`, …). */
  readonly requests: string[];
  /** Resolves with the spans received once `predicate` holds for one of them, or rejects after `timeoutMs`. */
  waitFor(predicate: (span: ReceivedSpan) => boolean, timeoutMs?: number): Promise<ReceivedSpan>;
  close(): Promise<void>;
}

interface OtlpJson {
  resourceSpans?: {
    scopeSpans?: {
      scope?: { name?: string };
      spans?: (Omit<ReceivedSpan, 'scope' | 'attributes'> & {
        attributes?: { key: string; value: Record<string, unknown> }[];
      })[];
    }[];
  }[];
}

/** A loopback OTLP/HTTP receiver taking JSON (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`), as a collector would. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: string[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      requests.push(`${request.method} ${request.url} ${request.headers['content-type']}`);
      if (request.url === '/v1/traces' && request.headers['content-type']?.includes('json')) {
        for (const resource of (JSON.parse(body) as OtlpJson).resourceSpans ?? []) {
          for (const { scope, spans: scoped } of resource.scopeSpans ?? []) {
            for (const { attributes, ...span } of scoped ?? []) {
              spans.push({
                ...span,
                scope: scope?.name ?? '',
                attributes: Object.fromEntries(
                  (attributes ?? []).map(({ key, value }) => [key, Object.values(value)[0]]),
                ),
              });
            }
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests,
    async waitFor(predicate, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = spans.find(predicate);
        if (found) return found;
        if (Date.now() > deadline) {
          throw new Error(
            `No such span after ${timeoutMs} ms; received: ${spans.map((s) => s.name).join(', ')}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
