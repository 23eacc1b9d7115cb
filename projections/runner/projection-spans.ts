import type { RecordedEvent } from '../../src/event-store/event-store.js';
import { TRACEPARENT_KEY } from '../../src/event-store/traced-event-store.js';
import type { RemoteChildSpan } from '../../src/telemetry/tracing.js';
import type { Projection } from '../projection.js';

/**
 * The `project <projection> <event type>` spans of a batch: one per event the projection keeps that was appended in a
 * trace (its metadata carries the append's `traceparent`), each a child of that append, so the trace of the request
 * that appended it ends where a read model shows it. Called only when tracing is on.
 */
export function projectionSpans(
  projection: Projection,
  generation: number,
  events: readonly RecordedEvent[],
): RemoteChildSpan[] {
  const spans: RemoteChildSpan[] = [];
  for (const event of events) {
    const traceparent = event.metadata[TRACEPARENT_KEY];
    if (typeof traceparent !== 'string' || projection.keysOf(event).length === 0) continue;
    spans.push({
      name: `project ${projection.name} ${event.type}`,
      attributes: {
        'ferry.projection': projection.name,
        'ferry.projection_generation': generation,
        'ferry.stream_id': event.streamId,
        'ferry.event_id': event.id,
        'ferry.batch_events': events.length,
      },
      traceparent,
    });
  }
  return spans;
}
