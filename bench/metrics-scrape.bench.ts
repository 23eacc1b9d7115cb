import { benchConfig, startBenchApp } from './bench-app.js';
import { formatInteger, formatMs, median, now, percentile, type ScratchDatabase, write } from './support.js';

/**
 * `GET /metrics` scrape time (issue 16, "Figures"): the real app on a database that already holds the requests
 * group's history (1M requests at scale 1, their projections rebuilt), with 10,000 API keys, a million finished solver
 * jobs beside a few open ones, and half a million delivered webhook deliveries with a million attempts: the tables the
 * gauges read, at a size a busy instance reaches. Scrapes are sequential over one keep-alive connection (Prometheus
 * scrapes one target at a time), timed from the request to the last byte.
 */

export interface MetricsScrapeOptions {
  readonly apiKeys: number;
  readonly doneJobs: number;
  readonly openJobs: number;
  readonly deliveries: number;
  /** Attempts per delivery. */
  readonly attemptsPerDelivery: number;
  readonly scrapes: number;
}

export interface MetricsScrapeFigures {
  readonly seeded: {
    readonly apiKeys: number;
    readonly solverJobs: number;
    readonly deliveries: number;
    readonly attempts: number;
    readonly requests: number;
    readonly seconds: number;
  };
  readonly firstMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** Lines of the answer that are samples (not `#` comments), and its size. */
  readonly samples: number;
  readonly bytes: number;
  /** The app's 404 in the same run and the same way (sequential, one connection): the floor the scrape sits on. */
  readonly notFoundP50Ms: number;
}

/** Fills the gauges' tables with generate_series (ids are deterministic, the rows valid under every constraint). */
async function seed(scratch: ScratchDatabase, options: MetricsScrapeOptions): Promise<void> {
  const { db } = scratch;
  await db.query(
    `INSERT INTO api_keys (id, label, key_prefix, key_hash, key_ciphertext)
     SELECT md5('bench-key-' || i)::uuid, 'bench ' || i, 'fk_' || substr(md5('p' || i), 1, 8),
            md5('hash-' || i), 'bench'
       FROM generate_series(1, $1) AS i`,
    [options.apiKeys],
  );
  await db.query(
    `INSERT INTO solver_jobs (request_id, kind, state, created_at, updated_at)
     SELECT '0x' || md5('job-' || i), CASE WHEN i % 2 = 0 THEN 'fill' ELSE 'refund' END,
            CASE WHEN i <= $2 THEN 'pending' ELSE 'done' END,
            now() - interval '1 second' * i, now() - interval '1 second' * i
       FROM generate_series(1, $1) AS i`,
    [options.doneJobs + options.openJobs, options.openJobs],
  );
  await db.query(
    `INSERT INTO webhook_deliveries (id, webhook_id, event_id, api_key_id, request_id, sequence, status, body, state,
                                     attempts, next_attempt_at, event_created_at, delivered_at)
     SELECT md5('delivery-' || i)::uuid, 'wh_' || i, 'event-' || i, md5('bench-key-' || (1 + i % $2))::uuid,
            '0x' || md5('request-' || i), 1, 'success', '{}', 'delivered', $3,
            now(), now() - interval '1 second' * i, now() - interval '1 second' * i
       FROM generate_series(1, $1) AS i`,
    [options.deliveries, options.apiKeys, options.attemptsPerDelivery],
  );
  await db.query(
    `INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at, status_code, latency_ms)
     SELECT md5('delivery-' || i)::uuid, a, now() - interval '1 second' * i, CASE WHEN a = $2 THEN 200 ELSE 503 END, 12
       FROM generate_series(1, $1) AS i, generate_series(1, $2) AS a`,
    [options.deliveries, options.attemptsPerDelivery],
  );
  await db.query('ANALYZE api_keys, solver_jobs, webhook_deliveries, webhook_attempts');
}

async function timedGet(url: string): Promise<{ ms: number; body: string; status: number }> {
  const started = now();
  const response = await fetch(url);
  const body = await response.text();
  return { ms: now() - started, body, status: response.status };
}

export async function measureMetricsScrape(
  scratch: ScratchDatabase,
  options: MetricsScrapeOptions,
): Promise<MetricsScrapeFigures> {
  const seeding = now();
  await seed(scratch, options);
  const seconds = (now() - seeding) / 1000;
  const { rows } = await scratch.db.query<{ requests: string }>(
    'SELECT count(*)::text AS requests FROM event_streams',
  );
  write(
    `  /metrics: seeded ${formatInteger(options.apiKeys)} API keys, ` +
      `${formatInteger(options.doneJobs + options.openJobs)} solver jobs, ${formatInteger(options.deliveries)} ` +
      `deliveries with ${formatInteger(options.deliveries * options.attemptsPerDelivery)} attempts in ` +
      `${seconds.toFixed(1)} s, beside ${formatInteger(Number(rows[0].requests))} streams`,
  );

  // A live instance's background work is caught up; the app-fee accrual on a freshly generated log is not (it would
  // fold the whole history while the scrapes are timed), so it is off here, as projections and webhooks are.
  const app = await startBenchApp(benchConfig(scratch.url, { APP_FEES_RUN: 'false' }));
  try {
    const first = await timedGet(`${app.baseUrl}/metrics`);
    if (first.status !== 200) throw new Error(`GET /metrics answered ${first.status}`);
    const scrapes: number[] = [];
    const notFound: number[] = [];
    let last = first.body;
    for (let i = 0; i < options.scrapes; i += 1) {
      const scrape = await timedGet(`${app.baseUrl}/metrics`);
      if (scrape.status !== 200) throw new Error(`GET /metrics answered ${scrape.status}`);
      scrapes.push(scrape.ms);
      last = scrape.body;
      notFound.push((await timedGet(`${app.baseUrl}/bench/missing`)).ms);
    }
    const figures: MetricsScrapeFigures = {
      seeded: {
        apiKeys: options.apiKeys,
        solverJobs: options.doneJobs + options.openJobs,
        deliveries: options.deliveries,
        attempts: options.deliveries * options.attemptsPerDelivery,
        requests: Number(rows[0].requests),
        seconds,
      },
      firstMs: first.ms,
      p50Ms: percentile(scrapes, 50),
      p99Ms: percentile(scrapes, 99),
      maxMs: Math.max(...scrapes),
      samples: last.split('\n').filter((line) => line !== '' && !line.startsWith('#')).length,
      bytes: Buffer.byteLength(last),
      notFoundP50Ms: median(notFound),
    };
    write(
      `  /metrics: first ${formatMs(figures.firstMs)}, p50 ${formatMs(figures.p50Ms)}, p99 ` +
        `${formatMs(figures.p99Ms)}, max ${formatMs(figures.maxMs)} over ${options.scrapes} scrapes ` +
        `(${formatInteger(figures.samples)} samples, ${formatInteger(figures.bytes / 1024)} KiB); 404 p50 ` +
        `${formatMs(figures.notFoundP50Ms)}`,
    );
    return figures;
  } finally {
    await app.close();
  }
}
