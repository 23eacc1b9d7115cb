import { apiKeyVolumeProjection } from '../../projections/api-key-volume/api-key-volume.projection.js';
import type { Projection } from '../../projections/projection.js';
import { projectionStatus } from '../../projections/runner/projection-status.js';
import { AppFeeAccountAggregate } from '../app-fees/domain/app-fee-account.aggregate.js';
import type { LogMark } from '../app-fees/domain/app-fee-account-state.js';
import { successfulFills, userPaidFraction } from '../app-fees/domain/successful-fills.js';
import { usdToUsdcUnits } from '../app-fees/domain/usdc-conversion.js';
import type { ChainCurrency } from '../chains/chain.js';
import type { Database } from '../database/database.js';
import type { AggregateRepository } from '../event-store/aggregate-repository.js';
import { eventData, eventTypeOf } from '../event-store/domain-event.js';
import {
  comparePositions,
  EventIdConflictError,
  type EventStore,
  type RecordedEvent,
  WrongExpectedRevisionError,
} from '../event-store/event-store.js';
import { Decimal, formatUsd } from '../quotes/domain/pricing/decimal.js';
import type { FillSucceededData, RequestQuotedData } from '../requests/domain/request-events.js';
import { REVENUE_SHARE_WINDOW_DAYS, revenueShareUsd, tierOf } from './revenue-share-tiers.js';
import { trailingVolumeUsd } from './trailing-volume.js';
import {
  RevenueShareDecided,
  type RevenueShareDecidedData,
  revenueShareStreamId,
} from './revenue-share-decided.event.js';

/** One request's revenue share, decided: where it goes and what it is (the `RevenueShareAccrued` payload less USDC). */
export interface RevenueShareCredit {
  readonly address: string;
  readonly requestId: string;
  readonly apiKeyId: string;
  readonly transactionType: string;
  readonly tier: string;
  readonly trailingVolumeUsd: string;
  readonly share: string;
  readonly platformFeeUsd: string;
  readonly amountUsd: string;
  readonly accruedAt: string;
  /** Where the request's `FillSucceeded` sits in the log (the account takes one share per fill, in log order). */
  readonly source: LogMark;
}

/** The `api-key-volume` projection has not applied the requests a batch's shares depend on yet: try again later. */
export class VolumeNotCaughtUpError extends Error {
  constructor() {
    super('The api-key-volume projection is behind the app-fee accrual; revenue share waits for it');
    this.name = 'VolumeNotCaughtUpError';
  }
}

const DAY_MS = 86_400_000;

/**
 * Revenue share (docs/app-fees.md, "Revenue share"), decided by the app-fee accrual consumer for each successful
 * request of a batch: the request's API key, if KYB-verified and with a payout address, earns its tier's share of
 * the request's platform fee. The tier is decided by the key's volume of requests that succeeded in the 30 days
 * before this one (this request excluded: a request cannot lift itself into a tier), read from the `api-key-volume`
 * projection once it has applied the batch. Eligibility (KYB, payout address) is the key's when the share is first
 * decided, and that decision is kept in the log (`RevenueShareDecided`), so replays credit the same address.
 */
export class RevenueShareAccrual {
  constructor(
    private readonly db: Database,
    private readonly store: EventStore,
    private readonly accounts: AggregateRepository,
  ) {}

  /**
   * The shares a batch of the log earns, given the quotes of its fills (read once for the batch). Throws
   * VolumeNotCaughtUpError while the volume projection lags the batch.
   */
  async creditsOf(
    events: readonly RecordedEvent[],
    quotes: ReadonlyMap<string, RequestQuotedData>,
  ): Promise<RevenueShareCredit[]> {
    const credits: RevenueShareCredit[] = [];
    let checked = false;
    for (const { streamId, requestId, fill, source } of successfulFills(events)) {
      if (!Decimal.parse(fill.fees?.platform?.usd ?? '0', 'floor').isPositive()) continue;
      const quote = quotes.get(streamId);
      if (!quote?.apiKeyId || !quote.transactionType) continue;
      const platformFeeUsd = userPaidPlatformUsd(fill, quote);
      if (!Decimal.parse(platformFeeUsd, 'floor').isPositive()) continue;
      const key = await this.eligibility(quote.apiKeyId);
      if (!key) continue;
      if (!checked) {
        await this.assertVolumeApplied(events[events.length - 1]);
        checked = true;
      }
      const completedAt = new Date(fill.completedAt);
      const volume = await trailingVolumeUsd(this.db, quote.apiKeyId, {
        from: new Date(completedAt.getTime() - REVENUE_SHARE_WINDOW_DAYS * DAY_MS),
        before: completedAt,
      });
      const tier = tierOf(volume);
      const share = tier?.shares[quote.transactionType];
      if (!tier || !share || !Decimal.parse(share).isPositive()) continue;
      const amountUsd = revenueShareUsd(platformFeeUsd, share);
      if (!amountUsd.isPositive()) continue;
      credits.push({
        address: key.address,
        requestId,
        apiKeyId: quote.apiKeyId,
        transactionType: quote.transactionType,
        tier: tier.name,
        trailingVolumeUsd: volume,
        share,
        platformFeeUsd,
        amountUsd: amountUsd.toString(),
        accruedAt: fill.completedAt,
        source,
      });
    }
    return credits;
  }

  /**
   * Credits each share to its payout address's account, once per request: the address is the one decided for that
   * request the first time (`RevenueShareDecided`, its own stream), and the account takes a request once, so a replay
   * after the key's payout address changed credits nobody new.
   */
  async credit(
    credits: readonly RevenueShareCredit[],
    usdc: ChainCurrency,
    usdcPrice: string,
  ): Promise<void> {
    for (const credit of credits) {
      const amount = usdToUsdcUnits(credit.amountUsd, usdcPrice, usdc.decimals);
      const { address: _current, ...data } = credit;
      const address = await this.decidedAddress(credit);
      try {
        await this.accounts.execute(
          () => new AppFeeAccountAggregate(address),
          (account) =>
            account.handle({
              type: 'AccrueRevenueShare',
              data: {
                ...data,
                amountUsd: formatUsd(Decimal.parse(credit.amountUsd)),
                usdcPrice,
                amount: amount.toString(),
              },
            }),
          { metadata: { command: 'AccrueRevenueShare', actor: 'app-fee-accrual' } },
        );
      } catch (error) {
        if (!(error instanceof EventIdConflictError)) throw error;
      }
    }
  }

  /** The payout address decided for the request's share: this credit's, unless one was decided before. */
  private async decidedAddress(credit: RevenueShareCredit): Promise<string> {
    const streamId = revenueShareStreamId(credit.requestId);
    const decided = new RevenueShareDecided({
      requestId: credit.requestId,
      apiKeyId: credit.apiKeyId,
      address: credit.address,
      decidedAt: credit.accruedAt,
    });
    const { type, schemaVersion } = eventTypeOf(decided);
    try {
      await this.store.appendToStream(
        streamId,
        [
          {
            id: `revenue-share-decided:${credit.requestId}`,
            type,
            schemaVersion,
            data: eventData(decided),
            metadata: { actor: 'app-fee-accrual' },
          },
        ],
        { expectedRevision: 'no_stream' },
      );
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError || error instanceof EventIdConflictError))
        throw error;
    }
    const [first] = await this.store.readStream(streamId, { maxCount: 1 });
    return (first.data as RevenueShareDecidedData).address;
  }

  /** The key's payout address when it is eligible now (KYB verified, an address set), else null. */
  private async eligibility(apiKeyId: string): Promise<{ address: string } | null> {
    const { rows } = await this.db.query<{ kyb_verified: boolean; revenue_share_address: string | null }>(
      'SELECT kyb_verified, revenue_share_address FROM api_keys WHERE id = $1',
      [apiKeyId],
    );
    const row = rows[0];
    return row?.kyb_verified && row.revenue_share_address ? { address: row.revenue_share_address } : null;
  }

  private async assertVolumeApplied(last: RecordedEvent): Promise<void> {
    const status = await projectionStatus(this.db, this.store, apiKeyVolumeProjection as Projection, {
      lagCap: 1,
    });
    if (!status.live || status.stale || comparePositions(status.live.position, last.position) < 0) {
      throw new VolumeNotCaughtUpError();
    }
  }
}

/**
 * The platform fee the user paid, in USD: the fill's platform fee less the part the key's fee sponsorship paid in
 * the user's stead (the quote's `platform` component, `userPays ÷ total`, rounded down). A sponsored platform fee
 * earns no share: without a sponsor address Ferry's own cap pays it, so Ferry never receives it; with one, the
 * integrator would discount its users with its share, which the spec forbids.
 */
export function userPaidPlatformUsd(fill: FillSucceededData, quote: RequestQuotedData): string {
  const platformUsd = Decimal.parse(fill.fees?.platform?.usd ?? '0', 'floor');
  const paid = userPaidFraction(quote.feeSponsorship?.components?.platform);
  if (!paid) return platformUsd.toString();
  return platformUsd.mul(Decimal.of(paid.userPays), 'floor').div(Decimal.of(paid.total), 'floor').toString();
}
