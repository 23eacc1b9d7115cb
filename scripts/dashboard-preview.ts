import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type Dashboard, expandExpression, flattenPanels } from './dashboard-preview/dashboard.js';
import { gridHeight } from './dashboard-preview/grid-layout.js';
import { queryRange } from './dashboard-preview/prometheus-api.js';
import { renderPage, type TargetResult } from './dashboard-preview/render-page.js';
import { repositoryRoot } from './devnet/local-chain.js';

const USAGE = `npm run dashboard:preview -- [options]

Draws the panels of the Grafana dashboard from their own PromQL targets, run against a Prometheus's HTTP API
(query_range), as one self-contained HTML page laid out by each panel's gridPos; with --png, screenshots it with
headless Chromium. This is not Grafana (docs/operations.md, "Dashboard").

  --prometheus <url>       the Prometheus (default $PROMETHEUS_URL or http://127.0.0.1:9090)
  --minutes <n>            the time range, ending at --end (default 20)
  --end <time>             ISO 8601 or seconds since the epoch (default now)
  --step <seconds>         the range queries' step (default 15, the scrape interval)
  --scrape-interval <s>    for $__rate_interval = max(4 × scrape interval, step + scrape interval) (default 15)
  --source <text>          what Prometheus scraped, for the note at the top
  --html <path>            where to write the page (default dashboard-preview.html)
  --png <path>             also screenshot the page there (Debian's chromium; then pngquant and optipng when installed)
  --dashboard <path>       default observability/grafana/dashboards/ferry.json
`;

const WIDTH = 1600;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      prometheus: { type: 'string', default: process.env.PROMETHEUS_URL || 'http://127.0.0.1:9090' },
      minutes: { type: 'string', default: '20' },
      end: { type: 'string' },
      step: { type: 'string', default: '15' },
      'scrape-interval': { type: 'string', default: '15' },
      source: { type: 'string', default: 'a Prometheus scraping Ferry' },
      html: { type: 'string', default: 'dashboard-preview.html' },
      png: { type: 'string' },
      dashboard: {
        type: 'string',
        default: join(repositoryRoot(), 'observability/grafana/dashboards/ferry.json'),
      },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return void process.stdout.write(USAGE);
  const end = values.end ? endTime(values.end) : Math.floor(Date.now() / 1000);
  const step = Number(values.step);
  const scrape = Number(values['scrape-interval']);
  const range = { start: end - Number(values.minutes) * 60, end, step };
  const variables = { rateIntervalSeconds: Math.max(4 * scrape, step + scrape), instance: '.*' };
  const dashboard = JSON.parse(readFileSync(values.dashboard, 'utf8')) as Dashboard;

  const panels = await Promise.all(
    flattenPanels(dashboard.panels).map(async (panel) => ({
      panel,
      results: await Promise.all(
        (panel.targets ?? [])
          .filter((target) => !target.hide && target.expr)
          .map(async (target): Promise<TargetResult> => {
            const expression = expandExpression(target.expr!, variables);
            try {
              return {
                legendFormat: target.legendFormat,
                series: await queryRange(values.prometheus, expression, range),
              };
            } catch (error) {
              return { legendFormat: target.legendFormat, error: (error as Error).message };
            }
          }),
      ),
    })),
  );
  for (const { panel, results } of panels) {
    if (panel.type === 'row') continue;
    const counts = results.map((result) => (result.error ? `error: ${result.error}` : result.series?.length));
    process.stdout.write(`${panel.title}: ${counts.join(', ')} series\n`);
  }

  const iso = (t: number) => new Date(t * 1000).toISOString().slice(0, 16).replace('T', ' ');
  const note =
    `Each panel is a panel of ${values.dashboard.replace(`${repositoryRoot()}/`, '')} drawn by ` +
    `scripts/dashboard-preview.ts from the panel's own PromQL targets, run against ${values.source} ` +
    `(query_range ${iso(range.start)}–${iso(range.end)} UTC, step ${step} s, $__rate_interval ` +
    `${variables.rateIntervalSeconds}s, instance All), laid out by its gridPos, values in its fieldConfig unit. ` +
    `Grafana itself was not run (not installable here); it draws the same queries with its own styling. ` +
    `Legends add each series' last value.`;
  const html = renderPage({ title: dashboard.title, note, width: WIDTH, range, panels });
  writeFileSync(values.html, html);
  process.stdout.write(`Wrote ${values.html} (${html.length} bytes)\n`);
  if (values.png)
    screenshot(resolve(values.html), values.png, 96 + 32 + gridHeight(panels.map((p) => p.panel.gridPos)));
}

function endTime(text: string): number {
  const value = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Date.parse(text) / 1000;
  if (!Number.isFinite(value))
    throw new Error(`--end needs ISO 8601 or seconds since the epoch (got ${text})`);
  return Math.floor(value);
}

/** Headless Chromium's screenshot of the page at its full height, with a throwaway profile and no network. */
function screenshot(htmlPath: string, pngPath: string, height: number): void {
  const profile = mkdtempSync(join(tmpdir(), 'ferry-preview-chromium-'));
  try {
    const result = spawnSync(
      'chromium',
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--hide-scrollbars',
        `--user-data-dir=${profile}`,
        `--screenshot=${resolve(pngPath)}`,
        `--window-size=${WIDTH},${height}`,
        `file://${htmlPath}`,
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
    if (result.status !== 0) throw new Error(`chromium failed (${result.status}): ${result.stderr}`);
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
  // Chromium's PNG of this page is about 550 KB. pngquant (a 256-colour palette, lossy but sharp on flat panels)
  // and optipng (lossless) from Debian bring it to about 215 KB; each is skipped when it is not installed.
  for (const [tool, args] of [
    ['pngquant', ['--quality=70-95', '--speed=1', '--force', '--output', pngPath, pngPath]],
    ['optipng', ['-quiet', '-o2', pngPath]],
  ] as const) {
    const run = spawnSync(tool, args, { encoding: 'utf8', timeout: 300_000 });
    if (run.error || run.status !== 0)
      process.stdout.write(`${tool} not applied (${run.error?.message ?? run.stderr})\n`);
  }
  process.stdout.write(`Wrote ${pngPath} (${statSync(pngPath).size} bytes)\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
