import type { EventFilter, RecordedEvent } from './event-store.js';

/** The events that pass a filter (by stream prefix and by type); all of them without a filter. */
export function applyFilter(events: RecordedEvent[], filter?: EventFilter): RecordedEvent[] {
  if (!filter) return events;
  const { streamPrefixes, eventTypes } = filter;
  return events.filter(
    (event) =>
      (!streamPrefixes || streamPrefixes.some((prefix) => event.streamId.startsWith(prefix))) &&
      (!eventTypes || eventTypes.includes(event.type)),
  );
}
