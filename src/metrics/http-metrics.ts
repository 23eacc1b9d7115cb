import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { httpDuration, quoteOutcomes } from './process-metrics.js';

/** Where the error filter leaves the errorCode it answered, for the quote outcome counter. */
export const ERROR_CODE = Symbol('ferry.errorCode');

/**
 * Observes every answered request by route pattern (`/app-fees/:address/balances`, never the raw URL, so labels stay
 * few; unknown routes are `unmatched`), method and status; and counts quote outcomes by errorCode.
 */
export function installHttpMetrics(fastify: FastifyInstance): void {
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const status = reply.statusCode;
    httpDuration.observe({ method: request.method, route, status: String(status) }, reply.elapsedTime / 1000);
    if (route === '/quote/v2' && request.method === 'POST') {
      const code = (request as unknown as Record<symbol, string | undefined>)[ERROR_CODE];
      quoteOutcomes.inc({ outcome: status < 400 ? 'ok' : (code ?? `HTTP_${status}`) });
    }
    done();
  });
}
