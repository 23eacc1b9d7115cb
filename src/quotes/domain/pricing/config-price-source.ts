import type { Currency } from '../../../requests/domain/records.js';
import { Decimal } from './decimal.js';
import { currencyKey, type PriceSource } from './price-source.js';

/** A price for one currency on one chain, overriding the price of its symbol. */
export interface CurrencyPriceOverride {
  readonly chainId: number;
  readonly address: string;
  readonly usd: string;
}

/** The configured prices: USD per whole unit by symbol (exact, case-sensitive), plus per-currency overrides. */
export interface ConfigPrices {
  readonly bySymbol: Readonly<Record<string, string>>;
  readonly overrides?: readonly CurrencyPriceOverride[];
}

/**
 * A `PriceSource` from a fixed table (configuration, tests, testnets): a (chainId, address) override first, else the
 * symbol's price, else null. Every price is checked once, here: a decimal string greater than zero.
 *
 * @example new ConfigPriceSource({ bySymbol: { ETH: '3000', USDC: '1' } }).usdPrice(usdcOnBase); // '1'
 */
export class ConfigPriceSource implements PriceSource {
  private readonly bySymbol: ReadonlyMap<string, string>;
  private readonly byCurrency: ReadonlyMap<string, string>;

  constructor(prices: ConfigPrices) {
    this.bySymbol = new Map(
      Object.entries(prices.bySymbol).map(([symbol, usd]) => [
        symbol,
        checkedPrice(usd, `bySymbol.${symbol}`),
      ]),
    );
    this.byCurrency = new Map(
      (prices.overrides ?? []).map((override) => [
        currencyKey(override),
        checkedPrice(override.usd, `overrides[${override.chainId}:${override.address}]`),
      ]),
    );
  }

  usdPrice(currency: Currency): Promise<string | null> {
    return Promise.resolve(
      this.byCurrency.get(currencyKey(currency)) ?? this.bySymbol.get(currency.symbol) ?? null,
    );
  }
}

function checkedPrice(usd: string, where: string): string {
  let price: Decimal;
  try {
    price = Decimal.parse(usd);
  } catch {
    throw new RangeError(`Price ${where} is "${usd}": expected a decimal string of USD per whole unit`);
  }
  if (!price.isPositive()) throw new RangeError(`Price ${where} is "${usd}": a price must be greater than 0`);
  return usd;
}
