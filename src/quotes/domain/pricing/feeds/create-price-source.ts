import type { Clock } from '../../../../common/clock.js';
import type { PriceSourceConfig } from '../../../../config/price-source-config.js';
import { ConfigPriceSource } from '../config-price-source.js';
import type { PriceSource } from '../price-source.js';
import { ChainlinkPriceSource } from './chainlink-price-source.js';
import { type FallbackEvents, TableFallbackPriceSource } from './table-fallback-price-source.js';

export interface CreatePriceSourceParameters {
  readonly config: PriceSourceConfig;
  readonly timeoutMs: number;
  readonly clock: Clock;
  /** Told when development falls back to the table and when the feeds answer again. */
  readonly events: FallbackEvents;
}

/** The price source `quotes.priceSource` describes (docs/prices.md). */
export function createPriceSource({
  config,
  timeoutMs,
  clock,
  events,
}: CreatePriceSourceParameters): PriceSource {
  switch (config.mode) {
    case 'table':
      return new ConfigPriceSource({ bySymbol: config.table });
    case 'feeds':
      return new ChainlinkPriceSource({ config: config.feeds, timeoutMs, clock });
    case 'feeds-with-table-fallback':
      return new TableFallbackPriceSource(
        new ChainlinkPriceSource({ config: config.feeds, timeoutMs, clock }),
        new ConfigPriceSource({ bySymbol: config.table }),
        events,
      );
  }
}
