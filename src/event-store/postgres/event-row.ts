import type { RecordedEvent } from '../event-store.js';

/** The columns every read selects, and their mapping to a RecordedEvent. */
export const EVENT_COLUMNS = `global_position, transaction_id, stream_id, stream_revision, event_id, event_type,
  schema_version, data, metadata, created_at`;

export interface EventRow {
  global_position: bigint;
  transaction_id: bigint;
  stream_id: string;
  stream_revision: bigint;
  event_id: string;
  event_type: string;
  schema_version: number;
  data: unknown;
  metadata: Record<string, unknown>;
  created_at: Date;
}

export function toRecordedEvent(row: EventRow): RecordedEvent {
  return {
    streamId: row.stream_id,
    revision: row.stream_revision,
    position: { commit: row.transaction_id, prepare: row.global_position },
    id: row.event_id,
    type: row.event_type,
    schemaVersion: row.schema_version,
    data: row.data,
    metadata: row.metadata,
    createdAt: row.created_at,
  };
}
