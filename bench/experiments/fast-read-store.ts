import type { Database } from '../../src/database/database.js';
import {
  type EventStore,
  type Position,
  type ReadAllOptions,
  type ReadAllResult,
  type RecordedEvent,
  START,
} from '../../src/event-store/event-store.js';
import { applyFilter } from '../../src/event-store/event-filter.js';

/**
 * EXPERIMENT, benchmarks only: the read path `src/event-store/postgres/read-all.ts` + `event-row.ts` would get
 * with two changes, to measure what they buy before making them there:
 *  1. `data` and `metadata` arrive as text and are JSON-parsed on first access (most projections and catch-up
 *     consumers never look at most events' payloads);
 *  2. `created_at` arrives as epoch milliseconds (float8) instead of timestamptz text, so no postgres-date parse.
 * Same SQL otherwise (same order, same xmin watermark).
 */

const FAST_COLUMNS = `global_position, transaction_id, stream_id, stream_revision, event_id, event_type,
  schema_version, data::text AS data, metadata::text AS metadata,
  date_part('epoch', created_at) * 1000 AS created_at_ms`;

interface FastRow {
  global_position: bigint;
  transaction_id: bigint;
  stream_id: string;
  stream_revision: bigint;
  event_id: string;
  event_type: string;
  schema_version: number;
  data: string;
  metadata: string;
  created_at_ms: number;
}

class LazyRecordedEvent implements RecordedEvent {
  readonly streamId: string;
  readonly revision: bigint;
  readonly position: Position;
  readonly id: string;
  readonly type: string;
  readonly schemaVersion: number;
  readonly createdAt: Date;
  private dataValue: unknown;
  private dataText: string | null;
  private metadataValue: Readonly<Record<string, unknown>> | undefined;
  private metadataText: string | null;

  constructor(row: FastRow) {
    this.streamId = row.stream_id;
    this.revision = row.stream_revision;
    this.position = { commit: row.transaction_id, prepare: row.global_position };
    this.id = row.event_id;
    this.type = row.event_type;
    this.schemaVersion = row.schema_version;
    this.createdAt = new Date(row.created_at_ms);
    this.dataText = row.data;
    this.metadataText = row.metadata;
  }

  get data(): unknown {
    if (this.dataText !== null) {
      this.dataValue = JSON.parse(this.dataText);
      this.dataText = null;
    }
    return this.dataValue;
  }

  get metadata(): Readonly<Record<string, unknown>> {
    if (this.metadataText !== null) {
      this.metadataValue = JSON.parse(this.metadataText) as Record<string, unknown>;
      this.metadataText = null;
    }
    return this.metadataValue!;
  }
}

/** Reads one page of the log the experimental way (same SQL as readAll apart from the column list). */
export async function fastReadAll(db: Database, options: ReadAllOptions = {}): Promise<ReadAllResult> {
  const from = options.from ?? START;
  const maxCount = options.maxCount ?? 1000;
  const { rows } = await db.query<FastRow>(
    `SELECT ${FAST_COLUMNS} FROM events
      WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint)
        AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
      ORDER BY transaction_id, global_position
      LIMIT $3`,
    [from.commit.toString(), from.prepare, maxCount],
  );
  const scanned: RecordedEvent[] = rows.map((row) => new LazyRecordedEvent(row));
  const position = scanned.length > 0 ? scanned[scanned.length - 1].position : from;
  return { events: applyFilter(scanned, options.filter), position, isEnd: scanned.length < maxCount };
}

/** `base` with readAll replaced by fastReadAll; every other member is `base`'s own (a Proxy, so it keeps up with
 * the EventStore interface). Note that subscribeToAll still reads through `base`. */
export function withFastReadAll(db: Database, base: EventStore): EventStore {
  const readAll = (options?: ReadAllOptions) => fastReadAll(db, options);
  return new Proxy(base, {
    get(target, property) {
      if (property === 'readAll') return readAll;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
