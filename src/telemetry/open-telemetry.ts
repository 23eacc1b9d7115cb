import {
  type Context,
  context,
  propagation,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { core, NodeSDK } from '@opentelemetry/sdk-node';
import { type HeadSampling, headSampling } from './head-sampling.js';
import { redactedUrlAttributes } from './redacted-url.js';
import { RequestStoreContextManager } from './request-store-context-manager.js';
import { serverSpanAttributes, serverSpanName } from './server-span.js';
import {
  type IncomingRequest,
  installTracer,
  type ServedRequest,
  type SpanAttributes,
  spanText,
  type Tracer,
} from './tracing.js';

/** Probes and scrapes answer every few seconds; a trace each would bury the requests worth reading. */
const UNTRACED_PATHS = /^\/(health|metrics)(\/|\?|$)/;

const TRACER_NAME = 'ferry';

/**
 * Starts OpenTelemetry's Node SDK: Ferry's own server span for each HTTP request (`serve`, from the request's first
 * hook), spans of PostgreSQL queries (pg) and of `fetch` calls (undici: viem's JSON-RPC calls to chains) made inside
 * a trace, and Ferry's own (`command`, `append`, `project`), exported over OTLP to `OTEL_EXPORTER_OTLP_ENDPOINT`. The
 * standard `OTEL_*` variables apply (service name, sampler, protocol, batch delay). Traces only: Ferry's metrics are
 * Prometheus's (`GET /metrics`), so OpenTelemetry's metrics and logs exporters default to none. Why the server span
 * is Ferry's and not the http and Fastify instrumentations': docs/decisions/0029-server-spans-from-ferrys-own-hook.md.
 */
export function startOpenTelemetry(env: NodeJS.ProcessEnv = process.env): NodeSDK {
  env.OTEL_SERVICE_NAME ??= 'ferry';
  env.OTEL_METRICS_EXPORTER ??= 'none';
  env.OTEL_LOGS_EXPORTER ??= 'none';
  const sampling = headSampling(env);
  const sdk = new NodeSDK({
    // The context lives in the request's store, beside its id for the logs: one AsyncLocalStorage, not two.
    contextManager: new RequestStoreContextManager(),
    ...(sampling ? { sampler: sampling.sampler } : {}),
    instrumentations: [
      // Polling loops query all the time: a query is recorded only inside a trace (a request, a projected event).
      new PgInstrumentation({ requireParentSpan: true }),
      // viem's JSON-RPC calls go through the global fetch. The chain watcher and the solver call all the time: a call
      // is recorded only inside a trace (a quote's reads of balances, gas prices, price feeds).
      new UndiciInstrumentation({
        requireParentforSpans: true,
        // Providers' RPC URLs hold their key in the path or query: the span keeps the origin only.
        startSpanHook: (request) => redactedUrlAttributes(request.origin, request.path),
      }),
    ],
  });
  sdk.start();
  installTracer(openTelemetryTracer(sampling));
  return sdk;
}

/** Ferry's tracer over the global OpenTelemetry API (exported for its unit test). */
export function openTelemetryTracer(sampling?: HeadSampling): Tracer {
  const tracer = trace.getTracer(TRACER_NAME);
  // The context of a request that is not traced: the queries and calls it makes start no trace of their own.
  const untraced: ServedRequest = { context: core.suppressTracing(ROOT_CONTEXT) };
  const end = (span: Span, error?: unknown) => {
    if (error !== undefined) {
      // Masked as log lines are: a failed RPC call's message repeats its URL, and a provider's key with it.
      const message = spanText(error instanceof Error ? error.message : String(error));
      span.recordException(
        error instanceof Error
          ? { name: error.name, message, ...(error.stack ? { stack: spanText(error.stack) } : {}) }
          : message,
      );
      span.setStatus({ code: SpanStatusCode.ERROR, ...(error instanceof Error ? { message } : {}) });
    }
    span.end();
  };
  const run = async <T>(spans: readonly Span[], active: Context, fn: () => Promise<T>): Promise<T> => {
    try {
      const result = await context.with(active, fn);
      for (const span of spans) end(span);
      return result;
    } catch (error) {
      for (const span of spans) end(span, error);
      throw error;
    }
  };
  return {
    serve(request: IncomingRequest): ServedRequest {
      const traceparent = request.headers.traceparent;
      if (UNTRACED_PATHS.test(request.url) || (sampling !== undefined && !sampling.admits(traceparent))) {
        return untraced;
      }
      const parent =
        traceparent === undefined ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, request.headers);
      const span = tracer.startSpan(
        serverSpanName(request),
        { kind: SpanKind.SERVER, attributes: serverSpanAttributes(request, spanText) },
        parent,
      );
      const served = trace.setSpan(parent, span);
      if (!span.isRecording()) return { context: served };
      return {
        context: served,
        end(statusCode) {
          span.setAttribute('http.response.status_code', statusCode);
          if (statusCode >= 500) {
            span.setAttribute('error.type', String(statusCode));
            span.setStatus({ code: SpanStatusCode.ERROR });
          }
          span.end();
        },
      };
    },
    inSpan(name, attributes, fn) {
      const span = tracer.startSpan(name, { attributes });
      return run([span], trace.setSpan(context.active(), span), fn);
    },
    inRemoteChildSpans(children, fn) {
      const spans = children.map(({ name, attributes, traceparent }) =>
        tracer.startSpan(name, { attributes }, propagation.extract(ROOT_CONTEXT, { traceparent })),
      );
      return run(spans, trace.setSpan(context.active(), spans[0]), fn);
    },
    traceparent() {
      const carrier: Record<string, string> = {};
      propagation.inject(context.active(), carrier);
      return carrier.traceparent;
    },
    ids() {
      const span = trace.getActiveSpan();
      if (!span) return undefined;
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
    annotate(attributes: SpanAttributes) {
      trace.getActiveSpan()?.setAttributes(attributes);
    },
    async flush() {
      // The global provider is a proxy in front of the SDK's.
      const global = trace.getTracerProvider();
      const provider = (global instanceof ProxyTracerProvider ? global.getDelegate() : global) as {
        forceFlush?: () => Promise<void>;
      };
      await provider.forceFlush?.();
    },
  };
}
