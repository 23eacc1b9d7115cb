import { createHash } from 'node:crypto';
import os from 'node:os';
import type { Projection } from '../../projections/projection.js';
import { requestsV2Projection } from '../../projections/requests-v2/requests-v2.projection.js';
import { requestsV3Projection } from '../../projections/requests-v3/requests-v3.projection.js';
import { ProjectionRunner } from '../../projections/runner/projection-runner.js';
import { rebuildProjections } from '../../projections/runner/rebuild.js';
import { PostgresDatabase } from '../../src/database/postgres-database.js';
import { PostgresEventStore } from '../../src/event-store/postgres/postgres-event-store.js';
import { recordAnswerText } from '../../src/history/record-text.js';
import { BENCH_SERVER_URL, Breakdown, instrument, now, startCpuSampled, write } from '../support.js';

/**
 * EXPERIMENT, by hand only: one rebuild of requests-v3 + requests-v2 on a kept history database (seeded by
 * `history-db.js seed`), as `requests-history.bench.ts` runs it, printing events/s and the CPU per 1,000 events
 * applied of this process and of the database's backends, and the statements per batch. Run it from two builds
 * (a copy of the base's `dist/` and this one) alternately on the same database to compare them.
 *   node dist/bench/experiments/rebuild-ab.js <database> [batchSize] [--digest]
 * `--digest` also prints, after the rebuild, a digest of what the two tables answer: every v3 row's answer text
 * (`recordAnswerText`), its columns, every v2 row's decoded state and columns; equal digests = same answers.
 */

const V3 = requestsV3Projection as Projection;
const V2 = requestsV2Projection as Projection;

async function rebuild(db: PostgresDatabase, batchSize: number): Promise<void> {
  const breakdown = new Breakdown();
  const sql = instrument(db, breakdown);
  const store = new PostgresEventStore(sql);
  const runner = new ProjectionRunner(sql, store, {
    batchSize,
    pollIntervalMs: 100,
    rebuildOnVersionChange: true,
  });
  await Promise.all(Array.from({ length: 4 }, () => db.query('SELECT pg_sleep(0.01)')));
  const load = os.loadavg()[0];
  const stopCpu = await startCpuSampled(db, 200);
  const started = now();
  const [result] = await rebuildProjections(runner, store, [V3, V2], { batchSize });
  const ms = now() - started;
  const cpu = await stopCpu();
  const applied = 2 * result.events;
  const batches = Math.ceil(result.events / batchSize);
  const statements = breakdown.rows();
  const count = statements.reduce((sum, row) => sum + row.count, 0);
  write(
    JSON.stringify({
      events: result.events,
      seconds: +(ms / 1000).toFixed(1),
      eventsPerSecond: Math.round(applied / (ms / 1000)),
      nodeUsPerEvent: +((cpu.nodeMs * 1000) / applied).toFixed(2),
      postgresUsPerEvent: cpu.postgresMs === null ? null : +((cpu.postgresMs * 1000) / applied).toFixed(2),
      load: +load.toFixed(1),
      statementsPerBatch: +(count / batches).toFixed(1),
    }),
  );
  for (const row of statements.sort((a, b) => b.ms - a.ms).slice(0, 12)) {
    write(
      `  ${row.label.slice(0, 70).padEnd(70)} ${String(row.count).padStart(6)} ${row.ms.toFixed(0).padStart(8)} ms`,
    );
  }
}

/** A digest of what the live tables answer (not of how they store it). */
async function digest(db: PostgresDatabase): Promise<void> {
  const v3Columns = V3.columns.map((c) => `${c.name}::text`).join(`, '|', `);
  const v2Columns = V2.columns.map((c) => `${c.name}::text`).join(`, '|', `);
  const v3 = createHash('sha256');
  const v2 = createHash('sha256');
  let after = '';
  for (;;) {
    const { rows } = await db.query<{
      id: string;
      record: string;
      currencies: unknown[] | null;
      columns: string;
    }>(
      `SELECT id, (state->'v3')::text AS record, state->'$currencies' AS currencies,
              concat_ws('|', ${v3Columns}) AS columns
         FROM requests_v3 WHERE id > $1 ORDER BY id LIMIT 5000`,
      [after],
    );
    if (rows.length === 0) break;
    for (const row of rows) {
      const texts = (row.currencies ?? []).map((currency) => JSON.stringify(currency));
      v3.update(`${row.id}\n${recordAnswerText(row.record, texts)}\n${row.columns}\n`);
    }
    after = rows[rows.length - 1].id;
  }
  after = '';
  for (;;) {
    const { rows } = await db.query<{ id: string; state: unknown; columns: string }>(
      `SELECT id, state, concat_ws('|', ${v2Columns}) AS columns FROM requests_v2 WHERE id > $1 ORDER BY id LIMIT 5000`,
      [after],
    );
    if (rows.length === 0) break;
    for (const row of rows) {
      v2.update(`${row.id}\n${JSON.stringify(V2.codec!.decode(row.state))}\n${row.columns}\n`);
    }
    after = rows[rows.length - 1].id;
  }
  write(JSON.stringify({ v3: v3.digest('hex').slice(0, 16), v2: v2.digest('hex').slice(0, 16) }));
}

const [database, batch, flag] = process.argv.slice(2);
if (!database || !/^[a-z0-9_]+$/.test(database)) throw new Error('usage: <database> [batchSize] [--digest]');
const url = new URL(BENCH_SERVER_URL);
url.pathname = `/${database}`;
const db = new PostgresDatabase({ url: url.toString(), poolSize: 8, applicationName: 'ferry-rebuild-ab' });
try {
  await rebuild(db, Number(batch ?? 5000));
  if (flag === '--digest') await digest(db);
} finally {
  await db.close();
}
