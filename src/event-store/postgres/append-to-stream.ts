import type { SqlExecutor } from '../../database/database.js';
import {
  type AppendResult,
  EventIdConflictError,
  type ExpectedRevision,
  expectedRevisionToString,
  type NewEvent,
  WrongExpectedRevisionError,
} from '../event-store.js';

/** SQLSTATE raised by `ferry_append_to_stream` when the expected revision does not hold. */
const WRONG_EXPECTED_REVISION = 'FY001';
const UNIQUE_VIOLATION = '23505';

export interface PgError {
  code?: string;
  constraint?: string;
  detail?: string;
}

/**
 * Appends events to one stream in one statement (the `ferry_append_to_stream` function). On a conflict it checks
 * whether this exact append already happened (same event ids, same stream, consecutive revisions): a retried append
 * then succeeds without writing again, as with EventStoreDB.
 */
export async function appendToStream(
  sql: SqlExecutor,
  streamId: string,
  events: readonly NewEvent[],
  expectedRevision: ExpectedRevision,
): Promise<AppendResult> {
  if (events.length === 0) throw new Error(`appendToStream(${streamId}) needs at least one event`);
  try {
    const { rows } = await sql.query<{
      next_revision: bigint;
      last_position: bigint;
      transaction_id: bigint;
    }>(
      'SELECT * FROM ferry_append_to_stream($1, $2, $3, $4, $5, $6::jsonb[], $7::jsonb[])',
      [
        streamId,
        expectedRevisionToString(expectedRevision),
        events.map((event) => event.id),
        events.map((event) => event.type),
        events.map((event) => event.schemaVersion ?? 1),
        events.map((event) => JSON.stringify(event.data)),
        events.map((event) => JSON.stringify(event.metadata ?? {})),
      ],
      // The hottest statement: prepared once per connection.
      { name: 'ferry_append_to_stream' },
    );
    const [row] = rows;
    return {
      nextExpectedRevision: row.next_revision,
      position: { commit: row.transaction_id, prepare: row.last_position },
    };
  } catch (error) {
    return answerConflict(sql, streamId, events, expectedRevision, error as PgError);
  }
}

/**
 * What a failed append means: when it was a conflict and this exact append already happened (same event ids, same
 * stream, consecutive revisions), that append's result; else the conflict as an error, or `error` itself.
 */
export async function answerConflict(
  sql: SqlExecutor,
  streamId: string,
  events: readonly NewEvent[],
  expectedRevision: ExpectedRevision,
  error: PgError,
): Promise<AppendResult> {
  if (!isAppendConflict(error)) throw error;
  const earlier = await findEarlierAppend(sql, streamId, events);
  if (earlier) return earlier;
  if (error.code === UNIQUE_VIOLATION) {
    throw new EventIdConflictError(
      streamId,
      events.map((event) => event.id),
    );
  }
  const actual = error.detail === 'no_stream' || !error.detail ? 'no_stream' : BigInt(error.detail);
  throw new WrongExpectedRevisionError(streamId, expectedRevision, actual);
}

/** A wrong expected revision, or an event id the log already holds: what `answerConflict` looks into. */
export function isAppendConflict(error: PgError): boolean {
  return (
    error.code === WRONG_EXPECTED_REVISION ||
    (error.code === UNIQUE_VIOLATION && error.constraint === 'events_event_id_key')
  );
}

/** The result of an identical earlier append, or null when these event ids were not all appended together here. */
async function findEarlierAppend(
  sql: SqlExecutor,
  streamId: string,
  events: readonly NewEvent[],
): Promise<AppendResult | null> {
  const ids = events.map((event) => event.id);
  const { rows } = await sql.query<{
    event_id: string;
    stream_id: string;
    stream_revision: bigint;
    global_position: bigint;
    transaction_id: bigint;
  }>(
    `SELECT event_id, stream_id, stream_revision, global_position, transaction_id
       FROM events WHERE event_id = ANY($1::text[]) ORDER BY stream_revision`,
    [ids],
  );
  if (rows.length === 0) return null;
  const sameAppend =
    rows.length === ids.length &&
    rows.every(
      (row, index) =>
        row.stream_id === streamId &&
        row.event_id === ids[index] &&
        row.stream_revision === rows[0].stream_revision + BigInt(index),
    );
  if (!sameAppend)
    throw new EventIdConflictError(
      streamId,
      rows.map((row) => row.event_id),
    );
  const last = rows[rows.length - 1];
  return {
    nextExpectedRevision: last.stream_revision,
    position: { commit: last.transaction_id, prepare: last.global_position },
  };
}
