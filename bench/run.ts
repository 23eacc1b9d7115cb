import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import { APPEND_WRITERS, type AppendFigures, runAppendBench } from './append.bench.js';
import { type CatchUpFigures, runCatchUpBench } from './catch-up.bench.js';
import {
  type HttpFloorFigures,
  type RouteFigure,
  runHttpFloorBench,
  SAMPLED_RATIO,
} from './http-floor.bench.js';
import { type RebuildFigures, runRebuildBench } from './rebuild.bench.js';
import { type RequestsHistoryFigures, runRequestsHistoryBench } from './requests-history.bench.js';
import { measureDepositAddressScan } from './deposit-address-scan.bench.js';
import { measureJournalCost } from './journal.bench.js';
import { measureMetricsScrape } from './metrics-scrape.bench.js';
import { type OracleFigures, runOracleBench } from './oracle.bench.js';
import { runSettlementBench, type SettlementFigures } from './settlement.bench.js';
import { seedLog, type SeededLog, waitUntilReadable } from './seed-log.js';
import {
  benchScale,
  formatInteger,
  formatMarkdownTable,
  formatMs,
  formatTable,
  loadAverage,
  type MachineInfo,
  machineInfo,
  now,
  type ScratchDatabase,
  withScratchDatabase,
  write,
} from './support.js';
import { runWebhooksBench, type WebhooksFigures } from './webhooks.bench.js';

/**
 * Every benchmark figure, measured in one process against scratch databases on the local PostgreSQL server:
 * `npm run bench` (`BENCH_SCALE` scales every workload; `BENCH_ONLY=foundation|requests|webhooks|settlement|http|oracle` runs one group;
 * `BENCH_RESULTS_FILE=bench/RESULTS.md` also writes the Markdown summary). Targets are reported as PASS/MISS, never
 * asserted: the process exits 0 unless a run fails.
 */

const TARGETS = {
  appendEventsPerSecond: 5_000,
  appendRatio: 0.8,
  catchUpEventsPerSecond: 100_000,
  rebuildEventsPerSecond: 50_000,
  requestsRebuildEventsPerSecond: 20_000,
  historyP99Ms: 20,
  /** Issue 14 goal 4: GET /requests/v3 ÷ Ferry's floor (its 404 or no-op route), on the 1M-request history. */
  historyFloorRatio: 0.3,
  webhookDeliveriesPerSecond: 1_000,
  webhookP99Ms: 500,
  settlementP99Ms: 2_000,
  floorRatio: 0.5,
  healthRatio: 0.5,
  infoLogRatio: 0.8,
  tracingRatio: 0.9,
  oracleFanOutRatio: 0.33,
} as const;

type Unit = 'events/s' | 'ratio' | 'ms' | 'deliveries/s' | 'requests/s' | 'attestations/s';

interface Figure {
  readonly name: string;
  readonly measured: number;
  /** `min`: at least the target; `max`: below it; `info`: no target (reported for context). */
  readonly kind: 'min' | 'max' | 'info';
  readonly target: number;
  readonly unit: Unit;
}

interface Group {
  readonly title: string;
  readonly figures: readonly Figure[];
  /** Plain-text lines printed under the table, and Markdown bullets in RESULTS.md. */
  readonly details: readonly string[];
  /** What each figure measures and how it is measured (RESULTS.md). */
  readonly method: readonly string[];
  /** What limits a figure and what would change it (RESULTS.md and the console). */
  readonly findings?: readonly string[];
}

const formatValue = (value: number, unit: Unit): string =>
  unit === 'ratio'
    ? value.toFixed(3)
    : unit === 'ms'
      ? formatMs(value)
      : unit === 'requests/s'
        ? `${value.toFixed(1)} ${unit}`
        : `${formatInteger(value)} ${unit}`;

/** Rounded against the figure (down for ≥ targets, up for < targets), so a miss never reads 1.00x. */
function timesTarget(figure: Figure): string {
  if (figure.kind === 'info') return '—';
  const ratio = (100 * figure.measured) / figure.target;
  return `${((figure.kind === 'min' ? Math.floor(ratio) : Math.ceil(ratio)) / 100).toFixed(2)}x`;
}

function result(figure: Figure): string {
  if (figure.kind === 'info') return 'info';
  const pass = figure.kind === 'min' ? figure.measured >= figure.target : figure.measured < figure.target;
  return pass ? 'PASS' : 'MISS';
}

const figureRows = (figures: readonly Figure[]): string[][] =>
  figures.map((figure) => [
    figure.name,
    formatValue(figure.measured, figure.unit),
    figure.kind === 'info'
      ? '—'
      : `${figure.kind === 'min' ? '≥' : '<'} ${formatValue(figure.target, figure.unit)}`,
    timesTarget(figure),
    result(figure),
  ]);

const HEADERS = ['Figure', 'Measured', 'Target', 'Measured/target', 'Result'];

const cpuText = (nodeMs: number, postgresMs: number | null): string =>
  `Node ${formatInteger(nodeMs)} ms` +
  (postgresMs === null ? '' : `, PostgreSQL ${formatInteger(postgresMs)} ms`);

// ---------------------------------------------------------------------------------------------------------------
// Foundation

async function foundation(
  scale: number,
  onMachine: (scratch: ScratchDatabase) => Promise<void>,
): Promise<Group> {
  const sizes = {
    appendEvents: Math.max(APPEND_WRITERS * 10, Math.round(20_000 * scale)),
    appendWarmup: Math.max(APPEND_WRITERS * 10, Math.round(4_000 * scale)),
    appendRounds: 6,
    logEvents: Math.max(10_000, Math.round(100_000 * scale)),
    pageSize: 5_000,
    batchSize: 5_000,
    readRounds: 3,
    rebuildRounds: 3,
  };
  write(
    `[foundation 1/3] Appends: ${APPEND_WRITERS} writers, 1–3 events per append, exact expected revisions, ` +
      `${formatInteger(sizes.appendEvents)} events per round, ${sizes.appendRounds} alternating pairs of rounds`,
  );
  const append: AppendFigures = await withScratchDatabase(APPEND_WRITERS, async (scratch) => {
    await onMachine(scratch);
    return runAppendBench(scratch.db, {
      events: sizes.appendEvents,
      warmupEvents: sizes.appendWarmup,
      rounds: sizes.appendRounds,
    });
  });

  const { catchUp, rebuild, seeded } = await withScratchDatabase(4, async (scratch) => {
    write();
    write(`Seeding a log of ${formatInteger(sizes.logEvents)} events (INSERT … SELECT generate_series)…`);
    const seedStarted = now();
    const log: SeededLog = await seedLog(scratch.db, sizes.logEvents);
    write(
      `  ${formatInteger(log.events)} events in ${formatInteger(log.streams)} streams, ` +
        `${log.tableMiB.toFixed(0)} MiB with indexes, seeded in ${((now() - seedStarted) / 1000).toFixed(1)} s`,
    );
    await waitUntilReadable(scratch.db, log.events);
    write();
    write(
      `[foundation 2/3] Catch-up read: PostgresEventStore.readAll from START, pages of ${sizes.pageSize}`,
    );
    const catchUpFigures: CatchUpFigures = await runCatchUpBench(scratch.db, scratch.url, log.events, {
      pageSize: sizes.pageSize,
      rounds: sizes.readRounds,
    });
    write();
    write(`[foundation 3/3] Rebuild: rebuildProjection(stream-summaries), batches of ${sizes.batchSize}`);
    const rebuildFigures: RebuildFigures = await runRebuildBench(scratch.db, log.events, log.streams, {
      batchSize: sizes.batchSize,
      rounds: sizes.rebuildRounds,
    });
    return { catchUp: catchUpFigures, rebuild: rebuildFigures, seeded: log };
  });

  const experimentalCatchUp = catchUp.profile[catchUp.profile.length - 1].eventsPerSecond;
  const share = (row: { label: string; ms: number }) =>
    `${row.label.replace(/^sql: /, '')} ${((100 * row.ms) / rebuild.profileTotalMs).toFixed(0)}%`;
  return {
    title: 'Foundation',
    figures: [
      {
        name: `Append, event store (${APPEND_WRITERS} writers)`,
        measured: append.eventStore.eventsPerSecond,
        kind: 'min',
        target: TARGETS.appendEventsPerSecond,
        unit: 'events/s',
      },
      {
        name: 'Append, event store ÷ raw INSERT',
        measured: append.ratio,
        kind: 'min',
        target: TARGETS.appendRatio,
        unit: 'ratio',
      },
      {
        name: `Catch-up read (readAll, pages of ${catchUp.pageSize})`,
        measured: catchUp.eventsPerSecond,
        kind: 'min',
        target: TARGETS.catchUpEventsPerSecond,
        unit: 'events/s',
      },
      {
        name: `Rebuild stream-summaries (batches of ${rebuild.batchSize})`,
        measured: rebuild.eventsPerSecond,
        kind: 'min',
        target: TARGETS.rebuildEventsPerSecond,
        unit: 'events/s',
      },
    ],
    details: [
      `Appends: ${append.writers} writers, 1–3 events per append, exact expected revisions, ` +
        `${formatInteger(append.eventsPerRound)} events per round, ${append.eventStore.rounds.length} back-to-back ` +
        `pairs in alternating order (events/s = median round, ratio = median of pair ratios). Raw INSERT baseline ` +
        `${formatInteger(append.raw.eventsPerSecond)} events/s. Latency p50/p99 ` +
        `${formatMs(append.eventStore.p50Ms)} / ${formatMs(append.eventStore.p99Ms)} vs ` +
        `${formatMs(append.raw.p50Ms)} / ${formatMs(append.raw.p99Ms)}. CPU per append: ${appendCpu(append)}.`,
      `Catch-up: ${formatInteger(rebuild.events)} events in ${formatInteger(seeded.streams)} streams, pages of ` +
        `${catchUp.pageSize}, median of ${catchUp.passes.length} passes; page latency p50/p99 ` +
        `${formatMs(catchUp.pageP50Ms)} / ${formatMs(catchUp.pageP99Ms)}; CPU per 100,000 events ` +
        `${cpuText(catchUp.nodeMsPer100k, catchUp.postgresMsPer100k)}. By variant (best of two): ` +
        catchUp.profile
          .map(
            (step) =>
              `${step.label} ${formatInteger(step.eventsPerSecond)} events/s ` +
              `(Node ${formatInteger(step.nodeMsPer100k)} ms)`,
          )
          .join('; ') +
        `. With the experimental read path: ${formatInteger(experimentalCatchUp)} events/s.`,
      `Rebuild: ${formatInteger(rebuild.rows)} rows, median of ${rebuild.secondsPerRound.length} rounds timed end to ` +
        `end; CPU per round ${cpuText(rebuild.cpu.nodeMs, rebuild.cpu.postgresMs)}. Time shares: ` +
        rebuild.profile
          .slice(0, 3)
          .concat(rebuild.profile[rebuild.profile.length - 1])
          .map(share)
          .join('; ') +
        `. With the experimental read path: ${formatInteger(rebuild.experimentEventsPerSecond)} events/s ` +
        `(CPU ${cpuText(rebuild.experimentCpu.nodeMs, rebuild.experimentCpu.postgresMs)}).`,
    ],
    method: [
      '**Append**: 16 writers append to their own streams through `PostgresEventStore.appendToStream` with exact ' +
        'expected revisions, against the same batches as plain multi-row INSERTs into a bare table; alternating ' +
        'back-to-back pairs of rounds.',
      '**Catch-up read**: `readAll` page by page from START over a seeded log of interleaved streams (`seed-log.ts`).',
      '**Rebuild stream-summaries**: `rebuildProjection` of the stream-summaries projection over that log, end to end.',
    ],
  };
}

function appendCpu(append: AppendFigures): string {
  const side = (name: string, nodeUs: number, postgresUs: number | null) =>
    `${name} Node ${formatInteger(nodeUs)} µs` +
    (postgresUs === null ? '' : ` + PostgreSQL ${formatInteger(postgresUs)} µs`);
  const text =
    `${side('event store', append.eventStore.nodeUsPerAppend, append.eventStore.postgresUsPerAppend)}; ` +
    side('raw INSERT', append.raw.nodeUsPerAppend, append.raw.postgresUsPerAppend);
  if (append.eventStore.postgresUsPerAppend === null || append.raw.postgresUsPerAppend === null) return text;
  const cost =
    (append.raw.nodeUsPerAppend + append.raw.postgresUsPerAppend) /
    (append.eventStore.nodeUsPerAppend + append.eventStore.postgresUsPerAppend);
  return `${text} (CPU-cost ratio raw/event store ${cost.toFixed(2)})`;
}

// ---------------------------------------------------------------------------------------------------------------
// Requests (issue 3)

const envNumber = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${name} must be a positive number (got "${raw}")`);
  return value;
};

async function requests(
  scale: number,
  onMachine: (scratch: ScratchDatabase) => Promise<void>,
): Promise<Group> {
  const options = {
    requests: Math.max(20_000, Math.round(1_000_000 * scale)),
    chunk: 20_000,
    batchSize: envNumber('BENCH_REBUILD_BATCH_SIZE', 5_000),
    warmupRounds: 20,
    rounds: Math.max(200, Math.round(envNumber('BENCH_QUERY_ROUNDS', 200))),
    connections: 16,
    throughputSeconds: 5,
  };
  write(
    `[requests] A history of ${formatInteger(options.requests)} requests generated through events; rebuild of ` +
      `requests-v3 + requests-v2; GET /requests/v3 latency and throughput`,
  );
  const scrapeOptions = {
    apiKeys: 10_000,
    doneJobs: Math.max(10_000, Math.round(1_000_000 * scale)),
    openJobs: 20,
    deliveries: Math.max(5_000, Math.round(500_000 * scale)),
    attemptsPerDelivery: 2,
    scrapes: 100,
  };
  const { figures, scrape } = await withScratchDatabase(8, async (scratch) => {
    await onMachine(scratch);
    const history = await runRequestsHistoryBench(scratch, options);
    return { figures: history, scrape: await measureMetricsScrape(scratch, scrapeOptions) };
  });
  const { rebuild } = figures;
  const profile = rebuild.profile.map((row) => `${row.label} ${(100 * row.share).toFixed(0)}%`).join(', ');
  const { throughput } = figures;
  return {
    title: 'Requests (issue 3)',
    figures: [
      {
        name: `Rebuild requests-v3 + requests-v2 together (batches of ${figures.batchSize})`,
        measured: rebuild.eventsPerSecond,
        kind: 'min',
        target: TARGETS.requestsRebuildEventsPerSecond,
        unit: 'events/s',
      },
      ...figures.queries.map((query): Figure => ({
        name: `GET /requests/v3 p99: ${query.name}`,
        measured: query.p99Ms,
        kind: 'max',
        target: TARGETS.historyP99Ms,
        unit: 'ms',
      })),
      ...[throughput.cheapest, throughput.defaultListing].flatMap((rate): Figure[] => [
        {
          name: `GET /requests/v3 "${rate.name}" ÷ Ferry's 404 (req/s, ${throughput.connections} connections)`,
          measured: rate.ratioToNotFound,
          kind: 'min',
          target: TARGETS.historyFloorRatio,
          unit: 'ratio',
        },
        {
          name: `GET /requests/v3 "${rate.name}" ÷ GET /bench/noop`,
          measured: rate.ratioToNoop,
          kind: 'min',
          target: TARGETS.historyFloorRatio,
          unit: 'ratio',
        },
      ]),
      {
        name: `GET /metrics p99, ${formatInteger(scrape.seeded.apiKeys)} API keys, ${formatInteger(figures.seeded.requests)} requests`,
        measured: scrape.p99Ms,
        kind: 'info',
        target: 0,
        unit: 'ms',
      },
    ],
    details: [
      `History: ${formatInteger(figures.seeded.requests)} requests, ${formatInteger(figures.seeded.events)} events ` +
        `(${(figures.seeded.events / figures.seeded.requests).toFixed(2)} per request, from ${figures.seeded.templates} ` +
        `event templates), ${formatInteger(figures.seeded.eventsMiB)} MiB with indexes, generated in ` +
        `${figures.seeded.seconds.toFixed(0)} s (${formatInteger(figures.seeded.events / figures.seeded.seconds)} ` +
        `events/s); 1,000 sampled streams fold through the aggregate's evolve() (${Object.entries(
          figures.sampleStatuses,
        )
          .map(([status, count]) => `${status} ${count}`)
          .join(
            ', ',
          )}). requests_v3: ${formatInteger(figures.rows)} rows, ${formatInteger(figures.listed)} listed (` +
        Object.entries(figures.statuses)
          .map(([status, count]) => `${status} ${formatInteger(count)}`)
          .join(', ') +
        ').',
      `Rebuild: ${formatInteger(2 * rebuild.events)} events applied (the log's ${formatInteger(rebuild.events)} ` +
        `to each projection) in ${rebuild.seconds.toFixed(1)} s from the start of the log to both generations ` +
        `indexed and swapped in (indexing ${rebuild.indexSeconds.toFixed(1)} s of it). Time: ${profile}. CPU: Node ` +
        `${(100 * figures.rebuildNodeShare).toFixed(0)}% of one core` +
        (figures.rebuildMachineShare === null
          ? ''
          : `, machine ${(100 * figures.rebuildMachineShare).toFixed(0)}% of ${os.cpus().length} cores`) +
        `; per 1,000 events applied: Node ${((1000 * figures.rebuildCpu.nodeMs) / (2 * rebuild.events)).toFixed(1)} ms` +
        (figures.rebuildCpu.postgresMs === null
          ? ''
          : `, PostgreSQL backends ${((1000 * figures.rebuildCpu.postgresMs) / (2 * rebuild.events)).toFixed(1)} ms`) +
        '.',
      `Rows check: ${formatInteger(figures.compared.v3)} requests-v3 and ${formatInteger(figures.compared.v2)} ` +
        'requests-v2 rows from the middle of the history, as the rebuild wrote them, equal column by column the rows ' +
        "the generator's templates fold to.",
      `GET /requests/v3 (p50 / p99, ${figures.rounds} requests each, rows, answer size): ` +
        figures.queries
          .map(
            (query) =>
              `${query.name} ${formatMs(query.p50Ms)} / ${formatMs(query.p99Ms)} (${query.rows}, ` +
              `${formatInteger(query.bytes / 1024)} KiB)`,
          )
          .join('; ') +
        '.',
      `Throughput (${throughput.connections} keep-alive connections, ${throughput.seconds} s runs, median of two): ` +
        [throughput.cheapest, throughput.defaultListing, throughput.notFound, throughput.noop]
          .map(
            (rate) =>
              `${'name' in rate ? `"${rate.name}"` : rate.path} ${formatInteger(rate.perSecond)} requests/s ` +
              `(p99 ${formatMs(rate.p99Ms)})`,
          )
          .join(', ') +
        '.',
      `GET /metrics (issue 16) on the same database with ${formatInteger(scrape.seeded.apiKeys)} API keys, ` +
        `${formatInteger(scrape.seeded.solverJobs)} solver jobs (${scrapeOptions.openJobs} open), ` +
        `${formatInteger(scrape.seeded.deliveries)} delivered webhook deliveries and ` +
        `${formatInteger(scrape.seeded.attempts)} attempts added (${scrape.seeded.seconds.toFixed(0)} s): first scrape ` +
        `${formatMs(scrape.firstMs)}, then p50 ${formatMs(scrape.p50Ms)}, p99 ${formatMs(scrape.p99Ms)}, max ` +
        `${formatMs(scrape.maxMs)} over ${scrapeOptions.scrapes} sequential scrapes (${formatInteger(scrape.samples)} ` +
        `samples, ${formatInteger(scrape.bytes / 1024)} KiB); the same app's 404 p50 ${formatMs(scrape.notFoundP50Ms)}.`,
    ],
    findings: requestsFindings(figures),
    method: [
      '**History**: `bench/seed-requests.ts`. Each (shape, outcome) of request — same-chain or not, USDC or ETH out, ' +
        'app fee or not, deposit address or not, paid to the user or to another wallet; × 10 outcomes: success (70%), ' +
        'success through the execute path (3%), quote expired (10%), quote only (2%), fill failed then refunded (4%), ' +
        'fill deadline expired then refunded (2%), deposit confirmation timeout (2%), refund failed (1%), pending (3%), ' +
        'submitted (3%) — is taken once through `decide`/`evolve` from `sampleQuote`/`sampleLifecycle`, so its events ' +
        'are exactly what the app stores. Every value that differs per request (ids, wallets, tx hashes, chains, ' +
        'currencies, amounts, times, API key, referrer) becomes a `format()` placeholder, and one `INSERT … SELECT` ' +
        'over `generate_series` per chunk of 20,000 requests (one transaction each, two at a time) writes the events ' +
        'in time order (streams interleave) and `event_streams`. 8 chains, about 20 requests per wallet, 6 API keys ' +
        '(60% of quotes), amounts of 1–1,000 USDC. Each chunk is checked for consecutive revisions in log order; 1,000 ' +
        'sampled streams are read back through the event store, decoded with the app registry and folded through ' +
        '`evolve`.',
      '**Rebuild rate**: what `npm run cli -- projections:rebuild requests-v3 requests-v2` does: ' +
        '`rebuildProjections` gives each a fresh generation (primary key only), reads the log once in batches of ' +
        '`BENCH_REBUILD_BATCH_SIZE` (5,000), folds each batch once through the fold the two share ' +
        '(`evolveRequestRecord`) and writes both tables and both checkpoints in one transaction per batch; once ' +
        'caught up it builds the secondary indexes, applies what arrived meanwhile and swaps both in. Rate = events ' +
        'applied to the two projections ÷ wall time of the whole rebuild, indexing and swap included.',
      '**Rows check**: `compareProjectionRows` builds, for 5,000 requests from the middle of the history, the rows ' +
        "each (shape, outcome) folds to through the projection's own `evolve` and column functions (values " +
        'substituted) and compares them column by column with the rebuilt rows.',
      '**Query latency**: the real app (`createApp`, Fastify, `PROJECTIONS_RUN=false`) on that database, an API key ' +
        'from `ApiKeysService.create`; ten typical queries over HTTP from a worker thread, one keep-alive connection, ' +
        '20 warm-up rounds then 200 measured rounds, each round sending every query once (so machine noise spreads ' +
        'evenly). The deep continuation is built as the repository builds it (sort value and id of row 20,000 in ' +
        'the default order, under the query digest) and checked to start at row 20,001.',
      '**Throughput ratios** (issue 14 goal 4: ≥ 0.3 on the 1M-request history): the cheapest query (lowest p50) ' +
        "and the default listing (`?limit=20`, 20 rows) against Ferry's cheapest routes in the same app: the 404 of " +
        'an unknown route and `GET /bench/noop` (a fixture module passed as `extraModules`, same global pipes and ' +
        'filters, no guard); 16 keep-alive connections, 1 s warm-up + 5 s, the four routes alternating, two runs ' +
        'each; ratios of the medians. The app-fee accrual is off in this app (`APP_FEES_RUN=false`), as are the ' +
        'projections and webhooks: nothing else folds the log while the queries are timed. The load generator is a ' +
        'worker thread of the same process and shares the two cores with the app and PostgreSQL.',
      '**`GET /metrics` scrape time** (`bench/metrics-scrape.bench.ts`): after the figures above, on the same ' +
        'database, API keys, finished and open solver jobs, delivered webhook deliveries and their attempts are ' +
        "added with `generate_series` (the tables the gauges read), then the real app's `/metrics` is scraped once " +
        '(the first scrape, cold) and 100 times more in sequence over one keep-alive connection, as Prometheus ' +
        'scrapes a target, each followed by a 404 of the same app for comparison.',
    ],
  };
}

function requestsFindings(figures: RequestsHistoryFigures): string[] {
  const insert = figures.rebuild.profile.filter((row) => row.label.startsWith('INSERT'));
  const insertShare = insert.reduce((sum, row) => sum + row.share, 0);
  return [
    `The upserts are ${(100 * insertShare).toFixed(0)}% of the rebuild's time: each request row carries its whole ` +
      'record as `state` (about 7 KB of JSON, of which about 40% is the same currency objects repeated in every ' +
      'amount), parsed by PostgreSQL into jsonb and compressed (lz4) once per table. What got the rate here, ' +
      'measured on 100,000 requests on this machine: rows sent as one JSON document read by `json_to_recordset` ' +
      'instead of one escaped array parameter per column, lz4 instead of pglz, and secondary indexes built once ' +
      'after the fill instead of maintained through every upsert (3,900 → 19,400 events/s with the two rebuilt side ' +
      'by side); then one read and one fold for both instead of two (this figure). Next, if needed: store amounts ' +
      'with a reference to their currency instead of a copy (about 40% less JSON per row).',
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// Webhooks (issue 6)

async function webhooks(
  scale: number,
  onMachine: (scratch: ScratchDatabase) => Promise<void>,
): Promise<Group> {
  const options = {
    deliveries: Math.max(2_000, Math.round(20_000 * scale)),
    batchSize: envNumber('BENCH_WEBHOOK_BATCH_SIZE', 200),
    ratePerSecond: 50,
    latencySeconds: Math.max(5, Math.round(20 * Math.min(1, scale))),
    latencyWithProjections: process.env.BENCH_WEBHOOK_LATENCY_PROJECTIONS !== 'false',
  };
  write(
    `[webhooks] About ${formatInteger(options.deliveries)} deliveries queued at once; ${options.ratePerSecond} ` +
      `status changes/s for ${options.latencySeconds} s (WEBHOOK_BATCH_SIZE=${options.batchSize})`,
  );
  const figures: WebhooksFigures = await withScratchDatabase(4, (throughputDb) =>
    withScratchDatabase(4, async (latencyDb) => {
      await onMachine(throughputDb);
      return runWebhooksBench(throughputDb, latencyDb, options);
    }),
  );
  const { pipeline, dispatch, analyzed, latency } = figures;
  return {
    title: 'Webhooks (issue 6)',
    figures: [
      {
        name: 'Webhook deliveries, events → outbox → receiver',
        measured: pipeline.perSecond,
        kind: 'min',
        target: TARGETS.webhookDeliveriesPerSecond,
        unit: 'deliveries/s',
      },
      {
        name: 'Webhook deliveries, dispatch only',
        measured: dispatch.perSecond,
        kind: 'min',
        target: TARGETS.webhookDeliveriesPerSecond,
        unit: 'deliveries/s',
      },
      {
        name: 'Webhook deliveries, dispatch only, statistics fresh',
        measured: analyzed.perSecond,
        kind: 'info',
        target: 0,
        unit: 'deliveries/s',
      },
      {
        name: `Webhook p99, append → first attempt (${latency.ratePerSecond.toFixed(0)}/s)`,
        measured: latency.p99Ms,
        kind: 'max',
        target: TARGETS.webhookP99Ms,
        unit: 'ms',
      },
    ],
    details: [
      `Events → receiver: ${formatInteger(pipeline.requests)} requests' ${formatInteger(pipeline.events)} events ` +
        `appended in one transaction → ${formatInteger(pipeline.deliveries)} deliveries, all delivered ` +
        `${pipeline.seconds.toFixed(2)} s after the commit (the outbox writer had queued them all after ` +
        `${pipeline.queuedSeconds.toFixed(2)} s); the receiver got ${formatInteger(pipeline.received)}.`,
      `Dispatch only: ${formatInteger(dispatch.deliveries)} rows delivered in ${dispatch.seconds.toFixed(2)} s; ` +
        `the receiver got ${formatInteger(dispatch.received)}. With the table ANALYZE-d before they fell due: ` +
        `${analyzed.seconds.toFixed(2)} s (${formatInteger(analyzed.perSecond)} deliveries/s), the receiver got ` +
        `${formatInteger(analyzed.received)}.`,
      `Latency: ${formatInteger(latency.changes)} status changes in ${latency.seconds.toFixed(1)} s through the ` +
        `command bus (projections ${latency.projections ? 'running' : 'off'}); issued → first attempt received p50 ${formatMs(latency.p50Ms)}, p99 ${formatMs(latency.p99Ms)}, ` +
        `max ${formatMs(latency.maxMs)}; the command itself (load, decide, append) p50 ` +
        `${formatMs(latency.commandP50Ms)}, p99 ${formatMs(latency.commandP99Ms)}.`,
    ],
    findings: [
      `Dispatch throughput falls as the backlog grows: with ${formatInteger(dispatch.deliveries)} rows queued at ` +
        'once the claim query (`WITH due AS (… ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)`) is ' +
        'planned from statistics that predate the burst (about 100 due rows estimated), so it bitmap-scans every due ' +
        'row, anti-joins each against the queue index and sorts them all before taking 200: measured separately, about ' +
        '100 ms per claim at a 20,000-row backlog, falling as it drains (O(backlog) per round, O(backlog²) to drain), ' +
        'against 13 ms with fresh statistics, when it walks `webhook_deliveries_due_idx` in order and stops at 200 ' +
        `(${formatInteger(analyzed.perSecond)} vs ${formatInteger(dispatch.perSecond)} deliveries/s above). Fix: make ` +
        'the claim independent of statistics (an ordered scan of the due index with a bounded candidate window, or ' +
        'per-table `autovacuum_analyze_scale_factor`/threshold so bursts are analysed quickly).',
      `End to end, the outbox writer is the slower stage (all rows queued after ${pipeline.queuedSeconds.toFixed(1)} ` +
        `of ${pipeline.seconds.toFixed(1)} s): it reads each touched stream with its own query ` +
        '(`readStream` per request in `rowsFor`); one `stream_id = ANY(…)` read per batch would remove a round trip ' +
        'per request.',
      'Latency: with the projections running, every append also wakes five projection runners (requests-v3 and v2 ' +
        'rewrite a ~7 KB state per event) in the same process and database; measured separately at 50/s, p50 was ' +
        '73–92 ms with them and 16–17 ms without (`BENCH_WEBHOOK_LATENCY_PROJECTIONS=false`). The p99 target holds ' +
        'either way on this machine, but its margin is what the projections leave; running the webhook consumers in ' +
        'their own process (any number may run) or cheaper projection writes (see Requests) widens it.',
    ],
    method: [
      '**Receiver**: node:http in a worker thread on loopback, keep-alive, answering 200 with an empty body as soon ' +
        'as the request is read; it records when each (request id, status) first arrived.',
      `**Events → receiver**: the app with \`WEBHOOKS_RUN=true\`, \`WEBHOOK_BATCH_SIZE=${figures.batchSize}\`, ` +
        '`WEBHOOK_ALLOW_LOCAL_TARGETS=true` and the projections off, one API key whose endpoint is the receiver. ' +
        'Requests generated as for the history (every quote with that key) are appended in one transaction; the ' +
        'outbox writer turns each status change into a delivery and the dispatcher delivers them. Deliveries ÷ time ' +
        'from the commit to the last `delivered_at`.',
      '**Dispatch only**: as many `webhook_deliveries` rows (bodies copied from real ones, one per request so all ' +
        'are claimable) inserted at once; deliveries ÷ time from the insert to the last `delivered_at`. ' +
        '"Statistics fresh": the same once more, the rows falling due 2 s after the insert and the table ANALYZE-d ' +
        'in between (no target: it isolates what stale planner statistics cost the claim query).',
      '**Latency**: a fresh database, the app with webhooks and projections running; quotes recorded first (a quote ' +
        'announces nothing) and five lifecycles as warm-up, then DetectDeposit / ConfirmDeposit / SubmitFill / ' +
        'RecordFillSuccess commands through the `CommandBus` at a steady 50/s, round robin over the requests; each ' +
        'timed from the command being issued to the receiver getting the first attempt of that (request, status).',
    ],
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Settlement (issue 5)

async function settlement(
  scale: number,
  onMachine: (scratch: ScratchDatabase) => Promise<void>,
): Promise<Group> {
  const options = {
    sequential: Math.max(20, Math.round(100 * scale)),
    inFlight: 200,
    chainPollIntervalMs: envNumber('BENCH_CHAIN_POLL_INTERVAL_MS', 100),
    statusPollMs: 10,
  };
  write(
    `[settlement] Two local chains (automine, 1-block finality), the app with watcher and solver ` +
      `(CHAIN_POLL_INTERVAL_MS=${options.chainPollIntervalMs}): ${options.sequential} native-ETH requests one after ` +
      `another, then ${options.inFlight} in flight`,
  );
  const figures: SettlementFigures = await withScratchDatabase(2, async (scratch) => {
    await onMachine(scratch);
    return runSettlementBench(scratch, options);
  });
  const journalTransactions = Math.max(50, Math.round(200 * scale));
  write(`  (c) the transaction journal's cost: ${journalTransactions} transactions each way…`);
  const journal = await withScratchDatabase(2, (scratch) => measureJournalCost(scratch, journalTransactions));
  write(
    '  (d) finding transfers to deposit addresses, per block: 20 blocks of 100 transfers, 100 watched addresses…',
  );
  const scan = await measureDepositAddressScan(20, 100, 100);
  const { latency, throughput } = figures;
  return {
    title: 'Settlement (issues 5 and 10)',
    figures: [
      {
        name: `Settlement p99, deposit mined → success (${latency.requests} one after another)`,
        measured: latency.p99Ms,
        kind: 'max',
        target: TARGETS.settlementP99Ms,
        unit: 'ms',
      },
      {
        name: 'Settlement p50, deposit mined → success',
        measured: latency.p50Ms,
        kind: 'info',
        target: 0,
        unit: 'ms',
      },
      {
        name: `Settlement throughput, ${throughput.requests} in flight`,
        measured: throughput.perSecond,
        kind: 'info',
        target: 0,
        unit: 'requests/s',
      },
      {
        name: 'Journaled send ÷ plain viem send, per transaction (median)',
        measured: journal.ratio,
        kind: 'info',
        target: 0,
        unit: 'ratio',
      },
      {
        name: `Deposit-address scan ÷ depository logs, per block of ${scan.transactionsPerBlock} transactions (median)`,
        measured: scan.scanRatio,
        kind: 'info',
        target: 0,
        unit: 'ratio',
      },
      {
        name: `Balance polling of ${scan.watchedAddresses} deposit addresses ÷ depository logs, per block (median)`,
        measured: scan.balancesRatio,
        kind: 'info',
        target: 0,
        unit: 'ratio',
      },
    ],
    details: [
      `Setup: chains 31337 and 31338 (Hardhat/EDR, automine: one block per transaction), finality ` +
        `${figures.app.finalityBlocks} block; the app on a scratch PostgreSQL database with CHAIN_POLL_INTERVAL_MS=` +
        `${options.chainPollIntervalMs} (watcher and solver), PROJECTION_POLL_INTERVAL_MS=` +
        `${figures.app.projectionPollIntervalMs}; status polled over HTTP every ${options.statusPollMs} ms.`,
      `One after another (${latency.requests} requests after 3 warm-up ones): deposit mined → success p50 ` +
        `${formatMs(latency.p50Ms)}, p99 ${formatMs(latency.p99Ms)}, max ${formatMs(latency.maxMs)}. By stage ` +
        `(p50, from the receipt): \`pending\` (deposit final and confirmed) ${formatMs(latency.pendingP50Ms)} ` +
        `(p99 ${formatMs(latency.pendingP99Ms)}), \`submitted\` (fill sent) ${formatMs(latency.submittedP50Ms)}, ` +
        `\`success\` ${formatMs(latency.p50Ms)}. Deposit sent → receipt p50 ${formatMs(latency.receiptP50Ms)}.`,
      `In flight: ${throughput.requests} quotes for ${throughput.senders} users, their deposits signed beforehand, ` +
        `then sent by the users at once (each its own back to back) in ${throughput.sendSeconds.toFixed(2)} s; ` +
        `first success after ` +
        `${throughput.firstSuccessSeconds.toFixed(2)} s, last after ${throughput.seconds.toFixed(2)} s ` +
        `(${throughput.perSecond.toFixed(1)} requests/s); per request, mined → success p50 ` +
        `${formatMs(throughput.p50Ms)}, p99 ${formatMs(throughput.p99Ms)}. Every request \`pending\` (deposits ` +
        `confirmed) after ${throughput.allPendingSeconds.toFixed(2)} s, every fill sent after ` +
        `${throughput.allSubmittedSeconds.toFixed(2)} s. CPU meanwhile: ${settlementCpu(throughput)}.`,
      `In flight, by stage (from the records; p50 of deposit mined → the stage, and when the last request reached ` +
        `it): ` +
        throughput.stages
          .map((s) => `${s.stage} ${formatMs(s.p50Ms)} / ${s.lastSeconds.toFixed(2)} s`)
          .join(', ') +
        '.',
      `In flight, queries to PostgreSQL per request (this process: the app, and the bench's CPU sampling): ` +
        Object.entries(throughput.queries)
          .sort(([, x], [, y]) => y - x)
          .map(([kind, count]) => `${kind} ${(count / throughput.requests).toFixed(1)}`)
          .join(', ') +
        ` (in all ${(Object.values(throughput.queries).reduce((sum, n) => sum + n, 0) / throughput.requests).toFixed(1)}); ` +
        `JSON-RPC calls to the chains per request ${(throughput.rpcCalls / throughput.requests).toFixed(1)}.`,
      `Transaction journal (${journal.transactions} zero-value transfers each way, one chain, automine): viem ` +
        `sendTransaction median ${formatMs(journal.plainMedianMs)}; journaled (gas and fees read, nonce reserved ` +
        `and the signed transaction stored in PostgreSQL, then sent) median ${formatMs(journal.journaledMedianMs)}, ` +
        `p99 ${formatMs(journal.journaledP99Ms)}: ${journal.ratio.toFixed(2)}× the plain send, ` +
        `${formatMs(journal.journaledMedianMs - journal.plainMedianMs)} more per transaction.`,
      `Deposit addresses (${scan.blocks} blocks of ${scan.transactionsPerBlock} plain transfers, ` +
        `${scan.watchedAddresses} addresses watched, one chain): the depository's logs of one block (eth_getLogs, ` +
        `what the watcher already reads) median ${formatMs(scan.logsMedianMs)}; the block's transactions matched ` +
        `against the watched set (eth_getBlockByNumber with transactions, Ferry's choice) ` +
        `${formatMs(scan.scanMedianMs)}, ${scan.scanRatio.toFixed(2)}× the logs; one eth_getBalance per watched ` +
        `address ${formatMs(scan.balancesMedianMs)}, ${scan.balancesRatio.toFixed(2)}× (grows with the addresses).`,
    ],
    findings: settlementFindings(figures),
    method: [
      '**Chains and app**: two `hardhat node` chains on loopback (`startLocalChain` + `deployDevnet`, as `npm run ' +
        'devnet` and the chain tests), automine, no interval blocks; the real app (`createApp`, listening on ' +
        'loopback) with `ENVIRONMENT=test`, the env of `test/integration/chains/cross-chain.int-spec.ts` (watcher ' +
        'and solver on, the devnet solver and relayer keys) and the projections running.',
      '**Latency**: native ETH 31337 → 31338, one request at a time as a wallet does it: `POST /quote/v2`, the ' +
        "deposit step sent with viem from the demo user's key, its receipt read (the clock starts there; under " +
        'automine the block is mined before the node answers, and block timestamps have 1 s resolution), then ' +
        '`GET /intents/status/v3` every 10 ms until `success`. Any `failure` or `refund` fails the run.',
      '**Throughput**: 200 quotes first (not timed), then 200 deposits sent back to back from one account ' +
        '(explicit nonces, fixed gas, no waiting for receipts); from the first send, every unfinished request is ' +
        'polled each round (16 at a time; rounds 1 s apart as a wallet polls, 10 ms once 16 or fewer are open, so ' +
        'the polling costs the app little and the last `success` is still timed closely); requests ÷ time from the ' +
        'first deposit sent to the last `success` answered. Per-request times of this phase have a round’s ' +
        'resolution (about 1 s). No target given: reported for context.',
    ],
  };
}

function settlementCpu({
  cpu,
  machineBusyShare,
  seconds,
  requests,
}: SettlementFigures['throughput']): string {
  const share = (ms: number | null, what: string) =>
    ms === null
      ? `${what} n/a`
      : `${what} ${formatInteger(ms)} ms (${((100 * ms) / (seconds * 1000)).toFixed(0)}% of a core, ` +
        `${(ms / requests).toFixed(1)} ms per request)`;
  return (
    `${share(cpu.nodeMs, 'Node (app and wallet)')}, ${share(cpu.postgresMs, 'PostgreSQL')}, ` +
    `${share(cpu.chainsMs, 'the two chains')}` +
    (machineBusyShare === null
      ? ''
      : `; machine ${(100 * machineBusyShare).toFixed(0)}% busy (${os.cpus().length} cores)`)
  );
}

function settlementFindings({ latency, throughput, options, app }: SettlementFigures): string[] {
  const findings: string[] = [];
  if (latency.pendingP50Ms > 1_000) {
    findings.push(
      `Most of the latency is the chain watcher seeing the deposit's block late: \`pending\` answers ` +
        `${formatMs(latency.pendingP50Ms)} after the receipt (p50), of ${formatMs(latency.p50Ms)} in all. The ` +
        "watcher's viem client (`ChainWatcher.client`, src/chains/watcher/chain-watcher.ts) has neither " +
        '`pollingInterval` nor `cacheTime`, so viem answers `eth_blockNumber` from a cache for 4 s (its default ' +
        'for a client without a chain: min(polling interval 4 s, half a 12 s block time)), whatever ' +
        'CHAIN_POLL_INTERVAL_MS says: the polls before the cache expires scan nothing new. One request after ' +
        'another, each deposit is sent just after the refresh that let the previous one through, so nearly every ' +
        'request waits the whole 4 s. Fix: ' +
        '`cacheTime: 0` (or `pollingInterval: options.pollIntervalMs`) on that client.',
    );
  }
  const submittedAfter = latency.submittedP50Ms - latency.pendingP50Ms;
  const successAfter = latency.p50Ms - latency.submittedP50Ms;
  const lastSend = throughput.sendSeconds;
  const queries = Object.values(throughput.queries).reduce((sum, n) => sum + n, 0) / throughput.requests;
  const projections =
    ((throughput.queries['checkpoints and projection rows'] ?? 0) + (throughput.queries['log reads'] ?? 0)) /
    throughput.requests;
  findings.push(
    `Stages (differences of p50s, from the receipt): the watcher confirms the deposit (\`pending\`) after ` +
      `${formatMs(latency.pendingP50Ms)}, the solver sends the fill (\`submitted\`) ${formatMs(submittedAfter)} ` +
      `later, and \`success\` answers ${formatMs(successAfter)} after that (the fill is mined at once under ` +
      'automine, so its two events often reach the status read model together and the poll misses `submitted`). ' +
      "The solver's queue is woken by the confirmed deposit's append and its workers by the queued job, so only the " +
      `watcher's rounds (CHAIN_POLL_INTERVAL_MS, ${options.chainPollIntervalMs} ms) and the status read model ` +
      `(${app.projectionPollIntervalMs} ms, or woken by the appends) still wait on polls. On chains that mine on an ` +
      'interval, as `npm run devnet` does (1 s), the fill waits for its block too.',
    `With ${throughput.requests} in flight the users' deposits were all sent after ${lastSend.toFixed(2)} s ` +
      `(signed beforehand, as wallets sign on their own machines); every request was \`pending\` after ` +
      `${throughput.allPendingSeconds.toFixed(2)} s and answered \`success\` after ` +
      `${throughput.seconds.toFixed(2)} s, ${(throughput.seconds - lastSend).toFixed(2)} s after the last send. ` +
      `The machine is the limit (2 cores: ${settlementCpu(throughput)}): the app's Node process, one event loop ` +
      'shared by the watcher, the solver, the projections and the HTTP answers, is the busiest part; fills leave ' +
      "one solver account in nonce order, so the journal's batches are the serial stage. Of " +
      `${queries.toFixed(1)} queries per request, ${projections.toFixed(1)} are the log's consumers reading it ` +
      '(checkpoints, `readAll`) when woken by appends: the projections read it once for all of them, the solver ' +
      'queue, the webhook outbox and the app-fee accrual each on their own.',
  );
  return findings;
}

// ---------------------------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------------------------
// HTTP floor (issue 14)

async function httpFloor(
  scale: number,
  onMachine: (scratch: ScratchDatabase) => Promise<void>,
): Promise<Group> {
  const options = {
    connections: 16,
    warmupMs: 2_000,
    durationMs: Math.max(2_000, Math.round(5_000 * scale)),
    rounds: 2,
  };
  write(
    `[http] Bare Fastify, Ferry's 404, a no-op route and /health (LOG_LEVEL=warn), then 404 and no-op at info with ` +
      `stdout a pipe: ${options.connections} connections, ${options.rounds} × ${options.durationMs / 1000} s each`,
  );
  const figures: HttpFloorFigures = await withScratchDatabase(2, async (scratch) => {
    await onMachine(scratch);
    return runHttpFloorBench(scratch, options);
  });
  const { bare, notFound, noop, health, notFoundInfo, noopInfo, quote, notFoundBesideQuote } = figures;
  const {
    notFoundTraced,
    noopTraced,
    quoteTraced,
    exported,
    noopWithoutMetrics,
    notFoundSampled,
    noopSampled,
  } = figures;
  const ratio = (name: string, measured: number, target: number): Figure => ({
    name,
    measured,
    kind: 'min',
    target,
    unit: 'ratio',
  });
  const row = (figure: RouteFigure) =>
    `${figure.label}: ${formatInteger(figure.requestsPerSecond)} req/s (${figure.statuses}), p50/p99 ` +
    `${formatMs(figure.p50Ms)} / ${formatMs(figure.p99Ms)}; CPU per 1,000 requests: server ` +
    `${formatInteger(figure.serverCpuMs)} ms, load generator ${formatInteger(figure.loadCpuMs)} ms` +
    (figure.postgresCpuMs === null ? '' : `, PostgreSQL ${formatInteger(figure.postgresCpuMs)} ms`) +
    (figure.chainsCpuMs === null ? '' : `, local chains ${formatInteger(figure.chainsCpuMs)} ms`) +
    `; ${figure.logBytesPerRequest.toFixed(0)} log bytes per request.`;
  return {
    title: 'HTTP floor (issue 14)',
    figures: [
      ratio(
        "Ferry's 404 ÷ bare Fastify",
        notFound.requestsPerSecond / bare.requestsPerSecond,
        TARGETS.floorRatio,
      ),
      ratio(
        'Ferry GET /bench/noop ÷ bare Fastify',
        noop.requestsPerSecond / bare.requestsPerSecond,
        TARGETS.floorRatio,
      ),
      ratio(
        "GET /health ÷ Ferry's 404",
        health.requestsPerSecond / notFound.requestsPerSecond,
        TARGETS.healthRatio,
      ),
      ratio(
        '404 at info (stdout a pipe) ÷ 404 at warn',
        notFoundInfo.requestsPerSecond / notFound.requestsPerSecond,
        TARGETS.infoLogRatio,
      ),
      ratio(
        "POST /quote/v2 ÷ Ferry's 404 (both beside the devnets)",
        quote.requestsPerSecond / notFoundBesideQuote.requestsPerSecond,
        TARGETS.floorRatio,
      ),
      { name: 'POST /quote/v2 p99', measured: quote.p99Ms, kind: 'max', target: 10, unit: 'ms' },
      ratio(
        'no-op at info (stdout a pipe) ÷ no-op at warn',
        noopInfo.requestsPerSecond / noop.requestsPerSecond,
        TARGETS.infoLogRatio,
      ),
      ratio(
        'no-op with metrics ÷ no-op with METRICS_ENABLED=false',
        noop.requestsPerSecond / noopWithoutMetrics.requestsPerSecond,
        TARGETS.tracingRatio,
      ),
      ratio(
        '404 traced ÷ 404 (OTEL_EXPORTER_OTLP_ENDPOINT set vs unset)',
        notFoundTraced.requestsPerSecond / notFound.requestsPerSecond,
        TARGETS.tracingRatio,
      ),
      ratio(
        'no-op traced ÷ no-op',
        noopTraced.requestsPerSecond / noop.requestsPerSecond,
        TARGETS.tracingRatio,
      ),
      ratio(
        `404 traced, head sampling at ${SAMPLED_RATIO} ÷ 404`,
        notFoundSampled.requestsPerSecond / notFound.requestsPerSecond,
        TARGETS.tracingRatio,
      ),
      ratio(
        `no-op traced, head sampling at ${SAMPLED_RATIO} ÷ no-op`,
        noopSampled.requestsPerSecond / noop.requestsPerSecond,
        TARGETS.tracingRatio,
      ),
      ratio(
        'POST /quote/v2 traced ÷ POST /quote/v2',
        quoteTraced.requestsPerSecond / quote.requestsPerSecond,
        TARGETS.tracingRatio,
      ),
    ],
    details: [
      ...[bare, notFound, noop, health, notFoundInfo, noopInfo, quote, notFoundBesideQuote].map(row),
      ...[noopWithoutMetrics, notFoundTraced, noopTraced, notFoundSampled, noopSampled, quoteTraced].map(row),
      `Traced servers exported ${formatInteger(exported.requests)} OTLP requests, ` +
        `${formatInteger(exported.bytes / 1024)} KiB, to a sink in the benchmark process.`,
    ],
    method: [
      'Each server runs in its own process (`bench/http-server-process.ts`) with its stdout a pipe read by the ' +
        'benchmark process; the load generator is a worker thread of the benchmark process (`http-load-worker.ts`), ' +
        `${options.connections} keep-alive connections, ${options.warmupMs / 1000} s warm-up, best of ` +
        `${options.rounds} runs per route. Ferry runs with its projections on (as deployed) on a scratch database.`,
      'Traced: the same server started with `--import dist/src/telemetry/register.js` and ' +
        '`OTEL_EXPORTER_OTLP_ENDPOINT` set to a sink in the benchmark process (default sampler, batch processor and ' +
        'protocol, http/protobuf), after the untraced run on the same database. Sampled: the same with ' +
        `\`OTEL_TRACES_SAMPLER=parentbased_traceidratio\` and \`OTEL_TRACES_SAMPLER_ARG=${SAMPLED_RATIO}\` (an unsampled ` +
        'request gets no server span and a context that suppresses tracing, src/telemetry/head-sampling.ts).',
      'Ratios are between figures of the same run; the load generator shares the 2 cores with the server, so ' +
        'absolute req/s are lower than from another machine.',
    ],
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Oracle (issue 13)

async function oracle(scale: number): Promise<Group> {
  const options = { deposits: Math.max(50, Math.round(200 * scale)), concurrency: 8, rounds: 3 };
  write(
    `[oracle] One local chain (automine), ${options.deposits} native deposits, three oracle instances in this ` +
      `process; ${options.concurrency} in flight: chain reads, attestations, attestations with two peers ` +
      `(${options.rounds} rounds)`,
  );
  const figures: OracleFigures = await runOracleBench(options);
  const { anchor, single, fanOut } = figures.workloads;
  const cpu = (figure: OracleFigures['workloads']['single']) =>
    `this process (oracles and client) ${formatInteger(figure.nodeCpuMsPer1k)} ms, the chain ` +
    (figure.chainCpuMsPer1k === null ? 'n/a' : `${formatInteger(figure.chainCpuMsPer1k)} ms`);
  const rounds = (ratios: readonly number[]) => ratios.map((ratio) => ratio.toFixed(3)).join(', ');
  return {
    title: 'Oracle (issue 13)',
    figures: [
      {
        name: `Deposit attestations, one instance (${options.concurrency} in flight)`,
        measured: single.perSecond,
        kind: 'info',
        target: 0,
        unit: 'attestations/s',
      },
      { name: 'Deposit attestation p50', measured: single.p50Ms, kind: 'info', target: 0, unit: 'ms' },
      { name: 'Deposit attestation p99', measured: single.p99Ms, kind: 'info', target: 0, unit: 'ms' },
      {
        name: 'Attestations ÷ the chain reads they need (receipt + transaction + head)',
        measured: figures.anchorRatio,
        kind: 'info',
        target: 0,
        unit: 'ratio',
      },
      {
        name: 'Deposit attestations with two peers (3 signatures each)',
        measured: fanOut.perSecond,
        kind: 'info',
        target: 0,
        unit: 'attestations/s',
      },
      {
        name: 'Peer fan-out (two peers) ÷ one instance, attestations/s',
        measured: figures.fanOutRatio,
        kind: 'min',
        target: TARGETS.oracleFanOutRatio,
        unit: 'ratio',
      },
    ],
    details: [
      `${formatInteger(options.deposits)} deposits (\`depositNative\` from the demo user, one block each) mined in ` +
        `${figures.depositSeconds.toFixed(1)} s; each workload attests or reads all of them once per round, ` +
        `${options.concurrency} in flight, ${options.rounds} rounds in rotating order after a warm-up; rates are ` +
        'medians of the rounds, ratios medians of the per-round ratios, latencies pooled.',
      `Anchor (the three reads of one attestation, same viem client and concurrency): ` +
        `${formatInteger(anchor.perSecond)} read sets/s, p50/p99 ${formatMs(anchor.p50Ms)} / ` +
        `${formatMs(anchor.p99Ms)}. One instance: ${formatInteger(single.perSecond)} attestations/s, p50/p99 ` +
        `${formatMs(single.p50Ms)} / ${formatMs(single.p99Ms)}. With two peers: ` +
        `${formatInteger(fanOut.perSecond)} attestations/s, p50/p99 ${formatMs(fanOut.p50Ms)} / ` +
        `${formatMs(fanOut.p99Ms)}.`,
      `Per round: attestations ÷ reads ${rounds(figures.anchorRatios)}; fan-out ÷ one instance ` +
        `${rounds(figures.fanOutRatios)}.`,
      `CPU per 1,000: reads ${cpu(anchor)}; attestations ${cpu(single)}; with two peers ${cpu(fanOut)}. Logged at ` +
        `info: ${single.logBytesPerOperation.toFixed(0)} bytes per attestation, ` +
        `${fanOut.logBytesPerOperation.toFixed(0)} with two peers.`,
      `Checked after each round, outside the timing: ${formatInteger(figures.checked.singleSignatures)} single and ` +
        `${formatInteger(figures.checked.fanOutSignatures)} fan-out signatures recovered to the expected signers ` +
        '(every fan-out answer carried exactly 3: #7, #8, #9), each answer naming the deposit asked about.',
    ],
    findings: oracleFindings(figures),
    method: [
      '**Chain and oracles**: one `hardhat node` (EDR) devnet 31337 on loopback (`startDevnet`, automine). Three ' +
        'oracle instances in the benchmark process, each as `npm run start:oracle` builds it (`loadOracleConfig` ' +
        'with `ENVIRONMENT=test`, both devnet RPC URLs at that chain, `API_KEYS` set; `RawKeySigner` with Hardhat ' +
        '#7, #8 and #9; `createOracleApp` listening on a free loopback port), logging at info into a byte counter ' +
        "instead of stdout. #7's instance has `PEERS` = the other two with a peer key.",
      '**Anchor**: per deposit what `EvmAttestor` reads — `eth_getTransactionReceipt` and `eth_getTransaction` ' +
        'together, then `eth_blockNumber` — through the same viem client (`ReadClients`), with the same concurrency: ' +
        'what an attestation cannot beat on this chain.',
      '**Attestations**: `POST /attestations/depository-deposits/v1` `{chainId, transactionId}` to #7 over HTTP ' +
        '(keep-alive, `x-api-key`), each a real chain read and an EIP-712 signature. **With two peers**: the same ' +
        'with `requestPeerSignatures: true`: #7 reads and signs, asks #8 and #9 in parallel (each reads and signs), ' +
        'recovers their signatures and answers three. Every answer is checked after its round (deposit id, message ' +
        'id, domain, signature count, each signature recovered); a short answer fails the run.',
      '**Target**: a fan-out request does three times the chain reads and signatures of one, plus two HTTP hops and ' +
        'two recoveries, all in one process on the same 2 cores; ≥ 0.33 says the fan-out costs no more than the ' +
        'peers doing the same work. It measures CPU cost, not deployment: with one machine per instance the peers ' +
        'work in parallel.',
    ],
  };
}

function oracleFindings({ workloads, signing }: OracleFigures): string[] {
  const { anchor, single, fanOut } = workloads;
  const own = (single.nodeCpuMsPer1k - anchor.nodeCpuMsPer1k) / 1000;
  const signPath = signing.messageIdMs + signing.digestMs + signing.signMs;
  const judge = signing.messageIdMs + signing.digestMs + signing.recoverMs;
  const ms = (value: number) => `${value.toFixed(2)} ms`;
  return [
    `CPU-bound on this machine: the chain and one Node process (three oracles and the client on one event loop) ` +
      `share ${os.cpus().length} cores. An attestation costs ` +
      `${ms(single.nodeCpuMsPer1k / 1000)} of this process's CPU against ${ms(anchor.nodeCpuMsPer1k / 1000)} for ` +
      `its three reads alone, so the oracle adds ${ms(own)}: the message id (\`messageIdOf\`, ` +
      `${ms(signing.messageIdMs)}), the digest (\`digestOf\`, ${ms(signing.digestMs)}, which hashes the struct ` +
      `again) and the signature (${ms(signing.signMs)}) are ${ms(signPath)} of it (timed alone); the rest is the ` +
      'HTTP request on both ends (Fastify, Nest guard and validation pipe, JSON) and decoding the receipt, not ' +
      'timed apart. Deriving the digest from the ' +
      'message id and a cached domain separator (`keccak256(0x1901 ‖ separator ‖ messageId)`) would save about ' +
      `${ms(signing.digestMs)} per attestation.`,
    `A fan-out costs ${(fanOut.nodeCpuMsPer1k / single.nodeCpuMsPer1k).toFixed(1)}× the CPU of one attestation ` +
      `(${ms(fanOut.nodeCpuMsPer1k / 1000)}), more than the three instances' work: the asking instance judges each ` +
      `peer's answer (message id, digest, and \`recoverAddress\` at ${ms(signing.recoverMs)}: ${ms(judge)} per ` +
      'peer) and makes two HTTP calls. With every instance on the same event loop the throughput ratio follows ' +
      `the CPU ratio (1/${(fanOut.nodeCpuMsPer1k / single.nodeCpuMsPer1k).toFixed(1)} = ` +
      `${(single.nodeCpuMsPer1k / fanOut.nodeCpuMsPer1k).toFixed(3)}), below 1/3. ` +
      "The recovery over the asking instance's own digest already proves the peer signed the same message under " +
      "the same domain, so `judge`'s per-peer hashing (the peer message's id, and the asking instance's digest " +
      `again) could go, saving ${ms(signing.messageIdMs + signing.digestMs)} per peer; a native secp256k1 ` +
      'recovery would cut the largest item. On separate machines (as deployed) the peers would work in parallel, and the fan-out would ' +
      "cost the asking instance its two judgements and HTTP calls, and the caller a peer's round trip.",
  ];
}

// ---------------------------------------------------------------------------------------------------------------

const GROUPS = ['foundation', 'requests', 'webhooks', 'settlement', 'http', 'oracle'] as const;
type GroupName = (typeof GROUPS)[number];

function selectedGroups(): readonly GroupName[] {
  const raw = process.env.BENCH_ONLY;
  if (raw === undefined || raw === '') return GROUPS;
  const names = raw.split(',').map((name) => name.trim());
  for (const name of names) {
    if (!GROUPS.includes(name as GroupName))
      throw new Error(`BENCH_ONLY must be one of ${GROUPS.join(', ')} (got "${name}")`);
  }
  return names as GroupName[];
}

async function main(): Promise<void> {
  const started = now();
  const scale = benchScale();
  const only = selectedGroups();
  const loadAtStart = loadAverage();
  write(`Ferry benchmarks (BENCH_SCALE=${scale}; ${only.join(', ')}); load average at start ${loadAtStart}`);

  let machine: MachineInfo | undefined;
  const onMachine = async (scratch: ScratchDatabase) => {
    machine ??= await machineInfo(scratch.db);
  };
  const groups: Group[] = [];
  const runners: Record<GroupName, () => Promise<Group>> = {
    foundation: () => foundation(scale, onMachine),
    requests: () => requests(scale, onMachine),
    webhooks: () => webhooks(scale, onMachine),
    settlement: () => settlement(scale, onMachine),
    http: () => httpFloor(scale, onMachine),
    oracle: () => oracle(scale),
  };
  for (const name of only) {
    write();
    const groupStarted = now();
    groups.push(await runners[name]());
    write(`  (${name}: ${((now() - groupStarted) / 1000).toFixed(0)} s)`);
  }

  // A group without a database of its own (oracle) still reports the PostgreSQL server's settings.
  const info = machine ?? (await withScratchDatabase(1, (scratch) => machineInfo(scratch.db)));
  const loadAtEnd = loadAverage();
  const totalSeconds = (now() - started) / 1000;
  for (const group of groups) {
    write();
    write(group.title);
    write(formatTable(HEADERS, figureRows(group.figures)));
    for (const line of group.details) write(`  ${line}`);
    for (const line of group.findings ?? []) write(`  Finding: ${line}`);
  }
  write();
  write('Machine');
  write(`  CPU      ${info.cpu} (${info.cores} cores), ${info.memoryGiB.toFixed(1)} GiB RAM`);
  write(`  Node     ${info.node}`);
  write(`  Postgres ${info.postgres}`);
  write(`           ${info.postgresSettings}`);
  write(`  Date     ${info.date}`);
  write(`  Load     1-minute load average ${loadAtStart} at start, ${loadAtEnd} at the end`);
  write(`  Scale    BENCH_SCALE=${scale}; total ${totalSeconds.toFixed(1)} s`);
  if (os.loadavg()[0] > os.cpus().length * 0.75) {
    write(
      '  Note     the machine was busy during the run (the benchmarks themselves keep both cores busy): ' +
        'wall-clock figures are pessimistic; the CPU figures are the steadier comparison.',
    );
  }

  const resultsFile = process.env.BENCH_RESULTS_FILE;
  if (resultsFile) {
    await writeFile(
      resultsFile,
      markdown(info, scale, `${loadAtStart} → ${loadAtEnd}`, totalSeconds, groups),
    );
    write();
    write(`Wrote ${resultsFile}`);
  }
}

function markdown(
  info: MachineInfo,
  scale: number,
  load: string,
  totalSeconds: number,
  groups: readonly Group[],
): string {
  const setup = formatMarkdownTable(
    ['Run', ''],
    [
      ['Machine', `${info.cpu}, ${info.cores} cores, ${info.memoryGiB.toFixed(1)} GiB RAM`],
      ['Node', info.node],
      ['PostgreSQL', `${info.postgres.split(' on ')[0]}; ${info.postgresSettings}`],
      ['Date', info.date],
      ['Load average (1 min)', `${load} (other work on the machine slows the wall-clock figures)`],
      ['Scale', `\`BENCH_SCALE=${scale}\`, ${groups.map((group) => group.title).join(', ')}`],
      ['Duration', `${(totalSeconds / 60).toFixed(1)} minutes`],
    ],
  );
  const sections = groups.map(
    (group) => `## ${group.title}

${formatMarkdownTable(HEADERS, figureRows(group.figures))}

${group.details.map((line) => `- ${line}`).join('\n')}
${
  group.findings?.length
    ? `
What limits the figures:

${group.findings.map((line) => `- ${line}`).join('\n')}
`
    : ''
}
What is measured:

${group.method.map((line) => `- ${line}`).join('\n')}`,
  );
  return `# Benchmark results

${setup}

${sections.join('\n\n')}

## Reproduce

With PostgreSQL on \`127.0.0.1:5432\` (user \`postgres\`, trust auth; \`BENCH_DATABASE_URL\` overrides), run
\`npm run bench\` (build, then \`node dist/bench/run.js\`). \`BENCH_SCALE\` scales every workload (\`0.1\` for a quick
look: 100,000 requests); \`BENCH_ONLY=foundation|requests|webhooks|settlement|http|oracle\` runs one group;
\`BENCH_RESULTS_FILE=bench/RESULTS.md npm run bench\` rewrites this file. Batch sizes and rounds:
\`BENCH_REBUILD_BATCH_SIZE\`,
\`BENCH_WEBHOOK_BATCH_SIZE\`, \`BENCH_QUERY_ROUNDS\`, \`BENCH_WEBHOOK_LATENCY_PROJECTIONS=false\`, \`BENCH_CHAIN_POLL_INTERVAL_MS\` (settlement, 100). Each run creates and drops its own \`ferry_bench_<random>\`
databases. Measure on an otherwise idle machine: the figures are wall-clock rates on 2 cores that the benchmark
itself keeps busy.
`;
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `Benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
