import type { RecordedEvent } from '../../event-store/event-store.js';
import type { SponsorshipComponent } from '../../requests/domain/records.js';
import type { FillSucceededData } from '../../requests/domain/request-events.js';
import { type LogMark, logMarkOf } from './app-fee-account-state.js';

/** A request's fill as the log recorded it, with the request it belongs to. */
export interface SuccessfulFill {
  readonly streamId: string;
  readonly requestId: string;
  readonly fill: FillSucceededData;
  /** Where the `FillSucceeded` sits in the log: what an account's entries for this fill are marked with. */
  readonly source: LogMark;
}

/** The successful fills of a batch of the log (`FillSucceeded` of request streams), in log order. */
export function successfulFills(events: readonly RecordedEvent[]): SuccessfulFill[] {
  return events
    .filter((event) => event.type === 'FillSucceeded' && event.streamId.startsWith('request-'))
    .map((event) => ({
      streamId: event.streamId,
      requestId: event.streamId.slice('request-'.length),
      fill: event.data as FillSucceededData,
      source: logMarkOf(event.position),
    }));
}

/**
 * The part of a fee component its user paid when a sponsorship covered the rest: `{userPays, total}` clamped to
 * `0 ≤ userPays ≤ total`, or null when the component was not sponsored (the user paid it all).
 */
export function userPaidFraction(
  component: SponsorshipComponent | undefined,
): { readonly userPays: bigint; readonly total: bigint } | null {
  if (!component?.selected || BigInt(component.sponsored) <= 0n) return null;
  const total = BigInt(component.total);
  const userPays = BigInt(component.userPays);
  if (total <= 0n) return null;
  return { userPays: userPays < 0n ? 0n : userPays > total ? total : userPays, total };
}
