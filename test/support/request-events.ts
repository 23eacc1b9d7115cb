import { evolveRequestRecord } from '../../projections/requests/request-record.js';
import type { RequestRecordState } from '../../projections/requests/request-record-state.js';
import { eventTypeOf } from '../../src/event-store/domain-event.js';
import type { RecordedEvent } from '../../src/event-store/event-store.js';
import { decide, type RequestCommand } from '../../src/requests/domain/request-decide.js';
import { evolve, initialRequestState, type RequestState } from '../../src/requests/domain/request-state.js';

/** Runs commands through the aggregate's decide/evolve and returns the events as the store would record them. */
export function recordedEvents(commands: RequestCommand[], streamId = 'request-x'): RecordedEvent[] {
  let state: RequestState = initialRequestState;
  const events: RecordedEvent[] = [];
  for (const command of commands) {
    for (const { event } of decide(state, command)) {
      state = evolve(state, event);
      events.push({
        streamId,
        revision: BigInt(events.length),
        position: { commit: 1n, prepare: BigInt(events.length + 1) },
        id: `e${events.length}`,
        type: eventTypeOf(event).type,
        schemaVersion: 1,
        data: JSON.parse(JSON.stringify(event)),
        metadata: {},
        createdAt: new Date('2026-11-01T00:00:00Z'),
      });
    }
  }
  return events;
}

/** The history record (v3 and v2 share it) the commands' events fold to, as the projections fold them. */
export function recordAfter(commands: RequestCommand[], streamId?: string): RequestRecordState {
  return recordedEvents(commands, streamId).reduce<RequestRecordState | null>(evolveRequestRecord, null)!;
}
