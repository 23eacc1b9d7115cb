import { readFileSync } from 'node:fs';
import {
  type Dashboard,
  expandExpression,
  flattenPanels,
  legendName,
  type Panel,
} from '../../../scripts/dashboard-preview/dashboard.js';
import { formatValue } from '../../../scripts/dashboard-preview/format-value.js';
import { gridBox, gridHeight } from '../../../scripts/dashboard-preview/grid-layout.js';
import { parseRangeAnswer } from '../../../scripts/dashboard-preview/prometheus-api.js';
import { renderPage } from '../../../scripts/dashboard-preview/render-page.js';
import {
  areaPath,
  chartSvg,
  linePath,
  niceTicks,
  type Scale,
  segments,
  stackSeries,
  timeTicks,
} from '../../../scripts/dashboard-preview/svg-chart.js';

const scale: Scale = { t0: 0, t1: 10, y0: 0, y1: 1, box: { left: 0, top: 0, width: 200, height: 100 } };
const points = (...values: number[]) => values.map((v, index) => ({ t: index * 5, v }));

describe(gridBox.name, () => {
  it("places a panel as Grafana's 24-column grid does: 30 px rows, 8 px margins", () => {
    expect(gridBox({ x: 8, y: 1, w: 8, h: 8 }, 1576)).toEqual({
      left: 528,
      top: 38,
      width: 520,
      height: 296,
    });
    expect(gridBox({ x: 0, y: 0, w: 24, h: 1 }, 1576)).toEqual({ left: 0, top: 0, width: 1576, height: 30 });
    // Three panels of w 8 fill the row edge to edge.
    const right = gridBox({ x: 16, y: 0, w: 8, h: 8 }, 1576);
    expect(right.left + right.width).toBe(1576);
  });

  it('makes the grid as high as its lowest panel', () => {
    expect(
      gridHeight([
        { x: 0, y: 0, w: 24, h: 1 },
        { x: 0, y: 1, w: 8, h: 8 },
      ]),
    ).toBe(9 * 30 + 8 * 8);
    expect(gridHeight([])).toBe(0);
  });
});

describe(flattenPanels.name, () => {
  it("orders panels by position, a collapsed row's own panels after it", () => {
    const panel = (id: number, x: number, y: number, panels?: Panel[]): Panel => ({
      id,
      type: panels ? 'row' : 'timeseries',
      title: String(id),
      gridPos: { x, y, w: 8, h: 8 },
      panels,
    });
    const flat = flattenPanels([panel(3, 8, 1), panel(1, 0, 0, [panel(4, 0, 10)]), panel(2, 0, 1)]);
    expect(flat.map((p) => p.id)).toEqual([1, 2, 3, 4]);
  });
});

describe(formatValue.name, () => {
  it.each([
    [0.0042, 's', '4.2 ms'],
    [0.00005, 's', '50 µs'],
    [2.5, 's', '2.5 s'],
    [90, 's', '1.5 min'],
    [0, 's', '0 s'],
    [1.2345, 'reqps', '1.23 req/s'],
    [1500, 'short', '1.5 K'],
    [12, 'short', '12'],
    [1.5 * 1024 * 1024, 'bytes', '1.5 MiB'],
    [0.25, 'percentunit', '25%'],
    [114, 'none', '114'],
    [114, undefined, '114'],
    [0.012345, 'none', '0.0123'],
    [3, 'ops', '3 ops'],
    [Number.NaN, 's', 'NaN'],
  ])('shows %p in unit %p as %p', (value, unit, text) => {
    expect(formatValue(value, unit)).toBe(text);
  });

  it("keeps the panel's decimals when it sets them", () => {
    expect(formatValue(0.5, 'percentunit', 1)).toBe('50.0%');
  });
});

describe(expandExpression.name, () => {
  it("replaces $__rate_interval and $instance as Grafana does with instance 'All'", () => {
    expect(
      expandExpression('rate(x{instance=~"$instance"}[$__rate_interval]) + y{i=~"${instance}"}', {
        rateIntervalSeconds: 60,
        instance: '.*',
      }),
    ).toBe('rate(x{instance=~".*"}[60s]) + y{i=~".*"}');
  });
});

describe(legendName.name, () => {
  it('fills the legend format from the labels, or prints the labels without one', () => {
    expect(legendName('chain {{chain}} {{ state }}', { chain: '31337', state: 'signed' })).toBe(
      'chain 31337 signed',
    );
    expect(legendName(undefined, { __name__: 'up', job: 'ferry' })).toBe('up{job="ferry"}');
    expect(legendName('', {})).toBe('value');
  });
});

describe(parseRangeAnswer.name, () => {
  it("turns a query_range matrix into numbers, NaN kept (histogram_quantile's answer with no requests)", () => {
    const series = parseRangeAnswer({
      status: 'success',
      data: {
        result: [
          {
            metric: { route: '/chains' },
            values: [
              [100, '0.5'],
              [115, 'NaN'],
              [130, '+Inf'],
            ],
          },
        ],
      },
    });
    expect(series).toEqual([
      {
        labels: { route: '/chains' },
        points: [
          { t: 100, v: 0.5 },
          { t: 115, v: Number.NaN },
          { t: 130, v: Number.POSITIVE_INFINITY },
        ],
      },
    ]);
  });

  it("fails with Prometheus's error", () => {
    expect(() => parseRangeAnswer({ status: 'error', error: 'parse error' })).toThrow('parse error');
  });
});

describe('PromQL result → SVG path', () => {
  it('draws a line across the box, value 0 at the bottom and y1 at the top', () => {
    expect(linePath(points(0, 0.5, 1), scale, 30)).toBe('M0 100L100 50L200 0');
  });

  it('breaks the line at NaN and at gaps longer than the step allows (spanNulls off)', () => {
    expect(segments(points(1, Number.NaN, 1, 1), 30).map((run) => run.length)).toEqual([1, 2]);
    const gappy = [
      { t: 0, v: 0 },
      { t: 1, v: 0 },
      { t: 9, v: 1 },
    ];
    expect(linePath(gappy, scale, 5)).toBe('M0 100L20 100M180 0');
  });

  it('fills down to the bottom, or to the series below when stacked', () => {
    expect(areaPath(points(1, 1), scale, 30)).toBe('M0 0L100 0L100 100L0 100Z');
    const [lower, upper] = stackSeries([points(0.25, 0.25), points(0.5, 0.25)]);
    expect(upper!.points.map((p) => p.v)).toEqual([0.75, 0.5]);
    expect(upper!.base.map((p) => p.v)).toEqual([0.25, 0.25]);
    expect(lower!.base.map((p) => p.v)).toEqual([0, 0]);
    expect(areaPath(upper!.points, scale, 30, upper!.base)).toBe('M0 25L100 50L100 75L0 75Z');
  });

  it('chooses round ticks for values and whole minutes for time', () => {
    expect(niceTicks(0, 1)).toEqual([0, 0.25, 0.5, 0.75, 1]);
    expect(niceTicks(0, 114)).toEqual([0, 50, 100, 150]);
    expect(timeTicks(1000, 2200)).toEqual([1200, 1500, 1800, 2100]);
  });

  it('draws a threshold line only inside the values range, labels in the unit', () => {
    const chart = (threshold: number) =>
      chartSvg({
        width: 300,
        height: 120,
        t0: 0,
        t1: 600,
        maxGapSeconds: 30,
        unit: 's',
        min: 0,
        fillOpacity: 10,
        thresholds: [{ value: threshold, color: '#F2495C' }],
        series: [
          {
            name: 'lag',
            color: '#7EB26D',
            points: [
              { t: 0, v: 2 },
              { t: 15, v: 3 },
            ],
          },
        ],
      });
    expect(chart(2.5)).toContain('stroke="#F2495C"');
    expect(chart(60)).not.toContain('stroke="#F2495C"');
    expect(chart(60)).toContain('>3 s</text>');
    expect(chart(60)).toContain('fill-opacity="0.1"');
  });
});

describe(renderPage.name, () => {
  const dashboard = JSON.parse(
    readFileSync(new URL('../../../observability/grafana/dashboards/ferry.json', import.meta.url), 'utf8'),
  ) as Dashboard;
  const panels = flattenPanels(dashboard.panels);
  const html = renderPage({
    title: 'Ferry',
    note: 'drawn from a test',
    width: 1600,
    range: { start: 0, end: 600, step: 15 },
    panels: panels.map((panel) => ({
      panel,
      results:
        panel.title === 'Finality lag'
          ? [
              {
                legendFormat: 'chain {{chain}}',
                series: [{ labels: { chain: '31337' }, points: points(0, 1, 0) }],
              },
            ]
          : panel.title === 'CPU'
            ? [{ error: 'Prometheus refused it' }]
            : [{ series: [] }],
    })),
  });

  it('lays out every panel of the dashboard at its gridPos, self-contained, saying it is not Grafana', () => {
    for (const panel of panels) expect(html).toContain(`>${panel.title.replace('&', '&amp;')}</div>`);
    const box = gridBox(panels.find((panel) => panel.title === 'Finality lag')!.gridPos, 1568);
    expect(html).toContain(`left:${box.left}px;top:${box.top}px;width:${box.width}px;height:${box.height}px`);
    expect(html).toContain('not Grafana');
    expect(html).not.toMatch(/<script|<link|src="http/);
  });

  it("shows a stat panel's last value in its unit", () => {
    const stat: Panel = {
      id: 99,
      type: 'stat',
      title: 'Oldest',
      gridPos: { x: 0, y: 0, w: 4, h: 4 },
      fieldConfig: { defaults: { unit: 's' } },
    };
    const page = renderPage({
      title: 'Ferry',
      note: '',
      width: 1600,
      range: { start: 0, end: 10, step: 5 },
      panels: [{ panel: stat, results: [{ series: [{ labels: {}, points: points(120, 90, Number.NaN) }] }] }],
    });
    expect(page).toMatch(/<div class="stat"[^>]*>1.5 min<\/div>/);
  });

  it("shows a series with its legend and last value, 'No data' for an empty answer and a query's error", () => {
    expect(html).toContain('chain 31337 <b>last 0</b>');
    expect(html).toContain('<div class="empty"');
    expect(html).toContain('Prometheus refused it');
  });
});
