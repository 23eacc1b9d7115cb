import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';

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
 */
export function installRequestContext(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request: FastifyRequest, _reply, done) =>
    storage.run({ reqId: request.id, trace: storage.getStore()?.trace }, done),
  );
}
