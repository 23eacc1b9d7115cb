import type { Projection } from '../projections/projection.js';
import { requestsV2Projection } from '../projections/requests-v2/requests-v2.projection.js';
import { requestsV3Projection } from '../projections/requests-v3/requests-v3.projection.js';
import { ProjectionRunner } from '../projections/runner/projection-runner.js';
import { rebuildProjections } from '../projections/runner/rebuild.js';
import { PostgresEventStore } from '../src/event-store/postgres/postgres-event-store.js';
import { encodeContinuation } from '../src/history/continuation.js';
import { parseRequestsV3Query } from '../src/history/requests-v3.query.js';
import type { RequestsV3QueryDto } from '../src/history/requests-v3.query.dto.js';
import { apiKeysFor, benchConfig, startBenchApp } from './bench-app.js';
import { measureLatency, measureThroughput } from './http-load.js';
import type { ThroughputResult } from './http-load-worker.js';
import {
  checkSampleFolds,
  compareProjectionRows,
  type HistoryParams,
  seedRequests,
  type SeededRequests,
} from './seed-requests.js';
import {
  Breakdown,
  type CpuUsage,
  formatInteger,
  formatMs,
  instrument,
  median,
  now,
  percentile,
  type ScratchDatabase,
  startCpuSampled,
  startMachineCpu,
  write,
} from './support.js';

/**
 * The Requests issue's figures on one history of requests generated through events (`seed-requests.ts`):
 *  1. rebuild rate: the operator's rebuild of requests-v3 and requests-v2 together (`rebuildProjections`, as
 *     `npm run cli -- projections:rebuild requests-v3 requests-v2` runs it: the two share a fold, so the log is read
 *     and folded once and both tables written), from the start of the log to both generations indexed and swapped
 *     in; events applied to the two ÷ wall time;
 *  2. a sample of the rows it wrote compared, column by column, with the rows the generator's templates make;
 *  3. query latency: the real app on that database (projections not running, nothing else competing) answering ten
 *     typical `GET /requests/v3` queries over HTTP, interleaved round by round over one keep-alive connection;
 *  4. throughput (issue 14 goal 4): the cheapest of them and the default listing (`?limit=20`) against Ferry's
 *     cheapest routes in the same app (the 404 and `GET /bench/noop`), each driven by concurrent keep-alive
 *     connections for a fixed time, alternating.
 * The HTTP client runs in a worker thread (`http-load-worker.ts`).
 */

export interface RequestsHistoryOptions {
  readonly requests: number;
  /** Requests per generated chunk (one INSERT statement and transaction each). */
  readonly chunk: number;
  readonly batchSize: number;
  readonly warmupRounds: number;
  /** Measured requests of each query (≥ 200). */
  readonly rounds: number;
  readonly connections: number;
  /** Seconds per throughput run (two runs each of the two queries, the 404 and the no-op route, alternating). */
  readonly throughputSeconds: number;
}

export interface QueryFigure {
  readonly name: string;
  readonly path: string;
  readonly rows: number;
  readonly bytes: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface RequestsHistoryFigures {
  readonly seeded: SeededRequests;
  readonly vacuumSeconds: number;
  readonly sampleStatuses: Record<string, number>;
  readonly batchSize: number;
  readonly rebuild: {
    /** Events in the log (each applied to both projections). */
    readonly events: number;
    readonly seconds: number;
    /** Events applied to requests-v3 and requests-v2 together ÷ wall time. */
    readonly eventsPerSecond: number;
    /** Seconds spent indexing the two generations once caught up (within `seconds`). */
    readonly indexSeconds: number;
    /** Share of the wall time per statement kind, and the rest (Node: read mapping, fold, serialisation). */
    readonly profile: readonly { label: string; share: number }[];
  };
  readonly rebuildCpu: CpuUsage;
  /** Node's CPU time ÷ wall time (1 = one core busy), and the whole machine's busy share of all cores. */
  readonly rebuildNodeShare: number;
  readonly rebuildMachineShare: number | null;
  /** Rows compared with the template rows, per projection. */
  readonly compared: { readonly v3: number; readonly v2: number };
  /** Listed v3 rows by status, and all rows. */
  readonly statuses: Record<string, number>;
  readonly rows: number;
  readonly listed: number;
  readonly queries: readonly QueryFigure[];
  readonly rounds: number;
  readonly throughput: {
    readonly connections: number;
    readonly seconds: number;
    /** Ferry's cheapest routes in the same run: the 404 of an unknown route and `GET /bench/noop`. */
    readonly notFound: RouteRate;
    readonly noop: RouteRate;
    /** The cheapest of the ten queries (lowest p50), and the default listing (`?limit=20`, issue 14's table). */
    readonly cheapest: HistoryRate;
    readonly defaultListing: HistoryRate;
  };
}

export interface RouteRate {
  readonly path: string;
  readonly perSecond: number;
  readonly p99Ms: number;
}

export interface HistoryRate extends RouteRate {
  readonly name: string;
  /** ÷ the 404 and ÷ the no-op route (issue 14 goal 4: ≥ 0.3). */
  readonly ratioToNotFound: number;
  readonly ratioToNoop: number;
}

const V3 = requestsV3Projection as Projection;
const V2 = requestsV2Projection as Projection;

const statementName = (label: string): string => label.replace(/^sql: /, '');

/** Rebuilds requests-v3 and requests-v2 together as the CLI does, timed from start to both swapped in. */
async function rebuildBoth(
  scratch: ScratchDatabase,
  batchSize: number,
): Promise<{ figures: RequestsHistoryFigures['rebuild']; cpu: CpuUsage; machine: number | null }> {
  const breakdown = new Breakdown();
  const db = instrument(scratch.db, breakdown);
  const store = new PostgresEventStore(db);
  const runner = new ProjectionRunner(db, store, {
    batchSize,
    pollIntervalMs: 100,
    rebuildOnVersionChange: true,
  });
  // Open the pool's connections first, so that the CPU count sees every backend the rebuild uses.
  await Promise.all(Array.from({ length: 4 }, () => scratch.db.query('SELECT pg_sleep(0.01)')));
  const stopCpu = await startCpuSampled(scratch.db);
  const stopMachine = startMachineCpu();
  const started = now();
  let nextReport = 0.2;
  const [result] = await rebuildProjections(runner, store, [V3, V2], {
    batchSize,
    onProgress: ({ done, total, eventsPerSecond }) => {
      if (done / total >= nextReport - 1e-9) {
        nextReport += 0.2;
        write(
          `    ${formatInteger(done)} of ${formatInteger(total)} events read, ` +
            `${formatInteger(2 * eventsPerSecond)} events/s into the two`,
        );
      }
    },
  });
  const ms = now() - started;
  const cpu = await stopCpu();
  const machine = stopMachine()?.busyShare ?? null;
  const statements = breakdown.rows();
  const sqlMs = statements.reduce((sum, row) => sum + row.ms, 0);
  const indexMs = statements
    .filter((row) => /^sql: (CREATE|ANALYZE)/.test(row.label))
    .reduce((sum, row) => sum + row.ms, 0);
  return {
    figures: {
      events: result.events,
      seconds: ms / 1000,
      eventsPerSecond: (2 * result.events) / (ms / 1000),
      indexSeconds: indexMs / 1000,
      profile: [
        ...statements
          .filter((row) => row.ms >= ms / 50)
          .map((row) => ({ label: statementName(row.label), share: row.ms / ms })),
        { label: 'rest (Node: mapping, fold, JSON)', share: Math.max(0, (ms - sqlMs) / ms) },
      ],
    },
    cpu,
    machine,
  };
}

/** The typical queries, with values taken from the generated history. */
async function typicalQueries(
  scratch: ScratchDatabase,
  apiKeyId: string,
): Promise<{ name: string; query: Record<string, string> }[]> {
  const { rows } = await scratch.db.query<{
    user_address: string;
    fill_tx: string;
    deposit_tx: string;
    created: number;
  }>(
    `SELECT user_address, fill_tx_hashes[1] AS fill_tx, deposit_tx_hashes[1] AS deposit_tx,
            extract(epoch FROM created_at)::float8 AS created
       FROM requests_v3 WHERE listed AND status = 'success'
      ORDER BY created_at DESC, id DESC OFFSET (SELECT count(*) / 2 FROM requests_v3 WHERE listed) LIMIT 1`,
  );
  const middle = rows[0];
  if (!middle) throw new Error('No successful request in the generated history');
  const week = 7 * 24 * 3600;
  const filters = [
    { status: 'success', originChainId: 8453 },
    { status: ['refund', 'failure'], 'not:originChainId': 8453 },
  ];
  return [
    { name: 'user', query: { user: middle.user_address } },
    { name: 'term = fill tx hash', query: { term: middle.fill_tx } },
    { name: 'status + originChainId', query: { status: 'success', originChainId: '8453' } },
    { name: 'filters: OR groups', query: { filters: JSON.stringify(filters) } },
    { name: 'sortBy=amountUsd', query: { sortBy: 'amountUsd' } },
    { name: 'depositTxHash', query: { depositTxHash: middle.deposit_tx } },
    {
      name: 'currencyOutSymbol + 1 week',
      query: {
        currencyOutSymbol: 'ETH',
        startTimestamp: String(Math.floor(middle.created - week / 2)),
        endTimestamp: String(Math.floor(middle.created + week / 2)),
      },
    },
    { name: 'features=app_fees', query: { features: 'app_fees' } },
    { name: 'apiKey = own id', query: { apiKey: apiKeyId } },
    { name: 'continuation, 1,000 pages deep', query: {} },
  ];
}

const DEEP_PAGES = 1_000;
const PAGE_SIZE = 20;

/**
 * The continuation of the default query (newest first, 20 per page) after page 1,000 (fewer when a small history
 * has fewer pages), made as the repository makes it: the sort value and id of the page's last row, under the digest
 * of the query. Returns it with the id of the row the next page must start with (checked against the answer).
 */
async function deepContinuation(
  scratch: ScratchDatabase,
  apiKeyId: string,
  listed: number,
): Promise<{ continuation: string; nextId: string; pages: number }> {
  const pages = Math.min(DEEP_PAGES, Math.floor((listed - 1) / PAGE_SIZE) - 1);
  const { rows } = await scratch.db.query<{ id: string; sort_value: string }>(
    `SELECT id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS sort_value
       FROM requests_v3 WHERE listed ORDER BY created_at DESC, id DESC OFFSET $1 LIMIT 2`,
    [pages * PAGE_SIZE - 1],
  );
  if (pages < 1 || rows.length < 2) throw new Error(`Too few listed requests (${listed}) for a continuation`);
  const { digest } = parseRequestsV3Query({} as RequestsV3QueryDto, apiKeyId);
  return {
    continuation: encodeContinuation({ value: rows[0].sort_value, id: rows[0].id }, digest),
    nextId: rows[1].id,
    pages,
  };
}

const toPath = (query: Record<string, string>) =>
  `/requests/v3${Object.keys(query).length ? `?${new URLSearchParams(query).toString()}` : ''}`;

const NOT_FOUND_PATH = '/no-such-route';
const DEFAULT_LISTING = { name: 'default listing (limit=20)', path: '/requests/v3?limit=20' };

/**
 * Throughput of the cheapest query and of the default listing against Ferry's cheapest routes (the 404 and
 * `GET /bench/noop`), each driven by concurrent keep-alive connections for a fixed time; the four routes alternate,
 * two runs each, and each figure is the median of its runs.
 */
async function measureHistoryThroughput(
  baseUrl: string,
  headers: Record<string, string>,
  options: RequestsHistoryOptions,
  cheapest: QueryFigure,
): Promise<RequestsHistoryFigures['throughput']> {
  const routes = [
    { path: NOT_FOUND_PATH, status: 404 },
    { path: '/bench/noop', status: 200 },
    { path: cheapest.path, status: 200 },
    { path: DEFAULT_LISTING.path, status: 200 },
  ];
  write(
    `  throughput: ${options.connections} keep-alive connections, ${options.throughputSeconds} s per run, ` +
      `"${cheapest.name}", the default listing, the 404 and GET /bench/noop alternating, two runs each…`,
  );
  const job = { baseUrl, headers, connections: options.connections, warmupMs: 1_000 };
  const runs = routes.map(() => [] as ThroughputResult[]);
  for (let round = 0; round < 2; round += 1) {
    for (const [index, route] of routes.entries()) {
      const run = await measureThroughput({
        ...job,
        path: route.path,
        durationMs: options.throughputSeconds * 1000,
      });
      // `failures` counts answers other than 200: every one for the 404, none for the others.
      if (run.failures !== (route.status === 404 ? run.requests : 0)) {
        throw new Error(`Throughput run of ${route.path}: answers other than ${route.status}`);
      }
      runs[index].push(run);
    }
  }
  const [notFound, noop, query, listing] = routes.map((route, index): RouteRate => ({
    path: route.path,
    perSecond: median(runs[index].map((run) => run.requestsPerSecond)),
    p99Ms: percentile(
      runs[index].flatMap((run) => run.ms),
      99,
    ),
  }));
  const history = (rate: RouteRate, name: string): HistoryRate => ({
    ...rate,
    name,
    ratioToNotFound: rate.perSecond / notFound.perSecond,
    ratioToNoop: rate.perSecond / noop.perSecond,
  });
  return {
    connections: options.connections,
    seconds: options.throughputSeconds,
    notFound,
    noop,
    cheapest: history(query, cheapest.name),
    defaultListing: history(listing, DEFAULT_LISTING.name),
  };
}

export async function runRequestsHistoryBench(
  scratch: ScratchDatabase,
  options: RequestsHistoryOptions,
): Promise<RequestsHistoryFigures> {
  // Nothing but the queries runs in the app: projections and webhooks are off (benchConfig), and so is the app-fee
  // accrual, which would otherwise fold the whole generated log in the background while the queries are timed.
  const config = benchConfig(scratch.url, { APP_FEES_RUN: 'false' });
  const keys = apiKeysFor(scratch.db, config);
  const own = await keys.create({ label: 'bench: history reader', rateLimitPerMinute: 1_000_000 });
  const others = await Promise.all(
    Array.from({ length: 5 }, (_, i) => keys.create({ label: `bench: integrator ${i + 1}` })),
  );
  const history: HistoryParams = {
    requests: options.requests,
    apiKeyIds: [own.id, ...others.map((key) => key.id)],
  };

  write(
    `  generating ${formatInteger(options.requests)} requests through events ` +
      `(chunks of ${formatInteger(options.chunk)}, two at a time)…`,
  );
  let nextReport = 0.2;
  const seeded = await seedRequests(scratch.db, {
    ...history,
    chunk: options.chunk,
    dropIndexes: true,
    onProgress: (done, total, seconds) => {
      if (done / total >= nextReport - 1e-9) {
        nextReport += 0.2;
        write(`    ${formatInteger(done)} requests in ${seconds.toFixed(1)} s`);
      }
    },
  });
  write(
    `  ${formatInteger(seeded.events)} events (${(seeded.events / seeded.requests).toFixed(2)} per request, ` +
      `${seeded.templates} event templates), ${seeded.eventsMiB.toFixed(0)} MiB with indexes, in ` +
      `${seeded.seconds.toFixed(1)} s (${formatInteger(seeded.events / seeded.seconds)} events/s; indexes built ` +
      `afterwards in ${seeded.indexSeconds.toFixed(1)} s)`,
  );
  const sampleStatuses = await checkSampleFolds(scratch.db, options.requests, 1_000);
  write(
    `  1,000 sampled streams decode and fold through the aggregate's evolve(): ${Object.entries(
      sampleStatuses,
    )
      .map(([status, count]) => `${status} ${count}`)
      .join(', ')}`,
  );
  const vacuumStarted = now();
  await scratch.db.query('VACUUM ANALYZE events');
  await scratch.db.query('VACUUM ANALYZE event_streams');
  const vacuumSeconds = (now() - vacuumStarted) / 1000;
  write(`  VACUUM ANALYZE of the log: ${vacuumSeconds.toFixed(1)} s (not timed below)`);

  write(
    `  rebuilding requests-v3 and requests-v2 together (rebuildProjections: one read and one fold, both tables; ` +
      `batches of ${formatInteger(options.batchSize)})…`,
  );
  const { figures: rebuild, cpu: rebuildCpu, machine } = await rebuildBoth(scratch, options.batchSize);
  const rebuildNodeShare = rebuildCpu.nodeMs / 1000 / rebuild.seconds;
  write(
    `    ${formatInteger(2 * rebuild.events)} events applied (${formatInteger(rebuild.events)} to each) in ` +
      `${rebuild.seconds.toFixed(1)} s, indexing included (${rebuild.indexSeconds.toFixed(1)} s) → ` +
      `${formatInteger(rebuild.eventsPerSecond)} events/s; time: ` +
      rebuild.profile.map((row) => `${row.label} ${(100 * row.share).toFixed(0)}%`).join(', '),
  );
  const perThousand = (ms: number) => (1000 * ms) / (2 * rebuild.events);
  write(
    `    CPU: Node process ${(100 * rebuildNodeShare).toFixed(0)}% of one core` +
      (machine === null ? '' : `, whole machine ${(100 * machine).toFixed(0)}% of all cores`) +
      `; per 1,000 events applied: Node ${perThousand(rebuildCpu.nodeMs).toFixed(1)} ms` +
      (rebuildCpu.postgresMs === null
        ? ''
        : `, PostgreSQL backends ${perThousand(rebuildCpu.postgresMs).toFixed(1)} ms`),
  );
  const head = await new PostgresEventStore(scratch.db).headPosition();
  const sample = { first: Math.floor(options.requests / 2), count: Math.min(5_000, options.requests) };
  sample.first = Math.max(0, Math.min(sample.first, options.requests - sample.count));
  const compared = {
    v3: await compareProjectionRows(scratch.db, V3, 'requests_v3', history, sample, head),
    v2: await compareProjectionRows(scratch.db, V2, 'requests_v2', history, sample, head),
  };
  write(
    `  rows check: ${formatInteger(compared.v3)} requests-v3 and ${formatInteger(compared.v2)} requests-v2 rows ` +
      'written by the rebuild equal the rows the templates make for them',
  );

  const { rows: counts } = await scratch.db.query<{ status: string | null; rows: bigint }>(
    `SELECT CASE WHEN listed THEN status END AS status, count(*) AS rows FROM requests_v3 GROUP BY 1 ORDER BY 2 DESC`,
  );
  const statuses = Object.fromEntries(
    counts.filter((row) => row.status !== null).map((row) => [row.status!, Number(row.rows)]),
  );
  const rowCount = counts.reduce((sum, row) => sum + Number(row.rows), 0);
  const listed = Object.values(statuses).reduce((sum, count) => sum + count, 0);
  if (rowCount !== options.requests) {
    throw new Error(`requests_v3 holds ${rowCount} rows for ${options.requests} requests`);
  }
  write(
    `  requests_v3: ${formatInteger(rowCount)} rows, ${formatInteger(listed)} listed: ` +
      Object.entries(statuses)
        .map(([status, count]) => `${status} ${formatInteger(count)}`)
        .join(', '),
  );

  const app = await startBenchApp(config);
  try {
    const headers = { 'x-api-key': own.key };
    const queries = await typicalQueries(scratch, own.id);
    const deep = await deepContinuation(scratch, own.id, listed);
    queries[queries.length - 1].query.continuation = deep.continuation;
    queries[queries.length - 1].name = `continuation, ${formatInteger(deep.pages)} pages deep`;
    const paths = queries.map((query) => toPath(query.query));

    // Every query answers 200 with rows before anything is timed; the deep page starts where it must.
    const rows: number[] = [];
    for (const [index, path] of paths.entries()) {
      const response = await fetch(`${app.baseUrl}${path}`, { headers });
      const body = (await response.json()) as { requests?: { id: string }[] };
      if (response.status !== 200 || !body.requests || body.requests.length === 0) {
        throw new Error(`${queries[index].name}: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
      }
      if (index === paths.length - 1 && body.requests[0].id !== deep.nextId) {
        throw new Error(`The deep continuation started at ${body.requests[0].id}, expected ${deep.nextId}`);
      }
      rows.push(body.requests.length);
    }

    write(
      `  GET /requests/v3: ten queries, ${options.warmupRounds} warm-up rounds then ${options.rounds} measured ` +
        `rounds (each round sends each query once, one keep-alive connection)…`,
    );
    const latency = await measureLatency({
      baseUrl: app.baseUrl,
      paths,
      headers,
      warmupRounds: options.warmupRounds,
      rounds: options.rounds,
    });
    const figures: QueryFigure[] = latency.paths.map((result, index) => {
      if (result.failures > 0) {
        throw new Error(
          `${queries[index].name}: ${result.failures} answers were not 200 (last: ${result.failedStatus})`,
        );
      }
      return {
        name: queries[index].name,
        path: result.path,
        rows: rows[index],
        bytes: result.bytes,
        p50Ms: percentile(result.ms, 50),
        p99Ms: percentile(result.ms, 99),
      };
    });
    for (const figure of figures) {
      write(
        `    ${figure.name.padEnd(32)} p50 ${formatMs(figure.p50Ms).padStart(9)}  p99 ${formatMs(figure.p99Ms).padStart(9)}` +
          `  (${figure.rows} rows, ${formatInteger(figure.bytes / 1024)} KiB)`,
      );
    }

    const cheapest = figures.reduce((best, figure) => (figure.p50Ms < best.p50Ms ? figure : best));
    const throughput = await measureHistoryThroughput(app.baseUrl, headers, options, cheapest);
    const show = (rate: RouteRate) =>
      `${formatInteger(rate.perSecond)} requests/s (p99 ${formatMs(rate.p99Ms)})`;
    for (const rate of [throughput.cheapest, throughput.defaultListing]) {
      write(
        `    "${rate.name}" ${show(rate)}: ÷ 404 ${rate.ratioToNotFound.toFixed(3)}, ` +
          `÷ no-op ${rate.ratioToNoop.toFixed(3)}`,
      );
    }
    write(`    404 ${show(throughput.notFound)}, GET /bench/noop ${show(throughput.noop)}`);

    return {
      seeded,
      vacuumSeconds,
      sampleStatuses,
      batchSize: options.batchSize,
      rebuild,
      rebuildCpu,
      rebuildNodeShare,
      rebuildMachineShare: machine,
      compared,
      statuses,
      rows: rowCount,
      listed,
      queries: figures,
      rounds: options.rounds,
      throughput,
    };
  } finally {
    await app.close();
  }
}
