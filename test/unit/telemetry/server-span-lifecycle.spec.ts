import { propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { core, tracing } from '@opentelemetry/sdk-node';
import { headSampling } from '../../../src/telemetry/head-sampling.js';
import { openTelemetryTracer } from '../../../src/telemetry/open-telemetry.js';
import type { IncomingRequest } from '../../../src/telemetry/tracing.js';

const request = (overrides: Partial<IncomingRequest> = {}): IncomingRequest => ({
  method: 'POST',
  url: '/quote/v2',
  route: '/quote/v2',
  headers: {},
  requestId: 'req-1',
  clientAddress: '203.0.113.7',
  httpVersion: '1.1',
  scheme: 'http',
  ...overrides,
});

/** The server span `serve` opens, ended as the request hook ends it, through the SDK's own span pipeline. */
describe("a request's server span (openTelemetryTracer().serve)", () => {
  const exporter = new tracing.InMemorySpanExporter();
  const provider = new tracing.BasicTracerProvider({
    spanProcessors: [new tracing.SimpleSpanProcessor(exporter)],
  });

  beforeAll(() => {
    trace.setGlobalTracerProvider(provider);
    propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  });
  afterAll(async () => {
    trace.disable();
    propagation.disable();
    await provider.shutdown();
  });
  beforeEach(() => exporter.reset());

  it('ends with the answer status, and an error status for a 5xx', () => {
    const sut = openTelemetryTracer();
    sut.serve(request()).end!(200);
    sut.serve(request({ requestId: 'req-2' })).end!(503);
    const [ok, failed] = exporter.getFinishedSpans();
    expect(ok).toMatchObject({ name: 'POST /quote/v2', kind: SpanKind.SERVER });
    expect(ok.attributes).toMatchObject({ 'http.response.status_code': 200, 'ferry.x_request_id': 'req-1' });
    expect(ok.status.code).toBe(SpanStatusCode.UNSET);
    expect(ok.attributes).not.toHaveProperty('error.type');
    expect(failed.attributes).toMatchObject({ 'http.response.status_code': 503, 'error.type': '503' });
    expect(failed.status.code).toBe(SpanStatusCode.ERROR);
  });

  it("is a child of the caller's traceparent, and its context is the span's", () => {
    const sut = openTelemetryTracer();
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const served = sut.serve(request({ headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } }));
    expect(trace.getSpan(served.context as never)?.spanContext().traceId).toBe(traceId);
    served.end!(499);
    const [span] = exporter.getFinishedSpans();
    expect(span.spanContext().traceId).toBe(traceId);
    expect(span.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(span.attributes['http.response.status_code']).toBe(499);
  });

  it('opens nothing for probes and scrapes, nor for a request the head sampling leaves out', () => {
    for (const [sut, url] of [
      [openTelemetryTracer(), '/health'],
      [openTelemetryTracer(), '/metrics?x=1'],
      [openTelemetryTracer(headSampling({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' })), '/quote/v2'],
    ] as const) {
      const served = sut.serve(request({ url }));
      expect(served.end).toBeUndefined();
      // Its work records nothing either: the context suppresses tracing.
      expect(core.isTracingSuppressed(served.context as never)).toBe(true);
    }
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
