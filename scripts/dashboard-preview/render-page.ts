import { type Panel, legendName } from './dashboard.js';
import { formatValue } from './format-value.js';
import { type Box, gridBox, gridHeight } from './grid-layout.js';
import type { RangeSeries } from './prometheus-api.js';
import { type ChartSeries, chartSvg, stackSeries } from './svg-chart.js';

/** Grafana's "palette-classic" colours, in order. */
const PALETTE = [
  '#7EB26D', '#EAB839', '#6ED0E0', '#EF843C', '#E24D42', '#1F78C1', '#BA43A9', '#705DA0',
  '#508642', '#CCA300', '#447EBC', '#C15C17', '#890F02', '#0A437C', '#6D1F62', '#584477',
]; // prettier-ignore
const NAMED_COLORS: Record<string, string> = {
  red: '#F2495C',
  green: '#73BF69',
  orange: '#FF9830',
  yellow: '#FADE2A',
};

/** What one target of a panel answered: its series, or why it could not be run. */
export interface TargetResult {
  readonly legendFormat?: string;
  readonly series?: readonly RangeSeries[];
  readonly error?: string;
}

export interface PageInput {
  readonly title: string;
  /** The note at the top saying what the picture is and how it was made (plain text). */
  readonly note: string;
  readonly width: number;
  readonly range: { readonly start: number; readonly end: number; readonly step: number };
  readonly panels: readonly { readonly panel: Panel; readonly results: readonly TargetResult[] }[];
}

const escape = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);

const PADDING = 16;
const HEADER = 96;
const TITLE = 28;
const LEGEND_LINE = 17;

/** The whole page: the note, then each panel where its gridPos puts it. Self-contained (no script, no fetch). */
export function renderPage(input: PageInput): string {
  const gridWidth = input.width - 2 * PADDING;
  const height = HEADER + gridHeight(input.panels.map(({ panel }) => panel.gridPos)) + 2 * PADDING;
  const panels = input.panels.map(({ panel, results }) => {
    const box = gridBox(panel.gridPos, gridWidth);
    const style = `left:${box.left}px;top:${box.top}px;width:${box.width}px;height:${box.height}px`;
    if (panel.type === 'row') return `<div class="row" style="${style}">${escape(panel.title)}</div>`;
    return `<div class="panel" style="${style}"><div class="title">${escape(panel.title)}</div>${panelBody(panel, results, box, input.range)}</div>`;
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(input.title)}: preview</title><style>
body{margin:0;background:#111217;color:#ccccdc;font:12px/1.4 Inter,Helvetica,Arial,sans-serif}
.page{position:relative;width:${input.width}px;height:${height}px}
.note{position:absolute;left:${PADDING}px;top:${PADDING}px;width:${gridWidth}px;height:${HEADER - 24}px;box-sizing:border-box;padding:8px 12px;border:1px solid #F2CC0C;border-radius:2px;background:#1e1d14}
.note h1{margin:0 0 4px;font-size:16px;color:#fff}
.grid{position:absolute;left:${PADDING}px;top:${PADDING + HEADER}px}
.row{position:absolute;font-size:15px;font-weight:500;color:#fff;line-height:30px}
.panel{position:absolute;background:#181b1f;border:1px solid #2c3235;border-radius:2px;box-sizing:border-box;overflow:hidden}
.title{height:${TITLE}px;line-height:${TITLE}px;padding:0 8px;font-weight:500;color:#fff;font-size:13px}
svg text{fill:#9fa7b3;font-size:11px}svg .grid{stroke:#2c3235}
.legend{padding:0 8px;overflow:hidden;display:flex;flex-wrap:wrap;column-gap:14px}
.legend span{white-space:nowrap;line-height:${LEGEND_LINE}px}.legend i{display:inline-block;width:12px;height:3px;margin:0 5px 3px 0;vertical-align:middle}
.legend b{font-weight:400;color:#9fa7b3}
.empty,.error{display:flex;align-items:center;justify-content:center;color:#9fa7b3;font-size:14px}.error{color:#F2495C;padding:0 12px}
.stat{display:flex;align-items:center;justify-content:center;font-size:40px;font-weight:500}
</style></head><body><div class="page">
<div class="note"><h1>${escape(input.title)}: the dashboard's panels from its own queries, not Grafana</h1>${escape(input.note)}</div>
<div class="grid">${panels.join('\n')}</div></div></body></html>
`;
}

function panelBody(
  panel: Panel,
  results: readonly TargetResult[],
  box: Box,
  range: PageInput['range'],
): string {
  const defaults = panel.fieldConfig?.defaults ?? {};
  const height = box.height - TITLE - 2;
  const errors = results.filter((result) => result.error).map((result) => result.error!);
  const named = results.flatMap((result) =>
    (result.series ?? []).map((series) => ({ name: legendName(result.legendFormat, series.labels), series })),
  );
  if (errors.length)
    return `<div class="error" style="height:${height}px">${escape(errors.join('; '))}</div>`;
  if (named.length === 0) return `<div class="empty" style="height:${height}px">No data</div>`;
  const last = (points: RangeSeries['points']) => points.findLast((point) => Number.isFinite(point.v))?.v;
  if (panel.type === 'stat') {
    const value = last(named[0]!.series.points);
    const text = value === undefined ? 'No data' : formatValue(value, defaults.unit, defaults.decimals);
    return `<div class="stat" style="height:${height}px;color:${PALETTE[0]}">${escape(text)}</div>`;
  }
  const stacked = defaults.custom?.stacking?.mode === 'normal';
  const levels = stacked ? stackSeries(named.map(({ series }) => series.points)) : null;
  const series: ChartSeries[] = named.map(({ name, series: { points } }, index) => ({
    name,
    color: PALETTE[index % PALETTE.length]!,
    points: levels?.[index]?.points ?? points,
    base: levels?.[index]?.base,
  }));
  const legend = series.map(
    (entry, index) =>
      `<span><i style="background:${entry.color}"></i>${escape(entry.name)} <b>${escape(lastText(last(named[index]!.series.points), defaults))}</b></span>`,
  );
  const legendHeight = Math.min(legendLines(legend, box.width - 16) * LEGEND_LINE, Math.floor(height * 0.42));
  const thresholdsShown = (defaults.custom?.thresholdsStyle?.mode ?? 'off') !== 'off';
  const svg = chartSvg({
    width: box.width - 2,
    height: height - legendHeight - 4,
    t0: range.start,
    t1: range.end,
    maxGapSeconds: range.step * 1.5,
    unit: defaults.unit,
    min: defaults.min,
    max: defaults.max,
    fillOpacity: defaults.custom?.fillOpacity ?? 0,
    thresholds: thresholdsShown
      ? (defaults.thresholds?.steps ?? [])
          .filter((step) => step.value !== null)
          .map((step) => ({ value: step.value!, color: NAMED_COLORS[step.color] ?? step.color }))
      : [],
    series,
  });
  return `${svg}<div class="legend" style="height:${legendHeight}px">${legend.join('')}</div>`;
}

const lastText = (value: number | undefined, defaults: { unit?: string; decimals?: number }) =>
  value === undefined ? '' : `last ${formatValue(value, defaults.unit, defaults.decimals)}`;

/** How many lines the legend's entries wrap to in `width` pixels (about 6.5 px a character). */
function legendLines(entries: readonly string[], width: number): number {
  let lines = entries.length ? 1 : 0;
  let used = 0;
  for (const entry of entries) {
    const size = 31 + entry.replace(/<[^>]*>/g, '').length * 6.5;
    if (used > 0 && used + size > width) {
      lines += 1;
      used = 0;
    }
    used += size;
  }
  return lines;
}
