import {
  type Context,
  context,
  propagation,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  type Span,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { core, NodeSDK } from '@opentelemetry/sdk-node';
import { headSampling } from './head-sampling.js';
import { redactedUrlAttributes } from './redacted-url.js';
import { RequestStoreContextManager } from './request-store-context-manager.js';
import { installTracer, type SpanAttributes, spanText, type Tracer } from './tracing.js';

/** Probes and scrapes answer every few seconds; a trace each would bury the requests worth reading. */
const UNTRACED_PATHS = /^\/(health|metrics)(\/|\?|$)/;

const TRACER_NAME = 'ferry';

/**
 * Starts OpenTelemetry's Node SDK: spans of the HTTP server (node:http), of Fastify's routes, of PostgreSQL queries
 * (pg), of `fetch` calls (undici: viem's JSON-RPC calls to chains), and Ferry's own (`command`, `append`,
 * `project`), exported over OTLP to `OTEL_EXPORTER_OTLP_ENDPOINT`. The standard `OTEL_*` variables apply (service
 * name, sampler, protocol, batch delay). Traces only: Ferry's metrics are Prometheus's (`GET /metrics`), so
 * OpenTelemetry's metrics and logs exporters default to none.
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
      new HttpInstrumentation({
        // A request not sampled is ignored from the start, as probes are: nothing but a suppressed context is made.
        ignoreIncomingRequestHook: (request) =>
          UNTRACED_PATHS.test(request.url ?? '') ||
          (sampling !== undefined && !sampling.admits(request.headers.traceparent)),
        // Background loops (watchers, webhooks, the solver) start no trace of their own for each call they make.
        requireParentforOutgoingSpans: true,
      }),
      new FastifyOtelInstrumentation({
        // Fastify announces each instance on a diagnostics channel; the plugin registers itself there.
        registerOnInitialization: true,
        // The request and its handler; a span per hook (seven per request, CORS and middie's) tells no more.
        instrumentHooks: false,
        // Requests the HTTP instrumentation ignored (their context suppresses tracing): no request or handler span.
        ignorePaths: () => core.isTracingSuppressed(context.active()),
        requestHook: (span, request) => span.setAttribute('ferry.x_request_id', request.id),
      }),
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
  installTracer(openTelemetryTracer());
  return sdk;
}

/** Ferry's tracer over the global OpenTelemetry API (exported for its unit test). */
export function openTelemetryTracer(): Tracer {
  const tracer = trace.getTracer(TRACER_NAME);
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
