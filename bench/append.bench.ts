import type { Database } from '../src/database/database.js';
import type { ExpectedRevision } from '../src/event-store/event-store.js';
import { PostgresEventStore } from '../src/event-store/postgres/postgres-event-store.js';
import { type CpuUsage, formatInteger, median, now, percentile, startCpu, write } from './support.js';

/**
 * Appends: 16 writers, each saving its own aggregates one after another (1, 2 or 3 events per save, cycling, with
 * the exact expected revision of its previous save), through `PostgresEventStore.appendToStream`; and the same
 * writers and batch shapes doing a plain multi-row INSERT into a table with the `events` columns and only a
 * bigserial primary key (no stream table, no function, no unique or feed index). Both are warmed up, then run in
 * back-to-back pairs whose order alternates (ES RAW, RAW ES, …); each side's figure is its median round and the
 * ratio is the median of the pairs' ratios, so a burst of other work on the machine skews one pair, not the result.
 */

export const APPEND_WRITERS = 16;
const BATCH_SHAPES = [1, 2, 3] as const;
/** Saves per aggregate before a writer moves on to its next one (about 8 events per stream). */
const SAVES_PER_STREAM = 4;

export interface AppendOptions {
  /** Events per round, over all writers. */
  readonly events: number;
  readonly warmupEvents: number;
  readonly rounds: number;
}

export interface AppendRound {
  readonly events: number;
  readonly appends: number;
  readonly seconds: number;
  readonly eventsPerSecond: number;
  readonly latenciesMs: readonly number[];
  readonly cpu: CpuUsage;
}

export interface AppendSide {
  readonly rounds: readonly AppendRound[];
  /** Median over rounds. */
  readonly eventsPerSecond: number;
  /** Over every append of every round. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Median over rounds of the CPU time per append (µs): Node, and PostgreSQL backends (null if unknown). */
  readonly nodeUsPerAppend: number;
  readonly postgresUsPerAppend: number | null;
}

export interface AppendFigures {
  readonly writers: number;
  readonly eventsPerRound: number;
  readonly eventStore: AppendSide;
  readonly raw: AppendSide;
  /** Median over back-to-back pairs of event store events/s ÷ raw INSERT events/s. */
  readonly ratio: number;
}

interface BenchEvent {
  readonly id: string;
  readonly type: string;
  readonly data: Record<string, unknown>;
  readonly metadata: Record<string, unknown>;
}

/** Saves one batch to a stream after `expected`; resolves to the stream's revision after it. */
type Save = (streamId: string, events: readonly BenchEvent[], expected: ExpectedRevision) => Promise<bigint>;

const EVENT_TYPES = [
  'SwapRequested',
  'QuoteAccepted',
  'DepositObserved',
  'TransferSubmitted',
  'TransferConfirmed',
];

/** A realistic small payload (~250 bytes of JSON with metadata). */
function benchEvent(run: string, writer: number, sequence: number, streamId: string): BenchEvent {
  return {
    id: `${run}-w${writer}-e${sequence}`,
    type: EVENT_TYPES[sequence % EVENT_TYPES.length],
    data: {
      requestId: streamId,
      chainId: 1 + (sequence % 7),
      amount: String(1_000_000_007n * BigInt(sequence + 1)),
      recipient: `0x${(writer * 1_000_003 + sequence).toString(16).padStart(40, '0')}`,
      sequence,
    },
    metadata: {
      correlationId: streamId,
      causationId: `${run}-w${writer}-e${sequence - 1}`,
      producer: 'bench',
    },
  };
}

/** One writer's deterministic workload: its own aggregates, each saved SAVES_PER_STREAM times, 1–3 events a save. */
async function runWriter(
  save: Save,
  run: string,
  writer: number,
  quota: number,
  latencies: number[],
): Promise<number> {
  let written = 0;
  let saves = 0;
  let stream = 0;
  let expected: ExpectedRevision = 'no_stream';
  let streamId = `request-${run}w${writer}s${stream}`;
  while (written < quota) {
    if (saves > 0 && saves % SAVES_PER_STREAM === 0) {
      stream += 1;
      streamId = `request-${run}w${writer}s${stream}`;
      expected = 'no_stream';
    }
    const size = Math.min(BATCH_SHAPES[(saves + writer) % BATCH_SHAPES.length], quota - written);
    const events: BenchEvent[] = [];
    for (let index = 0; index < size; index += 1) {
      events.push(benchEvent(run, writer, written + index, streamId));
    }
    const started = now();
    expected = await save(streamId, events, expected);
    latencies.push(now() - started);
    written += size;
    saves += 1;
  }
  return saves;
}

async function runRound(db: Database, save: Save, run: string, events: number): Promise<AppendRound> {
  const latencies: number[] = [];
  const stopCpu = await startCpu(db);
  const quotas = Array.from(
    { length: APPEND_WRITERS },
    (_, writer) => Math.floor(events / APPEND_WRITERS) + (writer < events % APPEND_WRITERS ? 1 : 0),
  );
  const started = now();
  const appends = await Promise.all(
    quotas.map((quota, writer) => runWriter(save, run, writer, quota, latencies)),
  );
  const seconds = (now() - started) / 1000;
  const cpu = stopCpu();
  return {
    events,
    appends: appends.reduce((sum, count) => sum + count, 0),
    seconds,
    eventsPerSecond: events / seconds,
    latenciesMs: latencies,
    cpu,
  };
}

function eventStoreSave(db: Database): Save {
  const store = new PostgresEventStore(db);
  return async (streamId, events, expected) => {
    const result = await store.appendToStream(streamId, events, {
      expectedRevision: expected,
    });
    return result.nextExpectedRevision;
  };
}

const RAW_INSERT = `INSERT INTO bench_raw_events (stream_id, stream_revision, event_id, event_type, data, metadata)
  SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::jsonb[], $6::jsonb[])`;

function rawSave(db: Database): Save {
  return async (streamId, events, expected) => {
    const first = typeof expected === 'bigint' ? expected + 1n : 0n;
    await db.query(RAW_INSERT, [
      events.map(() => streamId),
      events.map((_, index) => (first + BigInt(index)).toString()),
      events.map((event) => event.id),
      events.map((event) => event.type),
      events.map((event) => JSON.stringify(event.data)),
      events.map((event) => JSON.stringify(event.metadata)),
    ]);
    return first + BigInt(events.length - 1);
  };
}

/** Same columns as `events`, but only the bigserial primary key. */
async function createRawTable(db: Database): Promise<void> {
  await db.query(`
    CREATE TABLE bench_raw_events (
      global_position bigserial PRIMARY KEY,
      transaction_id  xid8 NOT NULL DEFAULT pg_current_xact_id(),
      stream_id       text NOT NULL,
      stream_revision bigint NOT NULL,
      event_id        text NOT NULL,
      event_type      text NOT NULL,
      schema_version  integer NOT NULL DEFAULT 1,
      data            jsonb NOT NULL,
      metadata        jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_at      timestamptz NOT NULL DEFAULT now()
    )`);
}

/** Flushes dirty buffers so a checkpoint does not land inside one side's round only. */
async function checkpoint(db: Database): Promise<void> {
  await db.query('CHECKPOINT').catch(() => undefined);
}

function side(rounds: AppendRound[]): AppendSide {
  const latencies = rounds.flatMap((round) => round.latenciesMs);
  const postgres = rounds.map((round) => round.cpu.postgresMs);
  return {
    rounds,
    eventsPerSecond: median(rounds.map((round) => round.eventsPerSecond)),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    nodeUsPerAppend: median(rounds.map((round) => (1000 * round.cpu.nodeMs) / round.appends)),
    postgresUsPerAppend: postgres.every((ms) => ms !== null)
      ? median(rounds.map((round) => (1000 * round.cpu.postgresMs!) / round.appends))
      : null,
  };
}

/** `db` must be a fresh migrated database whose pool holds at least APPEND_WRITERS connections. */
export async function runAppendBench(db: Database, options: AppendOptions): Promise<AppendFigures> {
  await createRawTable(db);
  const sides = { eventStore: eventStoreSave(db), raw: rawSave(db) };
  const results: { eventStore: AppendRound[]; raw: AppendRound[] } = { eventStore: [], raw: [] };

  for (const name of ['eventStore', 'raw'] as const) {
    const warm = await runRound(db, sides[name], `warm${name === 'raw' ? 'r' : 'e'}`, options.warmupEvents);
    write(`  warm-up ${label(name)}: ${formatInteger(warm.eventsPerSecond)} events/s`);
  }

  for (let round = 0; round < options.rounds; round += 1) {
    const order = round % 2 === 0 ? (['eventStore', 'raw'] as const) : (['raw', 'eventStore'] as const);
    for (const name of order) {
      await checkpoint(db);
      const result = await runRound(
        db,
        sides[name],
        `r${round}${name === 'raw' ? 'r' : 'e'}`,
        options.events,
      );
      results[name].push(result);
      write(
        `  round ${round + 1} ${label(name)}: ${formatInteger(result.events)} events, ` +
          `${formatInteger(result.appends)} appends in ${result.seconds.toFixed(2)} s → ` +
          `${formatInteger(result.eventsPerSecond)} events/s` +
          cpuPerAppend(result),
      );
    }
  }

  await verify(db, options);
  const eventStore = side(results.eventStore);
  const raw = side(results.raw);
  return {
    writers: APPEND_WRITERS,
    eventsPerRound: options.events,
    eventStore,
    raw,
    ratio: median(
      results.eventStore.map((round, index) => round.eventsPerSecond / results.raw[index].eventsPerSecond),
    ),
  };
}

const cpuPerAppend = (round: AppendRound): string =>
  `; CPU per append: Node ${formatInteger((1000 * round.cpu.nodeMs) / round.appends)} µs` +
  (round.cpu.postgresMs === null
    ? ''
    : `, PostgreSQL ${formatInteger((1000 * round.cpu.postgresMs) / round.appends)} µs`);

const label = (name: 'eventStore' | 'raw'): string => (name === 'raw' ? 'raw INSERT  ' : 'event store ');

/** Every event landed, and every stream's revision matches its events. */
async function verify(db: Database, options: AppendOptions): Promise<void> {
  const expected = options.warmupEvents + options.rounds * options.events;
  const { rows } = await db.query<{ events: bigint; raw: bigint; mismatched: bigint }>(
    `SELECT (SELECT count(*) FROM events) AS events,
            (SELECT count(*) FROM bench_raw_events) AS raw,
            (SELECT count(*) FROM event_streams s
              WHERE s.revision <> (SELECT max(e.stream_revision) FROM events e WHERE e.stream_id = s.stream_id)
            ) AS mismatched`,
  );
  const row = rows[0];
  if (Number(row.events) !== expected || Number(row.raw) !== expected || row.mismatched !== 0n) {
    throw new Error(
      `Append benchmark check failed: ${row.events} events, ${row.raw} raw rows (expected ${expected} each), ` +
        `${row.mismatched} streams whose revision does not match their events`,
    );
  }
}
