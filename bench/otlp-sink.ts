import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OtlpSink {
  /** For `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  readonly url: string;
  /** Export requests and body bytes received so far. */
  readonly received: { requests: number; bytes: number };
  close(): Promise<void>;
}

/** A collector that reads every OTLP export and keeps nothing, so traced servers pay for exporting as deployed. */
export async function startOtlpSink(): Promise<OtlpSink> {
  const received = { requests: 0, bytes: 0 };
  const server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => (received.bytes += chunk.length));
    request.on('end', () => {
      received.requests += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
