import type { AppConfig } from '../config/app-config.js';
import { ConfigPriceSource } from './domain/pricing/config-price-source.js';
import type { PriceSource } from './domain/pricing/price-source.js';

/** The price source the configuration names: quotes and the solver's fill actuals read USD prices from it. */
export function priceSourceFor(config: AppConfig): PriceSource {
  return new ConfigPriceSource({ bySymbol: config.quotes.prices });
}
