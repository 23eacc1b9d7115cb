import type { FastifyInstance } from 'fastify';

/** Answers counted since the last summary line, by status class. */
interface Window {
  requests: number;
  byStatus: Record<string, number>;
  totalMs: number;
  maxMs: number;
}

const emptyWindow = (): Window => ({ requests: 0, byStatus: {}, totalMs: 0, maxMs: 0 });

/**
 * Request logging (docs/logging.md): one line per request at `debug`, and at `info` one summary line per interval
 * (requests, status classes, mean and slowest response time). Fastify's own per-request lines at `info` (two per
 * request, written synchronously) are turned off in create-app.ts: with stdout a pipe whose reader falls behind, each
 * synchronous write waits for it, and the API's throughput became the log reader's. Errors (5xx) are still logged one
 * by one, at `error`, by the exception filter.
 */
export function installRequestLog(fastify: FastifyInstance, summaryIntervalMs: number): void {
  let window = emptyWindow();
  // The level is fixed at boot (LOG_LEVEL), so it is read once rather than per request.
  const debug = fastify.log.level === 'debug' || fastify.log.level === 'trace';
  fastify.addHook('onResponse', async (request, reply) => {
    const ms = reply.elapsedTime;
    const statusClass = `${Math.floor(reply.statusCode / 100)}xx`;
    window.requests += 1;
    window.byStatus[statusClass] = (window.byStatus[statusClass] ?? 0) + 1;
    window.totalMs += ms;
    if (ms > window.maxMs) window.maxMs = ms;
    if (debug) {
      // The id is given here: onResponse runs when the socket is done, outside the request's store.
      request.log.debug(
        {
          reqId: request.id,
          req: { method: request.method, url: request.url },
          res: { statusCode: reply.statusCode },
          responseTime: ms,
        },
        'request completed',
      );
    }
  });
  if (summaryIntervalMs === 0) return;
  const flush = () => {
    if (window.requests === 0) return;
    const { requests, byStatus, totalMs, maxMs } = window;
    window = emptyWindow();
    fastify.log.info(
      {
        requests,
        byStatus,
        meanMs: Number((totalMs / requests).toFixed(2)),
        maxMs: Number(maxMs.toFixed(2)),
        intervalMs: summaryIntervalMs,
      },
      'requests answered',
    );
  };
  const timer = setInterval(flush, summaryIntervalMs);
  timer.unref();
  fastify.addHook('onClose', async () => {
    clearInterval(timer);
    flush();
  });
}
