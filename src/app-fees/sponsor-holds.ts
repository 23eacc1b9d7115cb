import { AggregateRepository } from '../event-store/aggregate-repository.js';
import type { SnapshotStore } from '../event-store/aggregate-snapshots.js';
import { EventRegistry } from '../event-store/event-registry.js';
import type { EventStore } from '../event-store/event-store.js';
import type { RequestQuotedData } from '../requests/domain/request-events.js';
import { AppFeeDomainError } from './domain/app-fee-account-decide.js';
import { APP_FEE_ACCOUNT_EVENTS } from './domain/app-fee-account-events.js';
import { AppFeeAccountAggregate } from './domain/app-fee-account.aggregate.js';

/** How many times a hold re-decides after losing its account's stream to another writer (concurrent fills). */
const HOLD_ATTEMPTS = 25;

/**
 * The sponsor's side of a sponsored fill (docs/app-fees.md, "Sponsorship money"): before the solver pays a request
 * whose quote an app-fee balance sponsors, its sponsorship is held on that account (`HoldSponsorship`), so Ferry never
 * fronts a sponsor's money. The account's expected revision serialises the holds of concurrent fills: each decides on
 * the balance the others left. The hold's event id derives from the request, so a fill retried after a crash finds
 * its hold and takes nothing more. A gasless permit's request is held earlier, when the permit is posted, before the
 * relayer spends gas on it (`ExecuteService`); its fill then finds that hold.
 */
export class SponsorHolds {
  private readonly accounts: AggregateRepository;

  /** `accounts`: the repository to use; else one over `store`, loading accounts from `snapshots` when given. */
  constructor(
    store: EventStore,
    { accounts, snapshots }: { accounts?: AggregateRepository; snapshots?: SnapshotStore } = {},
  ) {
    this.accounts =
      accounts ??
      new AggregateRepository(
        store,
        new EventRegistry().register(...APP_FEE_ACCOUNT_EVENTS),
        undefined,
        snapshots,
      );
  }

  /**
   * Holds what `quote` sponsors from its sponsor's balance. True when it is held (now, or by an earlier attempt) or
   * the quote sponsors nothing from a balance; false when the balance no longer covers it (the request must not be
   * filled on sponsored terms). `actor`: who asks (the solver's fill, or the execute path's permit).
   */
  async hold(quote: RequestQuotedData, at: string, actor: 'solver' | 'execute' = 'solver'): Promise<boolean> {
    const sponsor = quote.sponsor;
    if (!sponsor || BigInt(sponsor.amount) <= 0n) return true;
    try {
      await this.accounts.execute(
        () => new AppFeeAccountAggregate(sponsor.address),
        (account) =>
          account.handle({
            type: 'HoldSponsorship',
            data: { requestId: quote.requestId, amount: sponsor.amount, at },
          }),
        { maxAttempts: HOLD_ATTEMPTS, metadata: { command: 'HoldSponsorship', actor } },
      );
      return true;
    } catch (error) {
      if (error instanceof AppFeeDomainError && error.code === 'SPONSORSHIP_NOT_COVERED') return false;
      throw error;
    }
  }

  /** Gives `requestId`'s hold back to `address`'s balance, once (nothing when it holds nothing). */
  async release(address: string, requestId: string, reason: string, at: string): Promise<void> {
    await this.accounts.execute(
      () => new AppFeeAccountAggregate(address),
      (account) => account.handle({ type: 'ReleaseSponsorship', data: { requestId, reason, at } }),
      { maxAttempts: HOLD_ATTEMPTS, metadata: { command: 'ReleaseSponsorship', actor: 'app-fee-accrual' } },
    );
  }
}
