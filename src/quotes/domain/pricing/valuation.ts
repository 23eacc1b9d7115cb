import type { Amount, Currency } from '../../../requests/domain/records.js';
import { QuoteError } from '../quote-error.js';
import { Decimal, divide, formatUnits, formatUsd, pow10, type Rounding } from './decimal.js';

/** A currency with its USD price per whole unit (a decimal string), as the pricing functions take it. */
export type Priced<C extends Currency = Currency> = C & { readonly usdPrice: string };

/** A conversion between two currencies' smallest units: `out = in × numerator / denominator`. */
export interface UnitRate {
  readonly numerator: bigint;
  readonly denominator: bigint;
}

/** The USD price of one whole unit; a price that is not a positive decimal cannot quote (`NO_ROUTE`). */
export function priceOf(currency: Priced): Decimal {
  let price: Decimal | null = null;
  try {
    price = Decimal.parse(currency.usdPrice, 'halfExpand');
  } catch {
    price = null;
  }
  if (!price?.isPositive()) {
    throw new QuoteError(
      'NO_ROUTE',
      `No usable USD price for ${currency.symbol} on chain ${currency.chainId}`,
      {
        chainId: currency.chainId,
        address: currency.address,
        symbol: currency.symbol,
        usdPrice: currency.usdPrice,
      },
    );
  }
  return price;
}

/** The USD value of an amount in the smallest unit (18 fractional digits, rounded as asked). */
export function usdValue(units: bigint, currency: Priced, rounding: Rounding = 'halfExpand'): Decimal {
  return Decimal.fromScaled(divide(units * priceOf(currency).scaled, pow10(currency.decimals), rounding));
}

/** The amount in the smallest unit that a USD value buys, rounded as asked (`ceil` for a fee charged). */
export function unitsForUsd(usd: Decimal, currency: Priced, rounding: Rounding): bigint {
  return divide(usd.scaled * pow10(currency.decimals), priceOf(currency).scaled, rounding);
}

/** The rate at the two USD prices (a swap at mid price). */
export function marketRate(from: Priced, to: Priced): UnitRate {
  return {
    numerator: priceOf(from).scaled * pow10(to.decimals),
    denominator: priceOf(to).scaled * pow10(from.decimals),
  };
}

/** One whole unit for one whole unit, whatever the prices (a bridge, a wrap, a send of the same asset). */
export function parityRate(from: Currency, to: Currency): UnitRate {
  return { numerator: pow10(to.decimals), denominator: pow10(from.decimals) };
}

export function applyRate(units: bigint, rate: UnitRate, rounding: Rounding): bigint {
  return divide(units * rate.numerator, rate.denominator, rounding);
}

/** An amount of one priced currency in another's smallest unit, at their USD prices. */
export function convertUnits(units: bigint, from: Priced, to: Priced, rounding: Rounding): bigint {
  return applyRate(units, marketRate(from, to), rounding);
}

/** Whole output units per whole input unit, rounded down to 18 decimals (a quote's or a fill's `rate`). */
export function rateOf(
  amountIn: bigint,
  amountOut: bigint,
  currencyIn: { readonly decimals: number },
  currencyOut: { readonly decimals: number },
): string {
  if (amountIn === 0n) return '0';
  return Decimal.ratio(
    amountOut * pow10(currencyIn.decimals),
    amountIn * pow10(currencyOut.decimals),
    'floor',
  ).toString();
}

/** The spec's Currency object: what a priced chain currency shows in JSON (no price, no chain-config fields). */
export function toCurrency(currency: Currency): Currency {
  const { chainId, address, symbol, name, decimals, metadata } = currency;
  return { chainId, address, symbol, name, decimals, metadata: { ...metadata } };
}

/** The spec's Amount object for an amount in the smallest unit (negative amounts keep their sign). */
export function toAmount(units: bigint, currency: Priced, minimumAmount: bigint = units): Amount {
  return {
    currency: toCurrency(currency),
    amount: units.toString(),
    amountFormatted: formatUnits(units, currency.decimals),
    amountUsd: formatUsd(usdValue(units, currency)),
    minimumAmount: minimumAmount.toString(),
  };
}
