import { EventRegistry } from '../../src/event-store/event-registry.js';
import type { RecordedEvent } from '../../src/event-store/event-store.js';
import { nextDeadline } from '../../src/requests/domain/request-decide.js';
import { REQUEST_EVENTS, type RequestEvent } from '../../src/requests/domain/request-events.js';
import { evolve, initialRequestState, type RequestState } from '../../src/requests/domain/request-state.js';
import type { Projection } from '../projection.js';

const registry = new EventRegistry().register(...REQUEST_EVENTS);

/**
 * One row per request that has a deadline ahead: the aggregate's own state (its pure evolve) and when its next
 * deadline falls. The deadline sweeper reads the rows that are due and asks each request to expire.
 */
export const requestDeadlinesProjection: Projection<RequestState> = {
  name: 'request-deadlines',
  // 2: the Request state carries deposit-address fields (addressTransfers, addressFunded); rebuilt at start-up.
  version: 2,
  table: 'request_deadlines',
  columns: [
    { name: 'status', type: 'text', value: (state) => state.status },
    { name: 'due_at', type: 'timestamptz', value: (state) => nextDeadline(state) },
  ],
  indexes: [{ name: 'due_idx', columns: ['due_at'], where: 'due_at IS NOT NULL' }],
  keysOf: (event: RecordedEvent) =>
    event.streamId.startsWith('request-') ? [event.streamId.slice('request-'.length)] : [],
  evolve: (state, event) => evolve(state ?? initialRequestState, registry.deserialize(event) as RequestEvent),
};
