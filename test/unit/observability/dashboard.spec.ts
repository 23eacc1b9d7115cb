import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { startTestApp, type TestApp } from '../../support/app.js';
import { exposedSeriesNames, promqlSeriesNames } from '../../support/promql.js';

const root = new URL('../../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');
const exists = (path: string) => existsSync(new URL(path, root));

interface Target {
  readonly refId: string;
  readonly expr?: string;
  readonly datasource?: { readonly type?: string; readonly uid?: string };
}
interface Panel {
  readonly id: number;
  readonly type: string;
  readonly title: string;
  readonly datasource?: { readonly type?: string; readonly uid?: string } | null;
  readonly gridPos: { readonly x: number; readonly y: number; readonly w: number; readonly h: number };
  readonly targets?: readonly Target[];
  readonly panels?: readonly Panel[];
}
interface Dashboard {
  readonly schemaVersion: number;
  readonly uid: string;
  readonly panels: readonly Panel[];
  readonly templating: {
    readonly list: readonly { name: string; type: string; query: unknown; definition?: string }[];
  };
}
interface Rule {
  readonly alert?: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}

const dashboard = JSON.parse(read('observability/grafana/dashboards/ferry.json')) as Dashboard;
const panels = dashboard.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]);
const queryPanels = panels.filter((panel) => panel.type !== 'row');
const rules = (
  parse(read('observability/prometheus/alerts.yml')) as { groups: { rules: Rule[] }[] }
).groups.flatMap((group) => group.rules);
const DS = '${DS_PROMETHEUS}';

/** Every PromQL expression of the dashboard and the alerts, named by where it is. */
const expressions: [string, string][] = [
  ...queryPanels.flatMap((panel) =>
    (panel.targets ?? []).map((target): [string, string] => [
      `panel "${panel.title}" ${target.refId}`,
      target.expr ?? '',
    ]),
  ),
  ...dashboard.templating.list
    .filter((variable) => variable.type === 'query')
    .map((variable): [string, string] => [`variable $${variable.name}`, variable.definition ?? '']),
  ...rules.map((rule): [string, string] => [`alert ${rule.alert}`, rule.expr]),
];

describe(promqlSeriesNames.name, () => {
  it('finds the series under functions, aggregations, matchers, ranges, groupings and Grafana variables', () => {
    expect(
      promqlSeriesNames(
        'histogram_quantile(0.99, sum by (le, route) (rate(ferry_a_bucket{instance=~"$instance",status=~"5.."}[$__rate_interval])))',
      ),
    ).toEqual(['ferry_a_bucket']);
    expect(
      promqlSeriesNames(
        'max by (chain) (changes(ferry_b[15m])) == 0 and on (chain) ferry_c offset 30m > bool 1e3 unless ferry_d',
      ),
    ).toEqual(['ferry_b', 'ferry_c', 'ferry_d']);
    expect(promqlSeriesNames('label_values(ferry_e, instance)')).toEqual(['ferry_e']);
    expect(
      promqlSeriesNames('sum(rate(ferry_f[5m])) without (instance) / ignoring (x) group_left (y) ferry_g'),
    ).toEqual(['ferry_f', 'ferry_g']);
  });
});

describe('the Grafana dashboard and the Prometheus alerts', () => {
  let app: TestApp;
  let exported: Set<string>;

  beforeAll(async () => {
    app = await startTestApp({ PROJECTIONS_RUN: 'true' });
    const scrape = await app.http.inject({ method: 'GET', url: '/metrics' });
    expect(scrape.statusCode).toBe(200);
    exported = exposedSeriesNames(scrape.body);
  });
  afterAll(async () => app?.close());

  it('query only series that Ferry exports (GET /metrics, # TYPE lines)', () => {
    expect(exported).toContain('ferry_http_request_duration_seconds_bucket');
    expect(exported).toContain('ferry_process_cpu_seconds_total');
    const unknown: string[] = [];
    for (const [where, expression] of expressions) {
      const names = promqlSeriesNames(expression);
      if (names.length === 0) unknown.push(`${where}: no series in ${JSON.stringify(expression)}`);
      for (const name of names) if (!exported.has(name)) unknown.push(`${where}: ${name}`);
    }
    expect(unknown).toEqual([]);
  });

  it('show every series Ferry exports, except the Node internals left to Grafana Explore', () => {
    const used = new Set(expressions.flatMap(([, expression]) => promqlSeriesNames(expression)));
    const unused = [...exported].filter(
      (name) =>
        !used.has(name) &&
        !/^ferry_(process|nodejs)_/.test(name) &&
        !/^ferry_http_request_duration_seconds_sum$/.test(name),
    );
    expect(unused).toEqual([]);
  });
});

describe('the Grafana dashboard', () => {
  it('has a schema Grafana 10+ reads, the six rows in order and unique panel ids', () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(38);
    expect(dashboard.uid).toBe('ferry');
    expect(panels.filter((panel) => panel.type === 'row').map((row) => row.title)).toEqual([
      'Traffic',
      'Projections',
      'Webhooks',
      'Solver & journal',
      'Chains',
      'Process',
    ]);
    const ids = panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => Number.isInteger(id) && id > 0)).toBe(true);
  });

  it('gives every panel and target the Prometheus data source of its DS_PROMETHEUS variable', () => {
    expect(dashboard.templating.list).toContainEqual(
      expect.objectContaining({ name: 'DS_PROMETHEUS', type: 'datasource', query: 'prometheus' }),
    );
    for (const panel of panels)
      expect([panel.title, panel.datasource]).toEqual([panel.title, { type: 'prometheus', uid: DS }]);
    for (const panel of queryPanels) {
      expect([panel.title, (panel.targets ?? []).length > 0]).toEqual([panel.title, true]);
      for (const target of panel.targets ?? [])
        expect([panel.title, target.datasource]).toEqual([panel.title, { type: 'prometheus', uid: DS }]);
    }
  });

  it('lays panels out on the 24-column grid without overlaps', () => {
    const cells = new Map<string, string>();
    for (const panel of panels) {
      const { x, y, w, h } = panel.gridPos;
      expect([panel.title, x >= 0 && w > 0 && x + w <= 24 && h > 0]).toEqual([panel.title, true]);
      for (let column = x; column < x + w; column++)
        for (let line = y; line < y + h; line++) {
          const cell = `${column},${line}`;
          expect([panel.title, cells.get(cell)]).toEqual([panel.title, undefined]);
          cells.set(cell, panel.title);
        }
    }
  });
});

describe('the Prometheus alerts', () => {
  const table = read('docs/operations.md').split('### What each alert means')[1]?.split('\n## ')[0] ?? '';

  it('are named, with a severity, a summary and a valid for', () => {
    expect(rules.length).toBeGreaterThan(0);
    const names = rules.map((rule) => rule.alert);
    expect(new Set(names).size).toBe(names.length);
    for (const rule of rules) {
      expect(rule.alert).toMatch(/^Ferry[A-Za-z]+$/);
      expect([rule.alert, rule.labels?.severity]).toEqual([
        rule.alert,
        expect.stringMatching(/^(warning|critical)$/),
      ]);
      expect([rule.alert, typeof rule.annotations?.summary]).toEqual([rule.alert, 'string']);
      if (rule.for !== undefined)
        expect([rule.alert, rule.for]).toEqual([rule.alert, expect.stringMatching(/^\d+[smh]$/)]);
    }
  });

  it("are the rows of docs/operations.md's table, each with its series", () => {
    const rows = table.split('\n').filter((line) => /^\| `/.test(line));
    expect(rules).toHaveLength(rows.length);
    for (const rule of rules)
      for (const name of promqlSeriesNames(rule.expr))
        expect([rule.alert, table.includes(name)]).toEqual([rule.alert, true]);
  });
});

describe('the observability compose profile', () => {
  const compose = parse(read('docker-compose.yml')) as {
    services: Record<
      string,
      { image?: string; profiles?: string[]; volumes?: string[]; tmpfs?: string[]; ports?: string[] }
    >;
  };
  const prometheus = parse(read('observability/prometheus/prometheus.yml')) as {
    rule_files: string[];
    scrape_configs: {
      metrics_path: string;
      authorization?: { type: string; credentials_file: string };
      static_configs: { targets: string[] }[];
    }[];
  };

  it('starts Prometheus and Grafana on pinned images with the files of observability/ mounted', () => {
    for (const name of ['prometheus', 'grafana']) {
      const service = compose.services[name];
      expect(service?.profiles).toEqual(['observability']);
      expect(service?.image).toMatch(/^(prom\/prometheus|grafana\/grafana):v?\d+\.\d+\.\d+$/);
      for (const volume of service?.volumes ?? []) {
        const source = volume.split(':')[0] ?? '';
        if (source.startsWith('./')) expect([volume, exists(source)]).toEqual([volume, true]);
      }
    }
    const grafanaVolumes = compose.services.grafana?.volumes ?? [];
    const provisioning = parse(read('observability/grafana/provisioning/dashboards/ferry.yml')) as {
      providers: { options: { path: string } }[];
    };
    expect(grafanaVolumes).toContain(
      `./observability/grafana/dashboards:${provisioning.providers[0]?.options.path}:ro`,
    );
  });

  it("scrapes the api service's /metrics with the bearer token file the compose file writes, and loads alerts.yml", () => {
    const [job] = prometheus.scrape_configs;
    expect(job?.metrics_path).toBe('/metrics');
    expect(job?.static_configs[0]?.targets).toEqual([
      `api:${compose.services.api?.ports?.[0]?.split(':')[1]}`,
    ]);
    expect(job?.authorization?.type).toBe('Bearer');
    const tokenFile = job?.authorization?.credentials_file ?? '';
    expect(compose.services.prometheus?.tmpfs).toContain(tokenFile.slice(0, tokenFile.lastIndexOf('/')));
    expect(prometheus.rule_files).toEqual(['alerts.yml']);
    expect(compose.services.prometheus?.volumes).toContain(
      './observability/prometheus/alerts.yml:/etc/prometheus/alerts.yml:ro',
    );
  });
});
