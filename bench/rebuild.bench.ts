import type { Database } from '../src/database/database.js';
import type { EventStore } from '../src/event-store/event-store.js';
import { PostgresEventStore } from '../src/event-store/postgres/postgres-event-store.js';
import type { Projection } from '../projections/projection.js';
import { ProjectionRunner } from '../projections/runner/projection-runner.js';
import { rebuildProjection } from '../projections/runner/rebuild.js';
import { streamSummariesProjection } from '../projections/stream-summaries/stream-summaries.projection.js';
import { withFastReadAll } from './experiments/fast-read-store.js';
import {
  Breakdown,
  type CpuUsage,
  formatInteger,
  instrument,
  median,
  now,
  startCpu,
  write,
} from './support.js';

/**
 * Rebuild: `rebuildProjection` of the stream-summaries projection over the whole log (a fresh generation filled
 * from START, then swapped in), timed end to end. One more instrumented rebuild splits the time per SQL
 * statement (wall time: parameter encoding, server, wire, pg row parsing) and the rest (BEGIN/COMMIT, event
 * mapping, fold, state serialisation).
 * Each round is followed by the same rebuild reading through the experimental read path
 * (bench/experiments/fast-read-store.ts).
 */

export interface RebuildOptions {
  readonly batchSize: number;
  readonly rounds: number;
}

export interface RebuildFigures {
  readonly batchSize: number;
  readonly events: number;
  readonly rows: number;
  readonly secondsPerRound: readonly number[];
  readonly eventsPerSecond: number;
  /** Median CPU per round: Node, and the PostgreSQL backends (null if unknown). */
  readonly cpu: CpuUsage;
  /** The same rebuild reading through withFastReadAll, one right after each regular round (median). */
  readonly experimentEventsPerSecond: number;
  readonly experimentCpu: CpuUsage;
  readonly profile: readonly { readonly label: string; readonly ms: number; readonly count: number }[];
  readonly profileTotalMs: number;
}

const projection = streamSummariesProjection as Projection;

async function rebuildOnce(
  db: Database,
  batchSize: number,
  makeStore: (db: Database) => EventStore = (sql) => new PostgresEventStore(sql),
  cpuDb: Database = db,
): Promise<{ events: number; seconds: number; cpu: CpuUsage }> {
  const store = makeStore(db);
  const stopCpu = await startCpu(cpuDb);
  const runner = new ProjectionRunner(db, store, {
    batchSize,
    pollIntervalMs: 100,
    rebuildOnVersionChange: true,
  });
  const started = now();
  const result = await rebuildProjection(runner, store, projection, { batchSize });
  const seconds = (now() - started) / 1000;
  return { events: result.events, seconds, cpu: stopCpu() };
}

const cpuText = (cpu: CpuUsage): string =>
  `CPU Node ${formatInteger(cpu.nodeMs)} ms` +
  (cpu.postgresMs === null ? '' : `, PostgreSQL ${formatInteger(cpu.postgresMs)} ms`);

function medianCpu(usages: readonly CpuUsage[]): CpuUsage {
  const postgres = usages.map((usage) => usage.postgresMs);
  return {
    nodeMs: median(usages.map((usage) => usage.nodeMs)),
    postgresMs: postgres.every((ms) => ms !== null) ? median(postgres as number[]) : null,
  };
}

/** The live read model holds one row per stream and counts every event. */
async function verify(db: Database, expectedEvents: number, expectedRows: number): Promise<number> {
  const { rows } = await db.query<{ rows: bigint; events: bigint | null }>(
    `SELECT count(*) AS rows, sum(events)::bigint AS events FROM ${projection.table}`,
  );
  const row = rows[0];
  if (Number(row.rows) !== expectedRows || Number(row.events) !== expectedEvents) {
    throw new Error(
      `Rebuild check failed: ${row.rows} rows / ${row.events} events, expected ${expectedRows} / ${expectedEvents}`,
    );
  }
  return Number(row.rows);
}

export async function runRebuildBench(
  db: Database,
  expectedEvents: number,
  expectedStreams: number,
  options: RebuildOptions,
): Promise<RebuildFigures> {
  const seconds: number[] = [];
  const cpu: CpuUsage[] = [];
  const experimentSeconds: number[] = [];
  const experimentCpu: CpuUsage[] = [];
  const fastStore = (sql: Database) => withFastReadAll(sql, new PostgresEventStore(sql));
  for (let round = 0; round < options.rounds; round += 1) {
    // Each regular round is followed by the experimental one, so both see the same conditions on the machine.
    for (const experiment of [false, true]) {
      const result = await rebuildOnce(db, options.batchSize, experiment ? fastStore : undefined);
      if (result.events !== expectedEvents) {
        throw new Error(`Rebuild processed ${result.events} events, expected ${expectedEvents}`);
      }
      (experiment ? experimentSeconds : seconds).push(result.seconds);
      (experiment ? experimentCpu : cpu).push(result.cpu);
      write(
        `  round ${round + 1}${experiment ? ' experiment (withFastReadAll)' : ''}: ` +
          `${formatInteger(result.events)} events in ${result.seconds.toFixed(2)} s → ` +
          `${formatInteger(result.events / result.seconds)} events/s; ${cpuText(result.cpu)}`,
      );
    }
  }
  const rows = await verify(db, expectedEvents, expectedStreams);

  const breakdown = new Breakdown();
  const started = now();
  await rebuildOnce(instrument(db, breakdown), options.batchSize, undefined, db);
  const profileTotalMs = now() - started;
  const statements = breakdown.rows();
  const sqlMs = statements.reduce((sum, row) => sum + row.ms, 0);
  const major = statements.filter((row) => row.ms >= profileTotalMs / 100);
  const minor = statements.filter((row) => row.ms < profileTotalMs / 100);
  const profile = [
    ...major,
    {
      label: `sql: ${minor.length} other statements`,
      ms: minor.reduce((sum, row) => sum + row.ms, 0),
      count: minor.reduce((sum, row) => sum + row.count, 0),
    },
    { label: 'rest: BEGIN/COMMIT, mapping, fold, stringify', ms: profileTotalMs - sqlMs, count: 0 },
  ];
  for (const row of profile) {
    write(
      `  profile ${row.label.padEnd(42)} ${row.ms.toFixed(0).padStart(6)} ms ` +
        `${((100 * row.ms) / profileTotalMs).toFixed(1).padStart(5)}%${row.count ? ` (${row.count}×)` : ''}`,
    );
  }

  return {
    batchSize: options.batchSize,
    events: expectedEvents,
    rows,
    secondsPerRound: seconds,
    eventsPerSecond: expectedEvents / median(seconds),
    cpu: medianCpu(cpu),
    experimentEventsPerSecond: expectedEvents / median(experimentSeconds),
    experimentCpu: medianCpu(experimentCpu),
    profile,
    profileTotalMs,
  };
}
