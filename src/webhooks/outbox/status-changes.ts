import type { RecordedEvent } from '../../event-store/event-store.js';
import { evolveRequestRecord } from '../../../projections/requests/request-record.js';
import type { RequestRecordState } from '../../../projections/requests/request-record-state.js';

/** A request status update to announce: the record right after the event that caused it. */
export interface StatusChange {
  readonly event: RecordedEvent;
  readonly record: RequestRecordState;
  /** `FillFailed.details` of the latest failure (decoded revert data), which the shared record does not keep. */
  readonly failureDetails: string | null;
}

/**
 * Pure: the status updates a request's events announce, given the request's whole stream up to the last of them.
 * A webhook goes out when the request becomes visible (its first deposit is seen: `waiting`), on every status
 * change after that, and when a `refundFailReason` is recorded while the status stays (a refund skipped as dust,
 * `AMOUNT_TOO_LOW_TO_REFUND`, or not sent, `REFUND_NOT_SENT`: the request stays `failure`), once per change of it, so
 * integrators need not poll for it (decision 0032). A quote that never sees a deposit announces nothing, not even its
 * expiry.
 */
export function statusChanges(
  stream: readonly RecordedEvent[],
  announce: (event: RecordedEvent) => boolean,
): StatusChange[] {
  const changes: StatusChange[] = [];
  let record: RequestRecordState | null = null;
  let failureDetails: string | null = null;
  for (const event of stream) {
    const before = record;
    record = evolveRequestRecord(record, event);
    if (event.type === 'FillFailed') failureDetails = (event.data as { details: string | null }).details;
    if (!record || !record.listed || !announce(event)) continue;
    const becameVisible = !before?.listed;
    const refundFailReason = record.v3.data.refundFailReason;
    if (
      becameVisible ||
      before.v3.status !== record.v3.status ||
      (refundFailReason !== null && refundFailReason !== before.v3.data.refundFailReason)
    )
      changes.push({ event, record, failureDetails });
  }
  return changes;
}
