import { Logger } from '@nestjs/common';
import type { Clock } from '../common/clock.js';
import type { AppConfig } from '../config/app-config.js';
import { currenciesWithoutFeed } from '../config/price-source-config.js';
import { createPriceSource } from './domain/pricing/feeds/create-price-source.js';
import type { PriceSource } from './domain/pricing/price-source.js';

const sources = new WeakMap<AppConfig, PriceSource>();

/**
 * The process's price source, from `quotes.priceSource` (docs/prices.md), with what an operator must hear: the listed
 * currencies no feed prices (once, at start-up), and when development falls back to the table. One per configuration:
 * quotes and the solver's fill actuals share its reads, its cache and its warnings.
 */
export function quotePriceSource(config: AppConfig, clock: Clock): PriceSource {
  let source = sources.get(config);
  if (!source) {
    source = createQuotePriceSource(config, clock);
    sources.set(config, source);
  }
  return source;
}

function createQuotePriceSource(config: AppConfig, clock: Clock): PriceSource {
  const logger = new Logger('Prices');
  const { priceSource } = config.quotes;
  const unpriced =
    priceSource.mode === 'table' ? [] : currenciesWithoutFeed(priceSource.feeds, config.chains);
  if (unpriced.length > 0) {
    logger.warn(`No price feed for ${unpriced.join(', ')}: their quotes are refused (PRICE_UNAVAILABLE)`);
  }
  return createPriceSource({
    config: priceSource,
    timeoutMs: config.quotes.rpcTimeoutMs,
    clock,
    events: {
      onFallback: (error) =>
        logger.warn(
          `Price feeds unreachable (${error.message}: ${(error.cause as Error | undefined)?.message ?? 'no detail'}): quotes use the development table quotes.priceSource.table until they answer`,
        ),
      onRecovered: () => logger.log('Price feeds answer again: quotes use them'),
    },
  });
}
