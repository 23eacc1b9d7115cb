import type { RecordedEvent } from '../../src/event-store/event-store.js';
import type { Projection } from '../projection.js';

/** One row per stream: how many events it has and what happened last. Operators use it to browse the log. */
export interface StreamSummary {
  readonly streamId: string;
  /** The stream's prefix before the first dash (`request-0xab…` → `request`). */
  readonly category: string;
  readonly events: number;
  readonly lastRevision: string;
  readonly lastEventType: string;
  readonly firstEventAt: string;
  readonly lastEventAt: string;
}

export const streamSummariesProjection: Projection<StreamSummary> = {
  name: 'stream-summaries',
  version: 1,
  table: 'stream_summaries',
  columns: [
    { name: 'category', type: 'text', value: (state) => state.category },
    { name: 'events', type: 'integer', value: (state) => state.events },
    { name: 'last_event_type', type: 'text', value: (state) => state.lastEventType },
    { name: 'last_event_at', type: 'timestamptz', value: (state) => state.lastEventAt },
  ],
  indexes: [{ name: 'category_idx', columns: ['category', 'last_event_at DESC'] }],
  keysOf: (event) => [event.streamId],
  evolve: (state: StreamSummary | null, event: RecordedEvent): StreamSummary => ({
    streamId: event.streamId,
    category: event.streamId.split('-', 1)[0],
    events: (state?.events ?? 0) + 1,
    lastRevision: event.revision.toString(),
    lastEventType: event.type,
    firstEventAt: state?.firstEventAt ?? event.createdAt.toISOString(),
    lastEventAt: event.createdAt.toISOString(),
  }),
};
