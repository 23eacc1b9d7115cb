import pg from 'pg';
import type { Database } from '../src/database/database.js';
import { type EventStore, type Position, START } from '../src/event-store/event-store.js';
import { EVENT_COLUMNS, type EventRow } from '../src/event-store/postgres/event-row.js';
import { PostgresEventStore } from '../src/event-store/postgres/postgres-event-store.js';
import { withFastReadAll } from './experiments/fast-read-store.js';
import { type CpuUsage, formatInteger, median, now, percentile, startCpu, write } from './support.js';

/**
 * Catch-up read: the whole log through `PostgresEventStore.readAll`, page after page from START until `isEnd`.
 * Then the same pages fetched with less and less client work, to show where the time goes:
 *   server + wire     — the readAll SQL with every column left as text (no type parsing at all);
 *   + pg type parsing — the readAll SQL through the Database (BigInt, Date, JSON.parse of data and metadata);
 *   + row mapping     — readAll itself (toRecordedEvent on top);
 * and readAll as it would be with lazily parsed payloads and epoch-ms timestamps (bench/experiments).
 */

export interface CatchUpOptions {
  readonly pageSize: number;
  readonly rounds: number;
}

export interface CatchUpPass {
  readonly events: number;
  readonly pages: number;
  readonly seconds: number;
  readonly eventsPerSecond: number;
  readonly pageMs: readonly number[];
  readonly cpu: CpuUsage;
}

export interface CatchUpFigures {
  readonly pageSize: number;
  readonly passes: readonly CatchUpPass[];
  readonly eventsPerSecond: number;
  readonly pageP50Ms: number;
  readonly pageP99Ms: number;
  /** Median CPU milliseconds per 100,000 events read: Node, and the PostgreSQL backend (null if unknown). */
  readonly nodeMsPer100k: number;
  readonly postgresMsPer100k: number | null;
  /** Best-of-two events/s and Node CPU of each variant (see the file comment). */
  readonly profile: readonly {
    readonly label: string;
    readonly eventsPerSecond: number;
    readonly nodeMsPer100k: number;
  }[];
}

/** Fetches one page after `from`; returns how many events and the last position. */
type FetchPage = (
  from: Position,
  pageSize: number,
) => Promise<{ count: number; last: Position; isEnd: boolean }>;

async function readWholeLog(db: Database, fetch: FetchPage, pageSize: number): Promise<CatchUpPass> {
  const stopCpu = await startCpu(db);
  let from = START;
  let events = 0;
  let pages = 0;
  const pageMs: number[] = [];
  const started = now();
  for (;;) {
    const pageStarted = now();
    const page = await fetch(from, pageSize);
    pageMs.push(now() - pageStarted);
    pages += 1;
    events += page.count;
    from = page.last;
    if (page.isEnd) break;
  }
  const seconds = (now() - started) / 1000;
  return { events, pages, seconds, eventsPerSecond: events / seconds, pageMs, cpu: stopCpu() };
}

const READ_ALL_SQL = `SELECT ${EVENT_COLUMNS} FROM events
  WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint)
    AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
  ORDER BY transaction_id, global_position
  LIMIT $3`;

function storeFetch(store: EventStore): FetchPage {
  return async (from, pageSize) => {
    const result = await store.readAll({ from, maxCount: pageSize });
    return { count: result.events.length, last: result.position, isEnd: result.isEnd };
  };
}

/** The readAll statement through the Database: pg parses every column, no mapping to RecordedEvent. */
function parsedFetch(db: Database): FetchPage {
  return async (from, pageSize) => {
    const { rows } = await db.query<EventRow>(READ_ALL_SQL, [from.commit.toString(), from.prepare, pageSize]);
    const last = rows[rows.length - 1];
    return {
      count: rows.length,
      last: last ? { commit: last.transaction_id, prepare: last.global_position } : from,
      isEnd: rows.length < pageSize,
    };
  };
}

/** The readAll statement with every column handed over as the raw text PostgreSQL sent. */
function textFetch(client: pg.Client): FetchPage {
  return async (from, pageSize) => {
    const { rows } = await client.query<{ transaction_id: string; global_position: string }>(READ_ALL_SQL, [
      from.commit.toString(),
      from.prepare.toString(),
      pageSize,
    ]);
    const last = rows[rows.length - 1];
    return {
      count: rows.length,
      last: last ? { commit: BigInt(last.transaction_id), prepare: BigInt(last.global_position) } : from,
      isEnd: rows.length < pageSize,
    };
  };
}

const rawText = { getTypeParser: () => (value: string) => value } as unknown as pg.CustomTypesConfig;

/** `db`/`url`: a database holding exactly `expectedEvents` events. */
export async function runCatchUpBench(
  db: Database,
  url: string,
  expectedEvents: number,
  options: CatchUpOptions,
): Promise<CatchUpFigures> {
  const store = new PostgresEventStore(db);
  const fetch = storeFetch(store);
  const warm = await readWholeLog(db, fetch, options.pageSize);
  write(`  warm-up: ${formatInteger(warm.eventsPerSecond)} events/s`);
  const passes: CatchUpPass[] = [];
  for (let round = 0; round < options.rounds; round += 1) {
    const pass = await readWholeLog(db, fetch, options.pageSize);
    if (pass.events !== expectedEvents) {
      throw new Error(`Catch-up read ${pass.events} events, expected ${expectedEvents}`);
    }
    passes.push(pass);
    write(
      `  pass ${round + 1}: ${formatInteger(pass.events)} events in ${pass.pages} pages, ` +
        `${pass.seconds.toFixed(2)} s → ${formatInteger(pass.eventsPerSecond)} events/s; ` +
        `CPU Node ${formatInteger(pass.cpu.nodeMs)} ms` +
        (pass.cpu.postgresMs === null ? '' : `, PostgreSQL ${formatInteger(pass.cpu.postgresMs)} ms`),
    );
  }

  const client = new pg.Client({ connectionString: url, types: rawText });
  await client.connect();
  const variants: { label: string; fetch: FetchPage }[] = [
    { label: 'server + wire (columns as text)', fetch: textFetch(client) },
    { label: '+ pg type parsing (bigint, Date, JSON.parse)', fetch: parsedFetch(db) },
    { label: '+ row mapping (readAll)', fetch },
    { label: 'experiment: lazy JSON + epoch-ms created_at', fetch: storeFetch(withFastReadAll(db, store)) },
  ];
  const profile = variants.map((variant) => ({
    label: variant.label,
    eventsPerSecond: 0,
    nodeMsPer100k: Infinity,
  }));
  try {
    // Interleaved, best of two: a burst of other work on the machine then spoils one pass, not one variant.
    for (let round = 0; round < 2; round += 1) {
      for (const [index, variant] of variants.entries()) {
        const pass = await readWholeLog(db, variant.fetch, options.pageSize);
        if (pass.events !== expectedEvents) {
          throw new Error(
            `Catch-up (${variant.label}) read ${pass.events} events, expected ${expectedEvents}`,
          );
        }
        profile[index].eventsPerSecond = Math.max(profile[index].eventsPerSecond, pass.eventsPerSecond);
        profile[index].nodeMsPer100k = Math.min(
          profile[index].nodeMsPer100k,
          (pass.cpu.nodeMs * 100_000) / pass.events,
        );
      }
    }
  } finally {
    await client.end();
  }
  for (const step of profile) {
    write(
      `  profile ${step.label.padEnd(45)} ${formatInteger(step.eventsPerSecond).padStart(8)} events/s, ` +
        `Node CPU ${formatInteger(step.nodeMsPer100k)} ms per 100,000 events`,
    );
  }

  const pageMs = passes.flatMap((pass) => pass.pageMs);
  const per100k = (ms: number, pass: CatchUpPass) => (ms * 100_000) / pass.events;
  return {
    pageSize: options.pageSize,
    passes,
    eventsPerSecond: median(passes.map((pass) => pass.eventsPerSecond)),
    pageP50Ms: percentile(pageMs, 50),
    pageP99Ms: percentile(pageMs, 99),
    nodeMsPer100k: median(passes.map((pass) => per100k(pass.cpu.nodeMs, pass))),
    postgresMsPer100k: passes.every((pass) => pass.cpu.postgresMs !== null)
      ? median(passes.map((pass) => per100k(pass.cpu.postgresMs!, pass)))
      : null,
    profile,
  };
}
