import type { EventStore, RecordedEvent } from '../event-store/event-store.js';
import { requestStreamId } from '../requests/domain/request.aggregate.js';
import type { DepositConfirmedData, RequestQuotedData } from '../requests/domain/request-events.js';
import type { RequestEventType } from '../requests/domain/request-events.js';
import { nextStatus, type RequestStatus } from '../requests/domain/request-status.js';

/** What the solver needs to know of a request: its quote, its confirmed deposit, where it stands. */
export interface RequestFacts {
  readonly quote: RequestQuotedData;
  readonly deposit: DepositConfirmedData | null;
  readonly status: RequestStatus;
  /** The fill transaction recorded as submitted, if any. */
  readonly fillTxHash: string | null;
  /** The stream it was folded from, for jobs that need more of it. */
  readonly events: readonly RecordedEvent[];
}

/** Reads a request's stream and folds what the solver needs (statuses follow the domain's transition table). */
export async function readRequestFacts(store: EventStore, requestId: string): Promise<RequestFacts> {
  const events = await store.readStream(requestStreamId(requestId));
  const quoted = events.find((event) => event.type === 'RequestQuoted');
  if (!quoted) throw new Error(`No quote for request ${requestId}`);
  let status: RequestStatus | 'none' = 'none';
  let deposit: DepositConfirmedData | null = null;
  let fillTxHash: string | null = null;
  for (const event of events) {
    status = nextStatus(status, event.type as RequestEventType) ?? status;
    if (event.type === 'DepositConfirmed') deposit = event.data as DepositConfirmedData;
    if (event.type === 'FillSubmitted') fillTxHash = (event.data as { txHash: string }).txHash;
  }
  return {
    quote: quoted.data as RequestQuotedData,
    deposit,
    status: status as RequestStatus,
    fillTxHash,
    events,
  };
}
