import { createServer, type Server } from 'node:http';
import { parentPort } from 'node:worker_threads';

/**
 * A webhook receiver on loopback, in a worker thread (as a receiver on another machine would be: its work does not
 * share the app's event loop). Keep-alive, answers 200 with an empty body as soon as the request is read, and
 * records when each (requestId, status) first arrived (`performance.timeOrigin + performance.now()`: epoch
 * milliseconds comparable across threads).
 */

export type ReceiverMessage = { kind: 'start' } | { kind: 'report' } | { kind: 'reset' } | { kind: 'stop' };

export type ReceiverReply =
  | { kind: 'started'; port: number }
  | { kind: 'report'; received: number; unparsed: number; firstArrivals: [string, number][] }
  | { kind: 'reset' }
  | { kind: 'stopped' };

/** `requestId|status`, as the matching key for first arrivals. */
export const arrivalKey = (requestId: string, status: string): string =>
  `${requestId.toLowerCase()}|${status}`;

let server: Server | null = null;
let received = 0;
let unparsed = 0;
const firstArrivals = new Map<string, number>();

function start(): Promise<number> {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = performance.timeOrigin + performance.now();
      response.writeHead(200, { 'content-length': '0' });
      response.end();
      received += 1;
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          data?: { requestId?: string; status?: string };
        };
        const key = arrivalKey(body.data?.requestId ?? '', body.data?.status ?? '');
        if (!firstArrivals.has(key)) firstArrivals.set(key, at);
      } catch {
        unparsed += 1;
      }
    });
  });
  server.keepAliveTimeout = 30_000;
  return new Promise((resolve) =>
    server!.listen(0, '127.0.0.1', () => resolve((server!.address() as { port: number }).port)),
  );
}

parentPort?.on('message', (message: ReceiverMessage) => {
  const reply = (value: ReceiverReply) => parentPort?.postMessage(value);
  switch (message.kind) {
    case 'start':
      void start().then((port) => reply({ kind: 'started', port }));
      return;
    case 'report':
      reply({ kind: 'report', received, unparsed, firstArrivals: [...firstArrivals] });
      return;
    case 'reset':
      received = 0;
      unparsed = 0;
      firstArrivals.clear();
      reply({ kind: 'reset' });
      return;
    case 'stop':
      server?.closeAllConnections();
      server?.close(() => reply({ kind: 'stopped' }));
      if (!server) reply({ kind: 'stopped' });
      return;
  }
});
