import type { SqlExecutor } from '../database/database.js';

/** An aggregate's state folded up to `revision` of its stream, whose event there has `eventId`. */
export interface Snapshot {
  readonly revision: bigint;
  readonly eventId: string;
  readonly state: unknown;
}

/**
 * Where aggregates that opt in (`EventSourcedAggregate.snapshots`) keep their last snapshot. A cache of the log:
 * losing it costs a full read of the stream, never a wrong state.
 */
export interface SnapshotStore {
  /** The stream's snapshot taken by the fold `schema`, or null. */
  read(streamId: string, schema: number): Promise<Snapshot | null>;
  /** Keeps `snapshot` unless one of the same fold at a later revision is kept already. */
  write(streamId: string, schema: number, snapshot: Snapshot): Promise<void>;
}

export const AGGREGATE_SNAPSHOTS = Symbol('AggregateSnapshots');

/** Snapshots in the `aggregate_snapshots` table (PostgreSQL or PGlite, whichever event store the log is in). */
export class SqlSnapshotStore implements SnapshotStore {
  constructor(private readonly sql: SqlExecutor) {}

  async read(streamId: string, schema: number): Promise<Snapshot | null> {
    const { rows } = await this.sql.query<{ revision: bigint; event_id: string; state: unknown }>(
      'SELECT revision, event_id, state FROM aggregate_snapshots WHERE stream_id = $1 AND schema = $2',
      [streamId, schema],
      { name: 'ferry_read_snapshot' },
    );
    const [row] = rows;
    return row ? { revision: row.revision, eventId: row.event_id, state: row.state } : null;
  }

  async write(streamId: string, schema: number, { revision, eventId, state }: Snapshot): Promise<void> {
    await this.sql.query(
      `INSERT INTO aggregate_snapshots (stream_id, schema, revision, event_id, state)
            VALUES ($1, $2, $3, $4, $5::jsonb)
       ON CONFLICT (stream_id) DO UPDATE
               SET schema = excluded.schema, revision = excluded.revision, event_id = excluded.event_id,
                   state = excluded.state, taken_at = now()
             WHERE aggregate_snapshots.schema <> excluded.schema
                OR aggregate_snapshots.revision < excluded.revision`,
      [streamId, schema, revision.toString(), eventId, JSON.stringify(state)],
    );
  }
}
