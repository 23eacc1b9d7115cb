import type { Point } from './svg-chart.js';

/** One series of a range query: its labels and its samples. */
export interface RangeSeries {
  readonly labels: Readonly<Record<string, string>>;
  readonly points: readonly Point[];
}

interface RangeAnswer {
  readonly status: string;
  readonly error?: string;
  readonly data?: {
    readonly result: readonly { metric: Record<string, string>; values: [number, string][] }[];
  };
}

/** Prometheus's sample text as a number: Go's `+Inf` and `-Inf` are not JavaScript's spelling. */
const sampleValue = (text: string) =>
  text === '+Inf' ? Number.POSITIVE_INFINITY : text === '-Inf' ? Number.NEGATIVE_INFINITY : Number(text);

/** Pure: a `query_range` answer's matrix as series of numbers (`"NaN"` stays NaN, `"+Inf"` Infinity). */
export function parseRangeAnswer(answer: RangeAnswer): RangeSeries[] {
  if (answer.status !== 'success' || !answer.data) throw new Error(answer.error ?? 'query failed');
  return answer.data.result.map((series) => ({
    labels: series.metric,
    points: series.values.map(([t, v]) => ({ t, v: sampleValue(v) })),
  }));
}

/**
 * `GET /api/v1/query_range` on a Prometheus: `expression` from `start` to `end` (seconds) every `step` seconds.
 * Fails with Prometheus's error (a bad expression) or the HTTP status.
 */
export async function queryRange(
  prometheusUrl: string,
  expression: string,
  range: { readonly start: number; readonly end: number; readonly step: number },
): Promise<RangeSeries[]> {
  const url = new URL('/api/v1/query_range', prometheusUrl);
  url.search = new URLSearchParams({
    query: expression,
    start: String(range.start),
    end: String(range.end),
    step: String(range.step),
  }).toString();
  const response = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  const answer = (await response.json().catch(() => ({ status: `HTTP ${response.status}` }))) as RangeAnswer;
  try {
    return parseRangeAnswer(answer);
  } catch (error) {
    throw new Error(`Prometheus at ${prometheusUrl} refused ${expression}: ${(error as Error).message}`);
  }
}
