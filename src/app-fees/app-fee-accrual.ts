import { ensureCheckpoint } from '../../projections/runner/checkpointed-batch.js';
import { processCheckpointedEffects } from '../../projections/runner/checkpointed-effects.js';
import type { ChainCurrency } from '../chains/chain.js';
import type { ChainRegistry } from '../chains/chain-registry.js';
import type { Database } from '../database/database.js';
import type { AggregateRepository } from '../event-store/aggregate-repository.js';
import type { EventStore, RecordedEvent } from '../event-store/event-store.js';
import { Decimal, formatUsd } from '../quotes/domain/pricing/decimal.js';
import type { PriceSource } from '../quotes/domain/pricing/price-source.js';
import type { RequestQuotedData } from '../requests/domain/request-events.js';
import type { AppFeesConfig } from './app-fees.config.js';
import { AppFeeAccountAggregate } from './domain/app-fee-account.aggregate.js';
import type { LogMark } from './domain/app-fee-account-state.js';
import { SponsorHolds } from './sponsor-holds.js';
import { releaseCandidatesOf, releaseSponsorHolds } from './sponsor-releases.js';
import { successfulFills, userPaidFraction } from './domain/successful-fills.js';
import { usdToUsdcUnits } from './domain/usdc-conversion.js';
import {
  type RevenueShareCredit,
  RevenueShareAccrual,
  VolumeNotCaughtUpError,
} from '../revenue-share/revenue-share-accrual.js';

/** The accrual consumer's checkpoint row in `projection_checkpoints`. */
export const ACCRUAL_CONSUMER = 'app-fee-accrual';

/** One recipient's credit from one successful request. */
export interface Accrual {
  readonly address: string;
  readonly requestId: string;
  readonly amountUsd: string;
  readonly accruedAt: string;
  readonly source: LogMark;
}

/**
 * The credits a batch of the log calls for: each `FillSucceeded` with app fees credits each recipient once (several
 * entries for one recipient add up). Requests that fail or are refunded have no `FillSucceeded`, so they credit
 * nothing.
 */
export function accrualsOf(
  events: readonly RecordedEvent[],
  quotes: ReadonlyMap<string, RequestQuotedData> = new Map(),
): Accrual[] {
  const accruals: Accrual[] = [];
  for (const { streamId, requestId, fill, source } of successfulFills(events)) {
    const byRecipient = new Map<string, Decimal>();
    for (const fee of fill.appFees ?? []) {
      const address = fee.recipient.toLowerCase();
      byRecipient.set(address, (byRecipient.get(address) ?? Decimal.ZERO).add(Decimal.parse(fee.amountUsd)));
    }
    const paid = userPaidAppFeeShare(quotes.get(streamId));
    for (const [address, gross] of byRecipient) {
      const usd = paid
        ? gross.mul(Decimal.of(paid.userPays), 'floor').div(Decimal.of(paid.total), 'floor')
        : gross;
      if (!usd.isPositive()) continue;
      accruals.push({ address, requestId, amountUsd: usd.toString(), accruedAt: fill.completedAt, source });
    }
  }
  return accruals;
}

/**
 * The part of a request's app fees its user paid, when Ferry's own sponsorship cap paid the rest (a key with fee
 * sponsorship and no sponsor address, sponsoring the `app` component): `{userPays, total}` of that component. Null
 * when the app fees were paid in full, by the user or by a sponsor's app-fee balance. Without this, an integrator
 * quoting with such a key and app fees to itself would be credited, as withdrawable app fees, money Ferry paid.
 */
export function userPaidAppFeeShare(
  quote: RequestQuotedData | undefined,
): { readonly userPays: bigint; readonly total: bigint } | null {
  if (!quote || quote.sponsor) return null;
  return userPaidFraction(quote.feeSponsorship?.components?.app);
}

/** A sponsoring account's payment for one filled request (`feeSponsorship.actual.sponsorPayment`). */
export interface SponsorDebit {
  readonly address: string;
  readonly requestId: string;
  /** Base USDC units. */
  readonly amount: string;
  readonly at: string;
  readonly source: LogMark;
}

/** The sponsor payments a batch of the log calls for: one per filled request whose sponsorship an app balance pays. */
export function sponsorDebitsOf(events: readonly RecordedEvent[]): SponsorDebit[] {
  return successfulFills(events).flatMap(({ requestId, fill, source }) => {
    const payment = fill.feeSponsorship?.sponsorPayment;
    if (!payment || BigInt(payment.amount) <= 0n) return [];
    return [
      {
        address: payment.address.toLowerCase(),
        requestId,
        amount: payment.amount,
        at: fill.completedAt,
        source,
      },
    ];
  });
}

/** What a batch needs from outside the log, read before its transaction opens. */
interface PreparedBatch {
  /** The quotes of the fills that credit anything (app fees or a platform fee), by request stream. */
  readonly quotes: ReadonlyMap<string, RequestQuotedData>;
  readonly shares: readonly RevenueShareCredit[];
  /** The base USDC and its USD price, when the batch credits anything. */
  readonly usdc: { readonly currency: ChainCurrency; readonly usdPrice: string } | null;
}

/**
 * Credits app fees to their recipients' accounts, pays sponsored requests from their sponsors' accounts (from the
 * hold their fill took) and gives back the holds of sponsored requests that ended without a fill, as a checkpointed
 * consumer of the log (never the in-memory bus), so a restart resumes where it stopped. Each is appended before the
 * checkpoint moves, with no transaction of its own held open meanwhile (`processCheckpointedEffects`); one handled
 * twice (a crash in between, a consumer reset) is taken once, since the account takes a fill once (its mark) and the
 * event id is derived from the request and the address.
 */
export class AppFeeAccrual {
  private readonly revenueShare: RevenueShareAccrual;
  private readonly holds: SponsorHolds;

  constructor(
    private readonly db: Database,
    private readonly store: EventStore,
    private readonly accounts: AggregateRepository,
    private readonly chains: ChainRegistry,
    private readonly prices: PriceSource,
    private readonly config: Pick<AppFeesConfig, 'baseChainId' | 'baseCurrency'>,
    private readonly batchSize = 200,
  ) {
    this.revenueShare = new RevenueShareAccrual(db, store, accounts);
    this.holds = new SponsorHolds(store, { accounts });
  }

  async ensureCheckpoint(): Promise<void> {
    await ensureCheckpoint(this.db, ACCRUAL_CONSUMER);
  }

  /**
   * One batch of the log. True when it read events. A batch whose revenue share depends on volume the
   * `api-key-volume` projection has not applied yet is left for a later step (false: nothing read).
   */
  async step(): Promise<boolean> {
    try {
      const result = await processCheckpointedEffects<PreparedBatch>(
        this.db,
        this.store,
        { name: ACCRUAL_CONSUMER, generation: 1, batchSize: this.batchSize },
        async (events, { quotes, shares, usdc }) => {
          if (usdc) {
            await this.revenueShare.credit(shares, usdc.currency, usdc.usdPrice);
            await this.accrue(accrualsOf(events, quotes), usdc.currency, usdc.usdPrice);
          }
          await this.debit(sponsorDebitsOf(events));
          await releaseSponsorHolds(this.store, this.holds, releaseCandidatesOf(events));
        },
        (events) => this.prepare(events),
      );
      return result.processed > 0;
    } catch (error) {
      if (error instanceof VolumeNotCaughtUpError) return false;
      throw error;
    }
  }

  /**
   * Reads, once per batch and outside its transaction: the quote of each fill that credits anything, the revenue
   * shares they earn, and the base USDC's price when something is credited.
   */
  private async prepare(events: readonly RecordedEvent[]): Promise<PreparedBatch> {
    const quotes = new Map<string, RequestQuotedData>();
    for (const { streamId, fill } of successfulFills(events)) {
      const credits =
        (fill.appFees ?? []).length > 0 ||
        Decimal.parse(fill.fees?.platform?.usd ?? '0', 'floor').isPositive();
      if (!credits) continue;
      const [quoted] = await this.store.readStream(streamId, { maxCount: 1 });
      if (quoted?.type === 'RequestQuoted') quotes.set(streamId, quoted.data as RequestQuotedData);
    }
    const shares = await this.revenueShare.creditsOf(events, quotes);
    if (shares.length === 0 && accrualsOf(events, quotes).length === 0) return { quotes, shares, usdc: null };
    const currency = this.chains.currency(this.config.baseChainId, this.config.baseCurrency);
    const usdPrice = await this.prices.usdPrice(currency);
    if (!usdPrice) {
      throw new Error(`No USD price for the app-fee base currency ${currency.symbol} on ${currency.chainId}`);
    }
    return { quotes, shares, usdc: { currency, usdPrice } };
  }

  /** Pays each sponsored request from its sponsor's balance, once (the account takes a request once). */
  private async debit(debits: readonly SponsorDebit[]): Promise<void> {
    for (const debit of debits) {
      await this.accounts.execute(
        () => new AppFeeAccountAggregate(debit.address),
        (account) =>
          account.handle({
            type: 'PaySponsorship',
            data: { requestId: debit.requestId, amount: debit.amount, at: debit.at, source: debit.source },
          }),
        { metadata: { command: 'PaySponsorship', actor: ACCRUAL_CONSUMER } },
      );
    }
  }

  private async accrue(accruals: readonly Accrual[], usdc: ChainCurrency, usdcPrice: string): Promise<void> {
    for (const accrual of accruals) {
      const amount = usdToUsdcUnits(accrual.amountUsd, usdcPrice, usdc.decimals);
      await this.accounts.execute(
        () => new AppFeeAccountAggregate(accrual.address),
        (account) =>
          account.handle({
            type: 'AccrueAppFee',
            data: {
              requestId: accrual.requestId,
              amount: amount.toString(),
              amountUsd: formatUsd(Decimal.parse(accrual.amountUsd)),
              usdcPrice,
              accruedAt: accrual.accruedAt,
              source: accrual.source,
            },
          }),
        { metadata: { command: 'AccrueAppFee', actor: ACCRUAL_CONSUMER } },
      );
    }
  }
}
