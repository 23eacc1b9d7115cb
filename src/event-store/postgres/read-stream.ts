import type { SqlExecutor } from '../../database/database.js';
import type { ReadStreamOptions, RecordedEvent } from '../event-store.js';
import { EVENT_COLUMNS, type EventRow, toRecordedEvent } from './event-row.js';

const MAX_REVISION = 9223372036854775807n;

/** One stream's events, forwards or backwards from a revision (inclusive). */
export async function readStream(
  sql: SqlExecutor,
  streamId: string,
  options: ReadStreamOptions = {},
): Promise<RecordedEvent[]> {
  const backwards = options.direction === 'backwards';
  const from = options.fromRevision ?? (backwards ? MAX_REVISION : 0n);
  const { rows } = await sql.query<EventRow>(
    `SELECT ${EVENT_COLUMNS} FROM events
      WHERE stream_id = $1 AND stream_revision ${backwards ? '<=' : '>='} $2
      ORDER BY stream_revision ${backwards ? 'DESC' : 'ASC'}
      LIMIT $3`,
    [streamId, from, options.maxCount ?? null],
  );
  return rows.map(toRecordedEvent);
}
