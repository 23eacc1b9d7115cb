import type { Context, SpanKind as SpanKindType } from '@opentelemetry/api';
import { SpanKind } from '@opentelemetry/api';
import { tracing } from '@opentelemetry/sdk-node';

/** A W3C traceparent: version, trace id, parent id, flags (bit 0: sampled). */
const TRACEPARENT = /^[\da-f]{2}-[\da-f]{32}-[\da-f]{16}-([\da-f]{2})$/;

export interface HeadSampling {
  /** Whether an incoming request is traced: a caller's traceparent is followed, else one request in `1 / ratio`. */
  admits(traceparent: string | string[] | undefined): boolean;
  /** The SDK's sampler: the requests admitted above are sampled, other roots (background work) at the ratio. */
  readonly sampler: tracing.Sampler;
}

/**
 * The sampling decision for HTTP requests, taken before the server span is made (docs/operations.md, "Traces"):
 * a request that will not be traced gets no span and no attributes, as `/health` does. It reads the standard
 * `OTEL_TRACES_SAMPLER` (`parentbased_always_on`, the default, `parentbased_traceidratio`,
 * `parentbased_always_off`) and `OTEL_TRACES_SAMPLER_ARG`; for any other sampler it returns undefined and the SDK
 * decides per span, as without it.
 */
export function headSampling(env: NodeJS.ProcessEnv): HeadSampling | undefined {
  const name = env.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on';
  let ratio: number;
  if (name === 'parentbased_always_on') ratio = 1;
  else if (name === 'parentbased_always_off') ratio = 0;
  else if (name === 'parentbased_traceidratio') {
    const arg = Number(env.OTEL_TRACES_SAMPLER_ARG ?? '1');
    // The SDK's own rule for a missing or invalid argument: every trace.
    ratio = Number.isFinite(arg) && arg >= 0 && arg <= 1 ? arg : 1;
  } else return undefined;
  const background = new tracing.TraceIdRatioBasedSampler(ratio);
  const root: tracing.Sampler = {
    shouldSample(context: Context, traceId: string, _spanName: string, spanKind: SpanKindType) {
      // A server span's request was admitted by `admits`: its draw is not repeated.
      return spanKind === SpanKind.SERVER
        ? { decision: tracing.SamplingDecision.RECORD_AND_SAMPLED }
        : background.shouldSample(context, traceId);
    },
    toString: () => `HeadSampling{${ratio}}`,
  };
  return {
    admits(traceparent) {
      const flags = typeof traceparent === 'string' ? TRACEPARENT.exec(traceparent)?.[1] : undefined;
      if (flags !== undefined) return (Number.parseInt(flags, 16) & 1) === 1;
      return ratio >= 1 || (ratio > 0 && Math.random() < ratio);
    },
    sampler: new tracing.ParentBasedSampler({ root }),
  };
}
