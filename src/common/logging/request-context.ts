import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { serveTraced, type ServedRequest, tracingEnabled } from '../../telemetry/tracing.js';

/**
 * What follows a request's work through its awaits: its id for the logs, and, with tracing on, OpenTelemetry's active
 * context (`trace`, opaque here). One store for both: on Node 20 each AsyncLocalStorage in use costs every promise of
 * the process a copy of its store, so tracing keeps its context here rather than in a second one
 * (src/telemetry/request-store-context-manager.ts).
 */
interface RequestContext {
  readonly reqId?: string;
  readonly trace?: unknown;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** The id of the request being served where this runs (through awaits, the command bus and its handlers), if any. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.reqId;
}

/** Runs `run` as if it served the request `reqId` (tests, and work a request hands to a later tick on purpose). */
export function withRequestId<T>(reqId: string, run: () => T): T {
  return storage.run({ reqId, trace: storage.getStore()?.trace }, run);
}

/** The tracing context stored where this runs, if any (for the tracing's context manager only). */
export function currentTraceContext(): unknown {
  return storage.getStore()?.trace;
}

/** Runs `run` with `trace` as the tracing context, keeping the request id (for the tracing's context manager only). */
export function withTraceContext<T>(trace: unknown, run: () => T): T {
  return storage.run({ reqId: storage.getStore()?.reqId, trace }, run);
}

/**
 * Every request is served inside a store holding its id (`request.id`: a sane incoming `x-request-id`, or a new
 * UUID), which the logger adds to each line as `reqId`. Entered once, in the first onRequest hook: everything
 * after it (hooks, body parsing, guards, the handler, the command bus) continues from there. A body that arrives
 * after the headers keeps the store too (test/e2e/request-context.e2e-spec.ts), so no second hook re-enters it.
 *
 * With tracing on, the same hook opens the request's server span and stores its context; the span ends when the
 * answer has been sent (or the caller went away). Without tracing, no hook beyond the first is added.
 */
export function installRequestContext(fastify: FastifyInstance): void {
  if (!tracingEnabled()) {
    fastify.addHook('onRequest', (request: FastifyRequest, _reply, done) =>
      storage.run({ reqId: request.id, trace: storage.getStore()?.trace }, done),
    );
    return;
  }
  const spans = new WeakMap<FastifyRequest, NonNullable<ServedRequest['end']>>();
  fastify.addHook('onRequest', (request: FastifyRequest, _reply, done) => {
    const served = serveTraced({
      method: request.method,
      url: request.url,
      route: request.routeOptions.url,
      headers: request.headers,
      requestId: request.id,
      clientAddress: request.ip,
      httpVersion: request.raw.httpVersion,
      scheme: request.protocol,
    });
    if (served?.end) spans.set(request, served.end);
    storage.run({ reqId: request.id, trace: served?.context }, done);
  });
  const end = (request: FastifyRequest, statusCode: number): void => {
    const ending = spans.get(request);
    spans.delete(request);
    ending?.(statusCode);
  };
  fastify.addHook('onResponse', (request, reply, done) => {
    end(request, reply.statusCode);
    done();
  });
  // The caller closed the connection before the answer. 499, as proxies log it.
  fastify.addHook('onRequestAbort', (request, done) => {
    end(request, 499);
    done();
  });
}
