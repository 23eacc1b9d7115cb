import type { EventStore, RecordedEvent } from '../event-store/event-store.js';
import type { FillFailedData, RequestExpiredData } from '../requests/domain/request-events.js';
import { readRequestFacts, type RequestFacts } from '../solver/request-facts.js';
import type { AppFeeSponsorshipHeldData } from './domain/app-fee-account-events.js';
import { APP_FEE_ACCOUNT_PREFIX } from './domain/app-fee-account.aggregate.js';
import type { SponsorHolds } from './sponsor-holds.js';

/** Request events after which a request may have ended without a fill (failed, expired, refunded). */
const ENDINGS = new Set([
  'FillFailed',
  'RequestExpired',
  'RefundSubmitted',
  'RefundSucceeded',
  'RefundFailed',
]);

/** A request whose sponsorship hold, if any, may have to go back, and when the log said so. */
export interface ReleaseCandidate {
  readonly requestId: string;
  readonly at: string;
}

/**
 * The requests of a batch of the log whose hold may have to be released: those an ending event names, and those a
 * hold names (a hold appended after its request ended: the fill that took it read the request while it was pending,
 * and the request then expired; a gasless permit's hold taken while its quote expired). Whichever of the two the log
 * shows last finds the other. A quote that expired without a deposit (`QUOTE_EXPIRED`) may hold: its permit's.
 */
export function releaseCandidatesOf(events: readonly RecordedEvent[]): ReleaseCandidate[] {
  const byRequest = new Map<string, string>();
  for (const event of events) {
    const at = event.createdAt.toISOString();
    if (event.streamId.startsWith('request-') && ENDINGS.has(event.type)) {
      byRequest.set(event.streamId.slice('request-'.length), at);
    } else if (event.streamId.startsWith(APP_FEE_ACCOUNT_PREFIX) && event.type === 'AppFeeSponsorshipHeld') {
      byRequest.set((event.data as AppFeeSponsorshipHeldData).sponsoredRequestId, at);
    }
  }
  return [...byRequest].map(([requestId, at]) => ({ requestId, at }));
}

/**
 * Gives back the hold of each candidate whose request ended without a fill, once: the balance comes back exactly
 * once, however often the log is read. Ended without a fill: `failure` or `refund` (the solver paid nothing), or a
 * quote that expired with nothing deposited (`endedUnfilled`).
 */
export async function releaseSponsorHolds(
  store: EventStore,
  holds: SponsorHolds,
  candidates: readonly ReleaseCandidate[],
): Promise<void> {
  for (const { requestId, at } of candidates) {
    // Every candidate has a quote (a hold is decided from one); a read that fails fails the batch, to be read again.
    const facts = await readRequestFacts(store, requestId);
    const sponsor = facts.quote.sponsor;
    if (!sponsor || !endedUnfilled(facts)) continue;
    await holds.release(sponsor.address, requestId, endingReason(facts.events), at);
  }
}

/**
 * Whether the request can no longer be filled: failed or refunded, or its quote expired with nothing deposited (a
 * gasless permit that never landed; its hold was taken when the permit was posted). Such a quote takes no deposit
 * through the relayer any more (`SubmitDeposit` is refused after the expiry), and a deposit made directly after it
 * fails at once (`DEPOSIT_AFTER_EXPIRY`). A deposit-address request still fills the transfer it took before its
 * quote expired (its sweep may come later), so its expiry alone releases nothing.
 */
function endedUnfilled(facts: RequestFacts): boolean {
  if (facts.status === 'failure' || facts.status === 'refund') return true;
  return (
    facts.status === 'waiting' &&
    !facts.quote.depositAddress &&
    facts.events.some(
      (event) =>
        event.type === 'RequestExpired' && (event.data as RequestExpiredData).reason === 'QUOTE_EXPIRED',
    )
  );
}

/** Why the request ended: its last fill failure or expiry reason. */
function endingReason(events: readonly RecordedEvent[]): string {
  let reason = 'REFUNDED';
  for (const event of events) {
    if (event.type === 'FillFailed') reason = (event.data as FillFailedData).failReason;
    if (event.type === 'RequestExpired') reason = (event.data as RequestExpiredData).reason;
  }
  return reason;
}
