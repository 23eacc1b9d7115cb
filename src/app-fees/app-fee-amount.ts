import type { ChainCurrency } from '../chains/chain.js';
import { Decimal, formatUnits, formatUsd, fromUnits } from '../quotes/domain/pricing/decimal.js';
import type { Amount, Currency } from '../requests/domain/records.js';

/** The spec's Currency object of a configured currency (without Ferry's own settlement flags). */
export function currencyObject(currency: ChainCurrency): Currency {
  const { chainId, address, symbol, name, decimals, metadata } = currency;
  return { chainId, address, symbol, name, decimals, metadata };
}

/** A balance in `currency` units as the spec's Amount object, valued at `usdPrice`. */
export function balanceAmount(currency: ChainCurrency, units: bigint, usdPrice: string): Amount {
  return {
    currency: currencyObject(currency),
    amount: units.toString(),
    amountFormatted: formatUnits(units, currency.decimals),
    amountUsd: formatUsd(fromUnits(units, currency.decimals).mul(Decimal.parse(usdPrice), 'floor')),
    minimumAmount: units.toString(),
  };
}
