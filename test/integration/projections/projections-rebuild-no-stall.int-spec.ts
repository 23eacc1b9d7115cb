import { randomBytes } from 'node:crypto';
import type { CommandBus } from '@nestjs/cqrs';
import pg from 'pg';
import { generatePrivateKey } from 'viem/accounts';
import { ApiKeysService } from '../../../src/api-keys/api-keys.service.js';
import type { ChainRegistry } from '../../../src/chains/chain-registry.js';
import { systemClock } from '../../../src/common/clock.js';
import type { AppConfig } from '../../../src/config/app-config.js';
import type { NewEvent, RecordedEvent } from '../../../src/event-store/event-store.js';
import { PostgresEventStore } from '../../../src/event-store/postgres/postgres-event-store.js';
import type { RequestCommand } from '../../../src/requests/domain/request-decide.js';
import { sampleLifecycle, sampleQuote } from '../../../src/requests/domain/sample-requests.js';
import { Solver, SOLVER_CONSUMER } from '../../../src/solver/solver.js';
import { WebhookOutboxWriter } from '../../../src/webhooks/outbox/webhook-outbox-writer.js';
import { WebhookSignal } from '../../../src/webhooks/webhook-signal.js';
import type { Projection } from '../../../projections/projection.js';
import { requestsV3Projection } from '../../../projections/requests-v3/requests-v3.projection.js';
import { ProjectionRunner } from '../../../projections/runner/projection-runner.js';
import { rebuildProjection } from '../../../projections/runner/rebuild.js';
import { streamSummariesProjection } from '../../../projections/stream-summaries/stream-summaries.projection.js';
import { migratedDatabase, type MigratedDatabase, waitForReadable } from '../../support/postgres.js';
import { recordedEvents } from '../../support/request-events.js';

/** Enough rows for a real index build; the gate, not the size, keeps the build running while the test checks. */
const REQUESTS = 20_000;
/** The advisory lock that holds the rebuild inside its index build for as long as the test needs. */
const GATE = 7_140_014;
const WAIT_MS = 20_000;

/**
 * requests-v3 with one more index, first in line, whose expression waits at the gate: the rebuild is then inside an
 * index build, exactly as during a long one, until the test opens it.
 */
const gatedV3: Projection = {
  ...(requestsV3Projection as Projection),
  indexes: [{ name: 'gate_idx', columns: ['ferry_test_gate(id)'] }, ...(requestsV3Projection.indexes ?? [])],
};

const toNew = (events: readonly RecordedEvent[], prefix: string): NewEvent[] =>
  events.map((event, index) => ({ id: `${prefix}-${index}`, type: event.type, data: event.data }));

async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  waitMs = WAIT_MS,
): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${waitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('a rebuild of a large projection', () => {
  let database: MigratedDatabase;
  let gate: pg.Client;

  beforeAll(async () => {
    database = await migratedDatabase('postgres');
    gate = new pg.Client({ connectionString: database.url });
    await gate.connect();
  });
  afterAll(async () => {
    await gate?.end();
    await database?.close();
  });

  it('lets live projections, the webhook outbox and the solver keep moving while it builds its indexes', async () => {
    const { db } = database;
    const store = new PostgresEventStore(db);
    await db.query(
      `CREATE FUNCTION ferry_test_gate(value text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
       BEGIN PERFORM pg_advisory_lock_shared(${GATE}); PERFORM pg_advisory_unlock_shared(${GATE}); RETURN value; END
       $$`,
    );
    // The live side, as the app runs it: a projection, the webhook outbox writer and the solver's job queue.
    const live = new ProjectionRunner(db, store, {
      batchSize: 500,
      pollIntervalMs: 10,
      rebuildOnVersionChange: true,
    });
    const summaries = streamSummariesProjection as Projection;
    await live.prepare(summaries);
    while ((await live.tick(summaries)) > 0);
    expect(await live.registry.get(summaries.name)).toMatchObject({
      liveGeneration: 1,
      buildingGeneration: null,
    });

    // The history: quoted requests, written in one statement.
    const [quoted] = recordedEvents([sampleLifecycle(sampleQuote(1), 1)[0]]);
    await db.query(
      `WITH ids AS (SELECT i, '0x' || lpad(to_hex(i), 64, '0') AS id FROM generate_series(1, $2::int) i),
            inserted AS (
              INSERT INTO events (stream_id, stream_revision, event_id, event_type, data)
              SELECT 'request-' || id, 0, 'seed-' || i, 'RequestQuoted', jsonb_set($1::jsonb, '{requestId}', to_jsonb(id))
                FROM ids ORDER BY i RETURNING stream_id)
       INSERT INTO event_streams (stream_id, revision) SELECT stream_id, 0 FROM inserted`,
      [JSON.stringify(quoted.data), REQUESTS],
    );
    await waitForReadable(db);
    // The live side has caught up with it: the projection's rows for it are not what this test is about, and the
    // outbox and the solver start at the head of the log (as on their first start).
    const head = await store.headPosition();
    await db.query(
      `UPDATE projection_checkpoints SET commit_position = $2, prepare_position = $3 WHERE name = $1 AND generation = 1`,
      [summaries.name, head.commit, head.prepare],
    );
    await db.query(
      `INSERT INTO projection_checkpoints (name, generation, commit_position, prepare_position) VALUES ($1, 1, $2, $3)`,
      [SOLVER_CONSUMER, head.commit, head.prepare],
    );
    const apiKeys = new ApiKeysService(db, {
      apiKeys: {
        encryptionKey: randomBytes(32),
        defaultRateLimitPerMinute: 60,
        anonymousRateLimitPerMinute: 0,
      },
    });
    const key = await apiKeys.create({ label: 'wallet', webhookUrl: 'https://hooks.example.com/ferry' });
    const outbox = new WebhookOutboxWriter(
      { webhooks: { batchSize: 100 } } as AppConfig,
      db,
      store,
      apiKeys,
      new WebhookSignal(),
    );
    await outbox.ensureCheckpoint();
    // Only its job queue runs here (`queueJobs`), which reads the log and no chain.
    const solver = new Solver(db, store, {} as ChainRegistry, {} as CommandBus, systemClock, {
      privateKey: generatePrivateKey(),
      pollIntervalMs: 10,
      batchSize: 100,
      leaseMs: 30_000,
    });
    await live.start([summaries]);
    try {
      await gate.query('SELECT pg_advisory_lock($1)', [GATE]);
      const runner = new ProjectionRunner(db, store, {
        batchSize: 5_000,
        pollIntervalMs: 10,
        rebuildOnVersionChange: true,
      });
      const rebuilt = rebuildProjection(runner, store, gatedV3, { batchSize: 5_000 });
      rebuilt.catch(() => undefined);
      // The rebuild has filled its generation and is inside an index build, held at the gate.
      const building = await eventually(
        'an index build waiting at the gate',
        async () => {
          const { rows } = await db.query<{ pid: number }>(
            `SELECT pid FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'
              AND query ILIKE 'CREATE INDEX%'`,
          );
          return rows[0]?.pid;
        },
        90_000,
      );

      // Meanwhile a request is quoted, its deposit seen and confirmed.
      const quote = sampleQuote(REQUESTS + 1, { apiKeyId: key.id });
      const [recordQuote, detect, confirm] = sampleLifecycle(quote, REQUESTS + 1) as RequestCommand[];
      const stream = `request-${quote.requestId.toLowerCase()}`;
      await store.appendToStream(
        stream,
        toNew(recordedEvents([recordQuote, detect, confirm], stream), 'live'),
      );

      const summary = await eventually('the live projection applying it', async () => {
        const { rows } = await db.query<{ events: number }>(
          'SELECT events FROM stream_summaries WHERE id = $1',
          [stream],
        );
        return rows[0]?.events === 3 ? rows[0] : undefined;
      });
      expect(summary.events).toBe(3);
      await eventually('the webhook outbox queueing its status change', async () => {
        await outbox.writeBatch();
        const { rows } = await db.query('SELECT 1 FROM webhook_deliveries WHERE request_id = $1', [
          quote.requestId.toLowerCase(),
        ]);
        return rows.length > 0 ? true : undefined;
      });
      await eventually('the solver queueing its fill', async () => {
        await solver.queueJobs();
        const { rows } = await db.query(`SELECT 1 FROM solver_jobs WHERE request_id = $1 AND kind = 'fill'`, [
          quote.requestId.toLowerCase(),
        ]);
        return rows.length > 0 ? true : undefined;
      });
      // All of that happened inside the same index build: it is still waiting at the gate.
      const { rows: still } = await db.query<{ waiting: boolean }>(
        `SELECT wait_event = 'advisory' AS waiting FROM pg_stat_activity WHERE pid = $1`,
        [building],
      );
      expect(still[0]?.waiting).toBe(true);

      await gate.query('SELECT pg_advisory_unlock($1)', [GATE]);
      const [result] = await Promise.all([rebuilt]);
      expect(result.events).toBeGreaterThanOrEqual(REQUESTS);
      const { rows: served } = await db.query<{ rows: bigint }>('SELECT count(*) AS rows FROM requests_v3');
      expect(Number(served[0].rows)).toBe(REQUESTS + 1);
      const { rows: invalid } = await db.query(
        `SELECT 1 FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid
          WHERE t.relname = $1 AND NOT i.indisvalid`,
        [`requests_v3_g${result.generation}`],
      );
      expect(invalid).toEqual([]);
    } finally {
      await gate.query('SELECT pg_advisory_unlock_all()');
      await live.stop();
    }
  }, 180_000);
});
