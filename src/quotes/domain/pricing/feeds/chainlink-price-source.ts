import {
  PriceFeedReadError,
  readPriceFeed,
  type ReadPriceFeedReturnType,
} from '../../../../chains/read-price-feed.js';
import type { Clock } from '../../../../common/clock.js';
import { SharedReads } from '../../../../common/shared-reads.js';
import { ReadClients } from '../../../../chains/read-clients.js';
import type { PriceFeedConfig, PriceFeedsConfig } from '../../../../config/price-source-config.js';
import type { Currency } from '../../../../requests/domain/records.js';
import { currencyKey, type PriceSource } from '../price-source.js';
import { checkFeedRound } from './feed-round.js';
import { PriceError } from './price-error.js';

export interface ChainlinkPriceSourceOptions {
  readonly config: PriceFeedsConfig;
  /** Bounds one read of a feed (both round trips). */
  readonly timeoutMs: number;
  /** Decides staleness: `updatedAt` is compared with this clock, never with the chain's. */
  readonly clock: Clock;
  /** Only for the read cache's age (monotonic enough); defaults to `Date.now`. */
  readonly nowMs?: () => number;
}

/**
 * A `PriceSource` reading Chainlink-style USD feeds (`AggregatorV3Interface`) through viem. The currency's feed is
 * its (chainId, address) override, else its symbol's; without one the price is refused (`no-feed`), never guessed.
 * The feed must describe itself as configured (`"ETH / USD"`), and each answer passes `checkFeedRound` (positive,
 * complete, fresh against the injected clock, no jump past the feed's deviation limit) or the quote is refused with a `PriceError` naming the currency.
 *
 * A feed's raw read is reused for `cacheMs` (a failure too, so a dead chain costs one timeout per period, not one
 * per quote); the checks run on every use, so a cached answer turns stale on time.
 *
 * @example await new ChainlinkPriceSource({ config, timeoutMs: 1500, clock }).usdPrice(eth); // '3000'
 */
export class ChainlinkPriceSource implements PriceSource {
  private readonly byCurrency: ReadonlyMap<string, string>;
  private readonly reads: SharedReads<ReadPriceFeedReturnType>;
  private readonly clients: ReadClients;

  constructor(private readonly options: ChainlinkPriceSourceOptions) {
    this.byCurrency = new Map(
      options.config.overrides.map((override) => [currencyKey(override), override.feed]),
    );
    this.reads = new SharedReads(options.config.cacheMs, options.nowMs);
    this.clients = new ReadClients(options.timeoutMs);
  }

  async usdPrice(currency: Currency): Promise<string> {
    const name = this.byCurrency.get(currencyKey(currency)) ?? this.options.config.symbols[currency.symbol];
    const feed = name === undefined ? undefined : this.options.config.feeds[name];
    if (name === undefined || feed === undefined) {
      throw new PriceError('no-feed', currency, `No USD price feed is configured for ${currency.symbol}`);
    }
    const where = { feed: { name, chainId: feed.chainId, address: feed.address } };
    let read: ReadPriceFeedReturnType;
    try {
      read = await this.read(feed);
    } catch (error) {
      const reason =
        error instanceof PriceFeedReadError && error.kind === 'unreachable' ? 'unreachable' : 'feed-error';
      // The answer names no RPC detail (production URLs carry keys); the cause stays for the logs.
      const what = reason === 'unreachable' ? 'its chain did not answer' : 'it could not be read';
      const refused = new PriceError(reason, currency, `The ${name} / USD price feed: ${what}`, where);
      refused.cause = error;
      throw refused;
    }
    if (feed.description !== null && read.description !== feed.description) {
      throw new PriceError(
        'wrong-feed',
        currency,
        `${name} / USD feed: the contract at ${feed.address} prices "${read.description}", not "${feed.description}"`,
        { ...where, description: read.description, expectedDescription: feed.description },
      );
    }
    const verdict = checkFeedRound({
      latest: read.latest,
      previous: read.previous,
      decimals: read.decimals,
      policy: feed,
      now: this.options.clock.now(),
    });
    if (!verdict.ok) {
      throw new PriceError(verdict.reason, currency, `${name} / USD feed: ${verdict.message}`, {
        ...where,
        ...verdict.details,
      });
    }
    return verdict.usd;
  }

  private read(feed: PriceFeedConfig): Promise<ReadPriceFeedReturnType> {
    return this.reads.get(`${feed.chainId}:${feed.address}`, () =>
      readPriceFeed({
        client: (signal) => this.clients.until(feed.rpcUrl, feed.chainId, signal),
        address: feed.address,
        timeoutMs: this.options.timeoutMs,
      }),
    );
  }
}
