import type { SqlExecutor } from '../../database/database.js';
import { applyFilter } from '../event-filter.js';
import { type Position, type ReadAllOptions, type ReadAllResult, START } from '../event-store.js';
import { EVENT_COLUMNS, type EventRow, toRecordedEvent } from './event-row.js';

/**
 * The global log after a position, in (transaction id, global position) order, and only below the oldest running
 * transaction: a slower transaction that commits late has a smaller id than what we would otherwise have read past,
 * so reading below `pg_snapshot_xmin` never skips an event.
 */
export async function readAll(sql: SqlExecutor, options: ReadAllOptions = {}): Promise<ReadAllResult> {
  const from = options.from ?? START;
  const maxCount = options.maxCount ?? 1000;
  const { rows } = await sql.query<EventRow>(
    `SELECT ${EVENT_COLUMNS} FROM events
      WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint)
        AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
      ORDER BY transaction_id, global_position
      LIMIT $3`,
    [from.commit.toString(), from.prepare, maxCount],
  );
  const scanned = rows.map(toRecordedEvent);
  const position = scanned.length > 0 ? scanned[scanned.length - 1].position : from;
  return { events: applyFilter(scanned, options.filter), position, isEnd: scanned.length < maxCount };
}

/** How many events are readable after `position`, counting at most `cap`. */
export async function countAfter(
  sql: SqlExecutor,
  from: ReadAllOptions['from'],
  cap: number,
): Promise<number> {
  const position = from ?? START;
  const { rows } = await sql.query<{ count: bigint }>(
    `SELECT count(*) AS count FROM (
       SELECT 1 FROM events
        WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint)
          AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
        LIMIT $3) AS pending`,
    [position.commit.toString(), position.prepare, cap],
  );
  return Number(rows[0].count);
}

/** The position of the last readable event, or START. */
export async function headPosition(sql: SqlExecutor): Promise<Position> {
  const { rows } = await sql.query<{ transaction_id: bigint; global_position: bigint }>(
    `SELECT transaction_id, global_position FROM events
      WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
      ORDER BY transaction_id DESC, global_position DESC LIMIT 1`,
  );
  return rows[0] ? { commit: rows[0].transaction_id, prepare: rows[0].global_position } : START;
}
