import type { RecordedEvent } from '../event-store.js';

/**
 * The columns every read selects. Payloads come as text and are parsed when first read (a consumer that skips an
 * event never pays for it), and the time as epoch milliseconds (cheaper than parsing timestamp text).
 */
export const EVENT_COLUMNS = `global_position, transaction_id, stream_id, stream_revision, event_id, event_type,
  schema_version, data::text AS data, metadata::text AS metadata,
  floor(extract(epoch FROM created_at) * 1000)::bigint AS created_ms`;

export interface EventRow {
  global_position: bigint;
  transaction_id: bigint;
  stream_id: string;
  stream_revision: bigint;
  event_id: string;
  event_type: string;
  schema_version: number;
  data: string;
  metadata: string;
  created_ms: bigint;
}

export function toRecordedEvent(row: EventRow): RecordedEvent {
  const event = {
    streamId: row.stream_id,
    revision: row.stream_revision,
    position: { commit: row.transaction_id, prepare: row.global_position },
    id: row.event_id,
    type: row.event_type,
    schemaVersion: row.schema_version,
    createdAt: new Date(Number(row.created_ms)),
  };
  // Own enumerable getters, so spreads and JSON.stringify still see the parsed payload.
  return Object.defineProperties(event, {
    data: lazyJson(row.data),
    metadata: lazyJson(row.metadata),
  }) as RecordedEvent;
}

function lazyJson(text: string): PropertyDescriptor {
  let parsed: unknown;
  let pending: string | null = text;
  return {
    enumerable: true,
    get() {
      if (pending !== null) {
        parsed = JSON.parse(pending);
        pending = null;
      }
      return parsed;
    },
  };
}
