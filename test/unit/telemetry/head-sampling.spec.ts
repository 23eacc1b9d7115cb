import { ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import { headSampling } from '../../../src/telemetry/head-sampling.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const sampled = `00-${TRACE}-00f067aa0ba902b7-01`;
const unsampled = `00-${TRACE}-00f067aa0ba902b7-00`;
const RECORD_AND_SAMPLED = 2;

describe(headSampling.name, () => {
  it('traces every request by default (parentbased_always_on) but an unsampled caller', () => {
    const sut = headSampling({})!;
    expect(sut.admits(undefined)).toBe(true);
    expect(sut.admits(sampled)).toBe(true);
    expect(sut.admits(unsampled)).toBe(false);
  });

  it('traces no request without a sampled caller at ratio 0, and follows a sampled one', () => {
    const sut = headSampling({
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0',
    })!;
    expect(Array.from({ length: 100 }, () => sut.admits(undefined))).not.toContain(true);
    expect(sut.admits(sampled)).toBe(true);
    expect(sut.admits('not a traceparent')).toBe(false);
  });

  it('does not draw twice: the server span of an admitted request is sampled, other roots at the ratio', () => {
    const sut = headSampling({
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0',
    })!;
    const server = sut.sampler.shouldSample(ROOT_CONTEXT, TRACE, 'GET /chains', SpanKind.SERVER, {}, []);
    const background = sut.sampler.shouldSample(ROOT_CONTEXT, TRACE, 'command X', SpanKind.INTERNAL, {}, []);
    expect(server.decision).toBe(RECORD_AND_SAMPLED);
    expect(background.decision).not.toBe(RECORD_AND_SAMPLED);
  });

  it('leaves other samplers to the SDK', () => {
    expect(headSampling({ OTEL_TRACES_SAMPLER: 'traceidratio' })).toBeUndefined();
    expect(headSampling({ OTEL_TRACES_SAMPLER: 'always_on' })).toBeUndefined();
  });
});
