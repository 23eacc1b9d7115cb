import type { RecordedEvent } from '../../src/event-store/event-store.js';
import type { FillFailedData } from '../../src/requests/domain/request-events.js';
import type { Projection } from '../projection.js';
import { evolveRequestRecord } from '../requests/request-record.js';
import type { RequestRecordState } from '../requests/request-record-state.js';
import { toStatusBody } from './status-body.js';

const STREAM_PREFIX = 'request-';

/** A status row's state: the shared fold's record, plus the failure context only the status endpoint shows. */
export interface RequestStatusState {
  readonly record: RequestRecordState;
  /** `FillFailed.details` (e.g. decoded revert data), kept until the request fails again. */
  readonly failureDetails: string | null;
}

/** The request id a request stream's events belong to (`request-<id>`, lower-cased by the aggregate). */
export function requestIdOfStream(streamId: string): string | null {
  return streamId.startsWith(STREAM_PREFIX) ? streamId.slice(STREAM_PREFIX.length) : null;
}

/** Pure: the status row after one of the request's events (shared by the projection and the read-your-writes path). */
export function evolveRequestStatus(
  state: RequestStatusState | null,
  event: RecordedEvent,
): RequestStatusState | null {
  const record = evolveRequestRecord(state?.record ?? null, event);
  if (!record) return null;
  const failureDetails =
    event.type === 'FillFailed'
      ? (event.data as FillFailedData).details
      : event.type === 'RequestQuoted'
        ? null
        : (state?.failureDetails ?? null);
  return { record, failureDetails };
}

/**
 * `GET /intents/status/v3`: one row per quoted request, listed or not (a fresh quote answers `waiting`). Folded by
 * the same `evolveRequestRecord` as the v3 and v2 histories, so the three never disagree. The answer is rendered
 * once per change into `body`, which is all the endpoint reads.
 */
export const requestStatusProjection: Projection<RequestStatusState> = {
  name: 'request-status',
  version: 1,
  table: 'request_status',
  columns: [
    { name: 'status', type: 'text', value: (state) => state.record.v3.status },
    { name: 'updated_at', type: 'timestamptz', value: (state) => state.record.v3.updatedAt },
    { name: 'body', type: 'jsonb', value: (state) => toStatusBody(state) },
  ],
  keysOf: (event) => {
    const id = requestIdOfStream(event.streamId);
    return id ? [id] : [];
  },
  evolve: (state, event) => evolveRequestStatus(state, event),
};
