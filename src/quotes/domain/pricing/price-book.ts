import type { Currency } from '../../../requests/domain/records.js';
import { QuoteError } from '../quote-error.js';
import { Decimal } from './decimal.js';
import { currencyKey, type PriceSource } from './price-source.js';
import type { Priced } from './valuation.js';

/**
 * The prices one quote needs, fetched once: every distinct currency is asked of the source a single time, in
 * parallel, so one quote sees one consistent set of prices even if the source moves meanwhile.
 *
 * @example
 * const book = await PriceBook.load(source, [currencyIn, currencyOut, origin.nativeCurrency]);
 * const priced = book.priced(currencyIn); // currencyIn plus usdPrice, or QuoteError NO_ROUTE
 */
export class PriceBook {
  private constructor(private readonly prices: ReadonlyMap<string, string | null>) {}

  static async load(source: PriceSource, currencies: readonly Currency[]): Promise<PriceBook> {
    const distinct = new Map(currencies.map((currency) => [currencyKey(currency), currency]));
    const entries = await Promise.all(
      [...distinct].map(async ([key, currency]) => [key, usable(await source.usdPrice(currency))] as const),
    );
    return new PriceBook(new Map(entries));
  }

  /** The USD price of one whole unit, or null when the source had none (or the currency was not loaded). */
  usdPrice(currency: Currency): string | null {
    return this.prices.get(currencyKey(currency)) ?? null;
  }

  /** The currency with its price attached; without a price nothing can be quoted (`NO_ROUTE`). */
  priced<C extends Currency>(currency: C): Priced<C> {
    const usdPrice = this.usdPrice(currency);
    if (usdPrice === null) {
      throw new QuoteError('NO_ROUTE', `No USD price for ${currency.symbol} on chain ${currency.chainId}`, {
        chainId: currency.chainId,
        address: currency.address,
        symbol: currency.symbol,
      });
    }
    return { ...currency, usdPrice };
  }
}

/** A source's answer kept only when it is a positive decimal: anything else counts as "no price". */
function usable(usd: string | null): string | null {
  if (usd === null) return null;
  try {
    return Decimal.parse(usd, 'halfExpand').isPositive() ? usd : null;
  } catch {
    return null;
  }
}
