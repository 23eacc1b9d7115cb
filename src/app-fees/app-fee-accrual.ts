import { processCheckpointedBatch } from '../../projections/runner/checkpointed-batch.js';
import type { ChainRegistry } from '../chains/chain-registry.js';
import type { Database } from '../database/database.js';
import type { AggregateRepository } from '../event-store/aggregate-repository.js';
import type { EventStore, RecordedEvent } from '../event-store/event-store.js';
import { Decimal, formatUsd } from '../quotes/domain/pricing/decimal.js';
import type { PriceSource } from '../quotes/domain/pricing/price-source.js';
import type { FillSucceededData, RequestQuotedData } from '../requests/domain/request-events.js';
import type { AppFeesConfig } from './app-fees.config.js';
import { AppFeeAccountAggregate } from './domain/app-fee-account.aggregate.js';
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
  for (const event of events) {
    if (event.type !== 'FillSucceeded' || !event.streamId.startsWith('request-')) continue;
    const data = event.data as FillSucceededData;
    const byRecipient = new Map<string, Decimal>();
    for (const fee of data.appFees ?? []) {
      const address = fee.recipient.toLowerCase();
      byRecipient.set(address, (byRecipient.get(address) ?? Decimal.ZERO).add(Decimal.parse(fee.amountUsd)));
    }
    const paid = userPaidAppFeeShare(quotes.get(event.streamId));
    for (const [address, gross] of byRecipient) {
      const usd = paid
        ? gross.mul(Decimal.of(paid.userPays), 'floor').div(Decimal.of(paid.total), 'floor')
        : gross;
      if (!usd.isPositive()) continue;
      accruals.push({
        address,
        requestId: event.streamId.slice('request-'.length),
        amountUsd: usd.toString(),
        accruedAt: data.completedAt,
      });
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
  const component = quote?.feeSponsorship?.components?.app;
  if (!quote || quote.sponsor || !component?.selected || BigInt(component.sponsored) <= 0n) return null;
  const total = BigInt(component.total);
  const userPays = BigInt(component.userPays);
  if (total <= 0n) return null;
  return { userPays: userPays < 0n ? 0n : userPays > total ? total : userPays, total };
}

/** A sponsoring account's payment for one filled request (`feeSponsorship.actual.sponsorPayment`). */
export interface SponsorDebit {
  readonly address: string;
  readonly requestId: string;
  /** Base USDC units. */
  readonly amount: string;
  readonly at: string;
}

/** The sponsor payments a batch of the log calls for: one per filled request whose sponsorship an app balance pays. */
export function sponsorDebitsOf(events: readonly RecordedEvent[]): SponsorDebit[] {
  const debits: SponsorDebit[] = [];
  for (const event of events) {
    if (event.type !== 'FillSucceeded' || !event.streamId.startsWith('request-')) continue;
    const data = event.data as FillSucceededData;
    const payment = data.feeSponsorship?.sponsorPayment;
    if (!payment || BigInt(payment.amount) <= 0n) continue;
    debits.push({
      address: payment.address.toLowerCase(),
      requestId: event.streamId.slice('request-'.length),
      amount: payment.amount,
      at: data.completedAt,
    });
  }
  return debits;
}

/**
 * Credits app fees to their recipients' accounts, and pays sponsored requests from their sponsors' accounts, as a
 * checkpointed consumer of the log (never the in-memory bus), so a restart resumes where it stopped. Both are
 * appended before the checkpoint moves; one appended twice (a crash in between, two instances) is stored once, since
 * the account takes a request once and the event id is derived from the request and the address.
 */
export class AppFeeAccrual {
  private readonly revenueShare: RevenueShareAccrual;

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
  }

  async ensureCheckpoint(): Promise<void> {
    await this.db.query(
      'INSERT INTO projection_checkpoints (name, generation) VALUES ($1, 1) ON CONFLICT (name, generation) DO NOTHING',
      [ACCRUAL_CONSUMER],
    );
  }

  /**
   * One batch of the log. True when it read events. A batch whose revenue share depends on volume the
   * `api-key-volume` projection has not applied yet is left for a later step (false: nothing read).
   */
  async step(): Promise<boolean> {
    try {
      const result = await processCheckpointedBatch<RevenueShareCredit[]>(
        this.db,
        this.store,
        { name: ACCRUAL_CONSUMER, generation: 1, batchSize: this.batchSize },
        async (_tx, events, shares) => {
          await this.accrue(accrualsOf(events, await this.sponsoredQuotesOf(events)), shares);
          await this.debit(sponsorDebitsOf(events));
        },
        (events) => this.revenueShare.creditsOf(events),
      );
      return result.processed > 0;
    } catch (error) {
      if (error instanceof VolumeNotCaughtUpError) return false;
      throw error;
    }
  }

  /** The quotes of the batch's fills with app fees and fee sponsorship (whose app fees may be partly Ferry's). */
  private async sponsoredQuotesOf(events: readonly RecordedEvent[]): Promise<Map<string, RequestQuotedData>> {
    const quotes = new Map<string, RequestQuotedData>();
    for (const event of events) {
      if (event.type !== 'FillSucceeded' || !event.streamId.startsWith('request-')) continue;
      if (((event.data as FillSucceededData).appFees ?? []).length === 0) continue;
      const [quoted] = await this.store.readStream(event.streamId, { maxCount: 1 });
      const quote = quoted?.type === 'RequestQuoted' ? (quoted.data as RequestQuotedData) : null;
      if (quote?.feeSponsorship) quotes.set(event.streamId, quote);
    }
    return quotes;
  }

  /** Pays each sponsored request from its sponsor's balance, once (the account takes a request once). */
  private async debit(debits: readonly SponsorDebit[]): Promise<void> {
    for (const debit of debits) {
      await this.accounts.execute(
        () => new AppFeeAccountAggregate(debit.address),
        (account) =>
          account.handle({
            type: 'PaySponsorship',
            data: { requestId: debit.requestId, amount: debit.amount, at: debit.at },
          }),
        { metadata: { command: 'PaySponsorship', actor: ACCRUAL_CONSUMER } },
      );
    }
  }

  private async accrue(accruals: readonly Accrual[], shares: readonly RevenueShareCredit[]): Promise<void> {
    if (accruals.length === 0 && shares.length === 0) return;
    const usdc = this.chains.currency(this.config.baseChainId, this.config.baseCurrency);
    const usdcPrice = await this.prices.usdPrice(usdc);
    if (!usdcPrice)
      throw new Error(`No USD price for the app-fee base currency ${usdc.symbol} on ${usdc.chainId}`);
    await this.revenueShare.credit(shares, usdc, usdcPrice);
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
            },
          }),
        { metadata: { command: 'AccrueAppFee', actor: ACCRUAL_CONSUMER } },
      );
    }
  }
}
