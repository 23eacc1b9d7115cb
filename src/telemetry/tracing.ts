import { secretMasker } from '../common/logging/redact.js';

/**
 * What the app asks of tracing (docs/operations.md, "Traces"). Nothing here imports OpenTelemetry: the tracer is
 * installed by `register.ts` only when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, and until then every call below is a
 * null check, so a process without tracing loads no OpenTelemetry module and pays nothing.
 */

export type SpanAttributes = Readonly<Record<string, string | number | boolean>>;

/** The ids of the active span, as log lines carry them (`trace_id`, `span_id`, OpenTelemetry's log field names). */
export interface TraceIds {
  readonly trace_id: string;
  readonly span_id: string;
}

/** A span to open as the child of a W3C `traceparent` recorded elsewhere (an event's metadata). */
export interface RemoteChildSpan {
  readonly name: string;
  readonly attributes: SpanAttributes;
  readonly traceparent: string;
}

/** An incoming HTTP request as the server span records it (OpenTelemetry's stable HTTP attributes). */
export interface IncomingRequest {
  readonly method: string;
  /** The path and query, as received. */
  readonly url: string;
  /** The route's template (`/requests/v3`), undefined when none matched (404). */
  readonly route: string | undefined;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** `request.id`: the `x-request-id` the answer and the log lines carry. */
  readonly requestId: string;
  readonly clientAddress: string | undefined;
  readonly httpVersion: string;
  readonly scheme: string;
}

/** A request's tracing: the context its work runs in, and, when it is traced, the end of its server span. */
export interface ServedRequest {
  /** OpenTelemetry's context (opaque here): the server span's, or one that suppresses tracing. */
  readonly context: unknown;
  /** Ends the server span with the answer's status; undefined when the request is not traced. */
  readonly end?: (statusCode: number) => void;
}

export interface Tracer {
  /**
   * The server span of an incoming request, a child of its caller's `traceparent` when it has one. A request that is
   * not sampled, or that is a probe or a scrape, gets a context that suppresses tracing and no span at all.
   */
  serve(request: IncomingRequest): ServedRequest;
  /** Runs `fn` in a span named `name`, a child of the active span (a new trace when none). */
  inSpan<T>(name: string, attributes: SpanAttributes, fn: () => Promise<T>): Promise<T>;
  /**
   * Runs `fn` once in one span per entry, each a child of its `traceparent`: one piece of work serving several traced
   * causes (a projection batch applying events appended by several requests). `fn` runs in the first span's context.
   */
  inRemoteChildSpans<T>(spans: readonly RemoteChildSpan[], fn: () => Promise<T>): Promise<T>;
  /** The active span as a W3C `traceparent` header value, or undefined outside a span. */
  traceparent(): string | undefined;
  ids(): TraceIds | undefined;
  /** Sets attributes on the active span, if any. */
  annotate(attributes: SpanAttributes): void;
  /** Exports the spans ended so far. */
  flush(): Promise<void>;
}

let tracer: Tracer | null = null;

/** Masks secrets in text a span records (an exception's message and stack); `createApp` installs the logs' masker. */
let spanTextMasker: (text: string) => string = secretMasker();

/** Called by `createApp` with its configuration's secrets, so that spans hide what log lines hide. */
export function maskSpanTextWith(mask: (text: string) => string): void {
  spanTextMasker = mask;
}

/** `text` as a span may record it. */
export function spanText(text: string): string {
  return spanTextMasker(text);
}

/** Called once, by `open-telemetry.ts`, before the app's modules load. */
export function installTracer(installed: Tracer): void {
  tracer = installed;
}

export function tracingEnabled(): boolean {
  return tracer !== null;
}

/** The request's tracing, or undefined when tracing is off (installed by `request-context.ts`'s hook). */
export function serveTraced(request: IncomingRequest): ServedRequest | undefined {
  return tracer?.serve(request);
}

export function inSpan<T>(name: string, attributes: SpanAttributes, fn: () => Promise<T>): Promise<T> {
  return tracer ? tracer.inSpan(name, attributes, fn) : fn();
}

export function inRemoteChildSpans<T>(spans: readonly RemoteChildSpan[], fn: () => Promise<T>): Promise<T> {
  return tracer && spans.length > 0 ? tracer.inRemoteChildSpans(spans, fn) : fn();
}

export function currentTraceparent(): string | undefined {
  return tracer?.traceparent();
}

/** The active trace and span ids, for log lines (undefined when tracing is off or outside a span). */
export function currentTraceIds(): TraceIds | undefined {
  return tracer?.ids();
}

export function annotateSpan(attributes: SpanAttributes): void {
  tracer?.annotate(attributes);
}

export function flushTraces(): Promise<void> {
  return tracer ? tracer.flush() : Promise.resolve();
}
