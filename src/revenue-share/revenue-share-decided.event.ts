/* eslint-disable @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- the event class merges with its payload interface */
import { DomainEvent, StoredEvent } from '../event-store/domain-event.js';

/**
 * Which payout address a request's revenue share goes to, decided once, in the request's own stream
 * `revenue-share-<requestId>` (appended with `expectedRevision: 'no_stream'`). A later run of the accrual (a crash
 * before its checkpoint moved, a rebuild) credits the address decided here, whatever the key's payout address is
 * then: the share cannot reach a second account, on EventStoreDB too, whose event ids are unique per stream only.
 */
export interface RevenueShareDecidedData {
  readonly requestId: string;
  readonly apiKeyId: string;
  readonly address: string;
  readonly decidedAt: string;
}
export interface RevenueShareDecided extends RevenueShareDecidedData {}
@StoredEvent('RevenueShareDecided')
export class RevenueShareDecided extends DomainEvent<RevenueShareDecidedData> {}

export const revenueShareStreamId = (requestId: string): string => `revenue-share-${requestId.toLowerCase()}`;
