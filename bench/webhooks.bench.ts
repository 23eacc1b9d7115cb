import { CommandBus } from '@nestjs/cqrs';
import { OUTBOX_CONSUMER } from '../src/webhooks/outbox/webhook-outbox-writer.js';
import { ExecuteRequestCommand } from '../src/requests/commands/execute-request.command.js';
import { sampleLifecycle, sampleQuote } from '../src/requests/domain/sample-requests.js';
import { PostgresEventStore } from '../src/event-store/postgres/postgres-event-store.js';
import { apiKeysFor, benchConfig, startBenchApp } from './bench-app.js';
import { seedRequests } from './seed-requests.js';
import { formatInteger, formatMs, now, percentile, type ScratchDatabase, write } from './support.js';
import { arrivalKey } from './webhook-receiver-worker.js';
import { BenchWebhookReceiver } from './webhook-receiver.js';

/**
 * The Webhooks issue's figures, against a real loopback receiver (node:http in a worker thread, keep-alive,
 * answering 200 at once) and the real app with webhooks on (`WEBHOOKS_RUN=true`, `WEBHOOK_BATCH_SIZE`,
 * `WEBHOOK_ALLOW_LOCAL_TARGETS=true`), one API key whose endpoint is the receiver:
 *  (a) throughput, end to end: status-change events of a few thousand requests appended at once (generated like the
 *      request history, in one transaction, every quote carrying the key); the outbox writer turns them into
 *      deliveries and the dispatcher delivers them: deliveries ÷ time from the commit to the last delivery;
 *  (a') throughput, dispatch only: as many `webhook_deliveries` rows inserted at once (real bodies, one per
 *      request so that all are claimable), delivered by the dispatcher; (a'') the same with the table ANALYZE-d
 *      before the rows fall due, to show what stale planner statistics cost the claim query;
 *  (b) latency: status changes appended through the command bus at a steady rate (projections running too, as in
 *      production), each timed from the command being issued to the first attempt arriving at the receiver
 *      (matched by request id and status).
 * (a) runs with the projections off so that the figure is the webhook pipeline's own; (b) on a fresh database.
 */

export interface WebhooksOptions {
  /** About how many deliveries (a) and (a') queue. */
  readonly deliveries: number;
  readonly batchSize: number;
  /** (b): status changes per second, and for how long. */
  readonly ratePerSecond: number;
  readonly latencySeconds: number;
  /** Whether the projections run during (b), as in production (default true). */
  readonly latencyWithProjections?: boolean;
}

export interface ThroughputRun {
  readonly deliveries: number;
  readonly seconds: number;
  readonly perSecond: number;
  /** Requests the receiver got (at least once: ≥ deliveries). */
  readonly received: number;
}

export interface WebhooksFigures {
  readonly batchSize: number;
  readonly pipeline: ThroughputRun & {
    readonly requests: number;
    readonly events: number;
    /** From the commit until the outbox writer had queued every delivery. */
    readonly queuedSeconds: number;
  };
  readonly dispatch: ThroughputRun;
  /** Dispatch only again, with the table ANALYZE-d before the rows fall due (the claim's plan then walks the index). */
  readonly analyzed: ThroughputRun;
  readonly latency: {
    readonly projections: boolean;
    readonly changes: number;
    readonly ratePerSecond: number;
    readonly seconds: number;
    readonly p50Ms: number;
    readonly p99Ms: number;
    readonly maxMs: number;
    /** The command itself (load, decide, append), issued to resolved. */
    readonly commandP50Ms: number;
    readonly commandP99Ms: number;
  };
}

/** Deliveries of a request's outcome, on average over the generated mix (for sizing (a)). */
const DELIVERIES_PER_REQUEST = 3.4;

const webhookEnv = (batchSize: number, projections: boolean) => ({
  WEBHOOKS_RUN: 'true',
  WEBHOOK_BATCH_SIZE: String(batchSize),
  WEBHOOK_ALLOW_LOCAL_TARGETS: 'true',
  PROJECTIONS_RUN: projections ? 'true' : 'false',
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until every delivery matching `where` is delivered (none pending); the last one's time, epoch ms. */
async function waitDelivered(
  scratch: ScratchDatabase,
  where: string,
  expected: () => Promise<number | null>,
  timeoutMs: number,
): Promise<{ delivered: number; lastDeliveredMs: number; firstQueuedMs: number; lastQueuedMs: number }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await scratch.db.query<{
      delivered: bigint;
      failed: bigint;
      total: bigint;
      last_delivered: number | null;
      first_queued: number | null;
      last_queued: number | null;
    }>(
      `SELECT count(*) FILTER (WHERE state = 'delivered') AS delivered,
              count(*) FILTER (WHERE state = 'failed') AS failed, count(*) AS total,
              extract(epoch FROM max(delivered_at))::float8 * 1000 AS last_delivered,
              extract(epoch FROM min(created_at))::float8 * 1000 AS first_queued,
              extract(epoch FROM max(created_at))::float8 * 1000 AS last_queued
         FROM webhook_deliveries WHERE ${where}`,
    );
    const row = rows[0];
    if (row.failed > 0n) throw new Error(`${row.failed} webhook deliveries failed`);
    const total = await expected();
    if (total !== null && Number(row.total) === total && row.delivered === row.total && total > 0) {
      return {
        delivered: total,
        lastDeliveredMs: row.last_delivered!,
        firstQueuedMs: row.first_queued!,
        lastQueuedMs: row.last_queued!,
      };
    }
    if (Date.now() > deadline) {
      throw new Error(`Webhooks: ${row.delivered} of ${row.total} delivered after ${timeoutMs / 1000} s`);
    }
    await sleep(50);
  }
}

async function throughputRuns(
  scratch: ScratchDatabase,
  receiver: BenchWebhookReceiver,
  options: WebhooksOptions,
): Promise<Pick<WebhooksFigures, 'pipeline' | 'dispatch' | 'analyzed'>> {
  const config = benchConfig(scratch.url, webhookEnv(options.batchSize, false));
  const key = await apiKeysFor(scratch.db, config).create({
    label: 'bench: webhooks',
    webhookUrl: receiver.url,
  });
  const app = await startBenchApp(config);
  try {
    // (a) end to end: events appended in one transaction, after the outbox writer started at the head of the log.
    const requests = Math.max(50, Math.round(options.deliveries / DELIVERIES_PER_REQUEST));
    write(
      `  (a) ${formatInteger(requests)} requests' events appended in one transaction, every quote carrying the key…`,
    );
    await receiver.reset();
    let committedMs = 0;
    const seeded = await seedRequests(scratch.db, {
      requests,
      apiKeyIds: [key.id],
      withoutApiKeyTwentieths: 0,
      chunk: requests,
      parallel: 1,
      onProgress: () => {
        committedMs = Date.now();
      },
    });
    const store = new PostgresEventStore(scratch.db);
    const outboxCaughtUp = async (): Promise<number | null> => {
      const head = await store.headPosition();
      const { rows } = await scratch.db.query<{ caught_up: boolean; total: bigint }>(
        `SELECT (commit_position, prepare_position) >= ($2::bigint, $3::bigint) AS caught_up,
                (SELECT count(*) FROM webhook_deliveries WHERE event_id NOT LIKE 'dispatch%') AS total
           FROM projection_checkpoints WHERE name = $1 AND generation = 1`,
        [OUTBOX_CONSUMER, head.commit, head.prepare],
      );
      return rows[0]?.caught_up ? Number(rows[0].total) : null;
    };
    const pipeline = await waitDelivered(scratch, `event_id NOT LIKE 'dispatch%'`, outboxCaughtUp, 300_000);
    const pipelineSeconds = (pipeline.lastDeliveredMs - committedMs) / 1000;
    const pipelineReceived = (await receiver.report()).received;
    write(
      `    ${formatInteger(seeded.events)} events → ${formatInteger(pipeline.delivered)} deliveries, all delivered ` +
        `${pipelineSeconds.toFixed(2)} s after the commit (outbox rows all queued after ` +
        `${((pipeline.lastQueuedMs - committedMs) / 1000).toFixed(2)} s): ` +
        `${formatInteger(pipeline.delivered / pipelineSeconds)} deliveries/s; receiver got ${formatInteger(pipelineReceived)}`,
    );

    // (a') dispatch only: rows with real bodies, one per request, inserted at once.
    const count = pipeline.delivered;
    write(`  (a') ${formatInteger(count)} webhook_deliveries rows inserted at once (dispatch only)…`);
    await receiver.reset();
    await scratch.db.query(
      `WITH sample AS (
         SELECT row_number() OVER (ORDER BY id) - 1 AS i, status, body FROM webhook_deliveries
          WHERE event_id NOT LIKE 'dispatch%' ORDER BY id LIMIT 1000)
       INSERT INTO webhook_deliveries
         (id, webhook_id, event_id, api_key_id, request_id, sequence, status, body, event_created_at, next_attempt_at)
       SELECT gen_random_uuid(), 'whk_dispatch_' || g, 'dispatch-' || g, $1, 'dispatch-' || g, 0, s.status, s.body,
              now(), now()
         FROM generate_series(1, $2::int) AS g JOIN sample s ON s.i = g % (SELECT count(*) FROM sample)`,
      [key.id, count],
    );
    const insertedMs = Date.now();
    const dispatch = await waitDelivered(scratch, `event_id LIKE 'dispatch-%'`, async () => count, 300_000);
    const dispatchSeconds = (dispatch.lastDeliveredMs - insertedMs) / 1000;
    const dispatchReceived = (await receiver.report()).received;
    write(
      `    all delivered ${dispatchSeconds.toFixed(2)} s after the insert: ` +
        `${formatInteger(count / dispatchSeconds)} deliveries/s; receiver got ${formatInteger(dispatchReceived)}`,
    );
    // (a'') the same with fresh planner statistics: rows that fall due 2 s later, ANALYZE-d in between.
    write(`  (a'') the same, falling due 2 s after the insert, the table ANALYZE-d in between…`);
    await receiver.reset();
    const { rows: due } = await scratch.db.query<{ due: number }>(
      `WITH sample AS (
         SELECT row_number() OVER (ORDER BY id) - 1 AS i, status, body FROM webhook_deliveries
          WHERE event_id NOT LIKE 'dispatch%' ORDER BY id LIMIT 1000),
       inserted AS (
         INSERT INTO webhook_deliveries
           (id, webhook_id, event_id, api_key_id, request_id, sequence, status, body, event_created_at, next_attempt_at)
         SELECT gen_random_uuid(), 'whk_dispatch2_' || g, 'dispatch2-' || g, $1, 'dispatch2-' || g, 0, s.status,
                s.body, now(), now() + interval '2 seconds'
           FROM generate_series(1, $2::int) AS g JOIN sample s ON s.i = g % (SELECT count(*) FROM sample)
         RETURNING next_attempt_at)
       SELECT extract(epoch FROM min(next_attempt_at))::float8 * 1000 AS due FROM inserted`,
      [key.id, count],
    );
    await scratch.db.query('ANALYZE webhook_deliveries');
    const analyzed = await waitDelivered(scratch, `event_id LIKE 'dispatch2-%'`, async () => count, 300_000);
    const analyzedSeconds = (analyzed.lastDeliveredMs - due[0].due) / 1000;
    const analyzedReceived = (await receiver.report()).received;
    write(
      `    all delivered ${analyzedSeconds.toFixed(2)} s after falling due: ` +
        `${formatInteger(count / analyzedSeconds)} deliveries/s; receiver got ${formatInteger(analyzedReceived)}`,
    );
    return {
      analyzed: {
        deliveries: count,
        seconds: analyzedSeconds,
        perSecond: count / analyzedSeconds,
        received: analyzedReceived,
      },
      pipeline: {
        requests,
        events: seeded.events,
        deliveries: pipeline.delivered,
        seconds: pipelineSeconds,
        perSecond: pipeline.delivered / pipelineSeconds,
        received: pipelineReceived,
        queuedSeconds: (pipeline.lastQueuedMs - committedMs) / 1000,
      },
      dispatch: {
        deliveries: count,
        seconds: dispatchSeconds,
        perSecond: count / dispatchSeconds,
        received: dispatchReceived,
      },
    };
  } finally {
    await app.close();
  }
}

const STEP_STATUSES = ['waiting', 'pending', 'submitted', 'success'] as const;

async function latencyRun(
  scratch: ScratchDatabase,
  receiver: BenchWebhookReceiver,
  options: WebhooksOptions,
): Promise<WebhooksFigures['latency']> {
  const projections = options.latencyWithProjections ?? true;
  const config = benchConfig(scratch.url, webhookEnv(options.batchSize, projections));
  const key = await apiKeysFor(scratch.db, config).create({
    label: 'bench: webhooks',
    webhookUrl: receiver.url,
  });
  const app = await startBenchApp(config);
  try {
    const bus = app.app.get(CommandBus);
    const total = Math.round(options.ratePerSecond * options.latencySeconds);
    const requests = Math.max(1, Math.ceil(total / STEP_STATUSES.length));
    const warmup = 5;
    const lifecycles = Array.from({ length: requests + warmup }, (_, index) => {
      const quote = sampleQuote(index + 1, { apiKeyId: key.id });
      return { requestId: quote.requestId, commands: sampleLifecycle(quote, index + 1) };
    });
    const execute = (requestId: string, command: (typeof lifecycles)[number]['commands'][number]) =>
      bus.execute(new ExecuteRequestCommand(requestId, command, { actor: 'bench' }));
    // Every quote first (a quote announces nothing), then a few whole lifecycles to warm the path up.
    for (const lifecycle of lifecycles) await execute(lifecycle.requestId, lifecycle.commands[0]);
    for (const lifecycle of lifecycles.slice(requests)) {
      for (const command of lifecycle.commands.slice(1)) await execute(lifecycle.requestId, command);
    }
    const warmDeadline = Date.now() + 30_000;
    while ((await receiver.report()).received < warmup * STEP_STATUSES.length) {
      if (Date.now() > warmDeadline) throw new Error('Webhooks: the warm-up deliveries did not arrive');
      await sleep(20);
    }
    await receiver.reset();

    write(
      `  (b) ${formatInteger(total)} status changes through the command bus at ${options.ratePerSecond}/s ` +
        `(${formatInteger(requests)} requests × 4 steps, round robin), projections ${projections ? 'running' : 'off'}…`,
    );
    const issued: { key: string; at: number }[] = [];
    const commandMs: number[] = [];
    const chains = new Map<string, Promise<unknown>>();
    const started = now();
    for (let i = 0; i < total; i += 1) {
      const wait = started + (i * 1000) / options.ratePerSecond - now();
      if (wait > 0) await sleep(wait);
      const lifecycle = lifecycles[i % requests];
      const step = Math.floor(i / requests);
      const previous = chains.get(lifecycle.requestId) ?? Promise.resolve();
      chains.set(
        lifecycle.requestId,
        previous.then(async () => {
          const at = performance.timeOrigin + performance.now();
          issued.push({ key: arrivalKey(lifecycle.requestId, STEP_STATUSES[step]), at });
          const commandStarted = now();
          await execute(lifecycle.requestId, lifecycle.commands[step + 1]);
          commandMs.push(now() - commandStarted);
        }),
      );
    }
    await Promise.all(chains.values());
    const seconds = (now() - started) / 1000;
    const deadline = Date.now() + 60_000;
    let arrivals = (await receiver.report()).firstArrivals;
    while (issued.some((change) => !arrivals.has(change.key))) {
      if (Date.now() > deadline) {
        const missing = issued.filter((change) => !arrivals.has(change.key)).length;
        throw new Error(`Webhooks: ${missing} of ${issued.length} status changes never arrived`);
      }
      await sleep(50);
      arrivals = (await receiver.report()).firstArrivals;
    }
    const latencies = issued.map((change) => arrivals.get(change.key)! - change.at);
    const figures = {
      projections,
      changes: issued.length,
      ratePerSecond: issued.length / seconds,
      seconds,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      maxMs: Math.max(...latencies),
      commandP50Ms: percentile(commandMs, 50),
      commandP99Ms: percentile(commandMs, 99),
    };
    write(
      `    ${formatInteger(figures.changes)} status changes in ${seconds.toFixed(1)} s ` +
        `(${figures.ratePerSecond.toFixed(1)}/s): issued → first attempt received p50 ${formatMs(figures.p50Ms)}, ` +
        `p99 ${formatMs(figures.p99Ms)}, max ${formatMs(figures.maxMs)}; the command itself p50 ` +
        `${formatMs(figures.commandP50Ms)}, p99 ${formatMs(figures.commandP99Ms)}`,
    );
    return figures;
  } finally {
    await app.close();
  }
}

/** `throughputDb` and `latencyDb`: two fresh scratch databases. */
export async function runWebhooksBench(
  throughputDb: ScratchDatabase,
  latencyDb: ScratchDatabase,
  options: WebhooksOptions,
): Promise<WebhooksFigures> {
  const receiver = await new BenchWebhookReceiver().start();
  try {
    const { pipeline, dispatch, analyzed } = await throughputRuns(throughputDb, receiver, options);
    await receiver.reset();
    const latency = await latencyRun(latencyDb, receiver, options);
    return { batchSize: options.batchSize, pipeline, dispatch, analyzed, latency };
  } finally {
    await receiver.stop();
  }
}
