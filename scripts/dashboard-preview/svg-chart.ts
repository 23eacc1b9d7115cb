import { formatValue } from './format-value.js';
import type { Box } from './grid-layout.js';

/** One sample of a Prometheus range result: seconds since the epoch, and the value (NaN when PromQL gave NaN). */
export interface Point {
  readonly t: number;
  readonly v: number;
}

/** What maps time and value onto the plot: `[t0, t1]` across the box, `[y0, y1]` from its bottom to its top. */
export interface Scale {
  readonly t0: number;
  readonly t1: number;
  readonly y0: number;
  readonly y1: number;
  readonly box: Box;
}

export interface ChartSeries {
  readonly name: string;
  readonly color: string;
  readonly points: readonly Point[];
  /** Stacked series: the level each point stands on (the series below it). */
  readonly base?: readonly Point[];
}

export interface ChartOptions {
  readonly width: number;
  readonly height: number;
  readonly t0: number;
  readonly t1: number;
  /** Points further apart than this are not joined (Grafana's spanNulls: false on a range query's step). */
  readonly maxGapSeconds: number;
  readonly unit?: string;
  readonly min?: number;
  readonly max?: number;
  readonly fillOpacity: number;
  readonly thresholds: readonly { readonly value: number; readonly color: string }[];
  readonly series: readonly ChartSeries[];
}

const round = (value: number) => Math.round(value * 10) / 10;
const escape = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);

/** The pixel of time `t` and value `v` on `scale`. */
export function toPixel(scale: Scale, t: number, v: number): [number, number] {
  const { box } = scale;
  const x = box.left + ((t - scale.t0) / (scale.t1 - scale.t0 || 1)) * box.width;
  const y = box.top + box.height - ((v - scale.y0) / (scale.y1 - scale.y0 || 1)) * box.height;
  return [round(x), round(y)];
}

/** The runs of points a line joins: broken at NaN and at gaps longer than `maxGapSeconds`. */
export function segments(points: readonly Point[], maxGapSeconds: number): Point[][] {
  const runs: Point[][] = [];
  let run: Point[] = [];
  let previous: Point | undefined;
  for (const point of points) {
    const broken = !Number.isFinite(point.v) || (previous && point.t - previous.t > maxGapSeconds);
    if (broken && run.length) {
      runs.push(run);
      run = [];
    }
    if (Number.isFinite(point.v)) run.push(point);
    previous = point;
  }
  if (run.length) runs.push(run);
  return runs;
}

/**
 * An SVG path drawing `points` as Grafana's line draw style does: one `M … L …` run per segment.
 *
 * @example linePath([{ t: 0, v: 0 }, { t: 10, v: 1 }], scale, 30) // 'M0 100L200 0' on a 200×100 box, y 0..1
 */
export function linePath(points: readonly Point[], scale: Scale, maxGapSeconds: number): string {
  return segments(points, maxGapSeconds)
    .map((run) =>
      run
        .map((point, index) => {
          const [x, y] = toPixel(scale, point.t, point.v);
          return `${index === 0 ? 'M' : 'L'}${x} ${y}`;
        })
        .join(''),
    )
    .join('');
}

/** The area under each segment of `points`, down to `base` at the same times (or to the scale's bottom, y0). */
export function areaPath(
  points: readonly Point[],
  scale: Scale,
  maxGapSeconds: number,
  base?: readonly Point[],
): string {
  const below = new Map((base ?? []).map((point) => [point.t, point.v]));
  return segments(points, maxGapSeconds)
    .map((run) => {
      const top = run.map((point) => toPixel(scale, point.t, point.v));
      const bottom = [...run]
        .reverse()
        .map((point) => toPixel(scale, point.t, below.get(point.t) ?? Math.max(scale.y0, 0)));
      return `M${[...top, ...bottom].map(([x, y]) => `${x} ${y}`).join('L')}Z`;
    })
    .join('');
}

/** Series stacked in order (Grafana's stacking "normal"): each one's points raised by those below it. */
export function stackSeries(series: readonly (readonly Point[])[]): { points: Point[]; base: Point[] }[] {
  const level = new Map<number, number>();
  return series.map((points) => {
    const base = points.map((point) => ({ t: point.t, v: level.get(point.t) ?? 0 }));
    const raised = points.map((point, index) => ({ t: point.t, v: base[index]!.v + point.v }));
    for (const point of raised) if (Number.isFinite(point.v)) level.set(point.t, point.v);
    return { points: raised, base };
  });
}

/** About `count` round tick values (1, 2, 2.5 or 5 × 10ⁿ apart) from at or below `min` to at or above `max`. */
export function niceTicks(min: number, max: number, count = 4): number[] {
  const span = max - min || Math.abs(max) || 1;
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].find((factor) => factor * power >= raw) ?? 10) * power;
  const first = Math.floor(min / step + 1e-9);
  const last = Math.max(first + 1, Math.ceil(max / step - 1e-9));
  return Array.from({ length: last - first + 1 }, (_, index) =>
    Number(((first + index) * step).toPrecision(12)),
  );
}

/** Times for the x axis: round minutes (1, 2, 5, 10, 15, 30 or 60 apart) within `[t0, t1]`. */
export function timeTicks(t0: number, t1: number, count = 6): number[] {
  const step = [60, 120, 300, 600, 900, 1800, 3600].find((s) => (t1 - t0) / s <= count) ?? 3600;
  const ticks: number[] = [];
  for (let tick = Math.ceil(t0 / step) * step; tick <= t1; tick += step) ticks.push(tick);
  return ticks;
}

const AXIS = { left: 64, right: 8, top: 6, bottom: 20 };
const hhmm = (t: number) => new Date(t * 1000).toISOString().slice(11, 16);

/** A time-series panel's plot as inline SVG: value grid and labels in the unit, time labels, thresholds, series. */
export function chartSvg(options: ChartOptions): string {
  const values = options.series.flatMap((series) => series.points.map((point) => point.v));
  const finite = values.filter(Number.isFinite);
  const low = options.min ?? Math.min(0, ...finite);
  const high = options.max ?? Math.max(low, ...finite);
  const ticks = niceTicks(low, high === low ? low + 1 : high);
  const box = {
    left: AXIS.left,
    top: AXIS.top,
    width: options.width - AXIS.left - AXIS.right,
    height: options.height - AXIS.top - AXIS.bottom,
  };
  const scale: Scale = { t0: options.t0, t1: options.t1, y0: ticks[0]!, y1: ticks.at(-1)!, box };
  const parts: string[] = [];
  for (const tick of ticks) {
    const [, y] = toPixel(scale, options.t0, tick);
    parts.push(
      `<line x1="${box.left}" x2="${box.left + box.width}" y1="${y}" y2="${y}" class="grid"/>`,
      `<text x="${box.left - 6}" y="${y + 4}" text-anchor="end">${escape(formatValue(tick, options.unit))}</text>`,
    );
  }
  for (const tick of timeTicks(options.t0, options.t1)) {
    const [x] = toPixel(scale, tick, scale.y0);
    parts.push(
      `<line x1="${x}" x2="${x}" y1="${box.top}" y2="${box.top + box.height}" class="grid"/>`,
      `<text x="${x}" y="${options.height - 4}" text-anchor="middle">${hhmm(tick)}</text>`,
    );
  }
  for (const series of options.series) {
    const area = areaPath(series.points, scale, options.maxGapSeconds, series.base);
    if (options.fillOpacity > 0 && area) {
      parts.push(`<path d="${area}" fill="${series.color}" fill-opacity="${options.fillOpacity / 100}"/>`);
    }
    const line = linePath(series.points, scale, options.maxGapSeconds);
    if (line) parts.push(`<path d="${line}" fill="none" stroke="${series.color}" stroke-width="1.5"/>`);
  }
  // As in Grafana, a threshold outside the values' range is not drawn (the axis is not stretched to it).
  for (const threshold of options.thresholds.filter((t) => t.value >= scale.y0 && t.value <= scale.y1)) {
    const [, y] = toPixel(scale, options.t0, threshold.value);
    parts.push(
      `<line x1="${box.left}" x2="${box.left + box.width}" y1="${y}" y2="${y}" stroke="${threshold.color}" stroke-dasharray="6 4"/>`,
    );
  }
  return `<svg width="${options.width}" height="${options.height}" viewBox="0 0 ${options.width} ${options.height}" xmlns="http://www.w3.org/2000/svg">${parts.join('')}</svg>`;
}
