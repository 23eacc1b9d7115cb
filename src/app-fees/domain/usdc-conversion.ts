import { Decimal, divide, pow10, toUnits } from '../../quotes/domain/pricing/decimal.js';

/**
 * Exact conversions between USD values and token units for app-fee balances (docs/app-fees.md). No floating point:
 * prices and USD values are decimal strings, amounts bigint. What Ferry credits or pays rounds down; what it charges
 * rounds up.
 */

/**
 * A USD value in units of USDC (`decimals` digits) at `usdcPrice` USD per USDC, rounded down.
 *
 * @example usdToUsdcUnits('1.2345679', '1', 6); // 1234567n
 */
export function usdToUsdcUnits(amountUsd: string, usdcPrice: string, decimals: number): bigint {
  const price = positivePrice(usdcPrice);
  return toUnits(Decimal.parse(amountUsd, 'floor').div(price, 'floor'), decimals, 'floor');
}

/** A fee in USD charged in USDC units: rounded up. */
export function usdFeeToUsdcUnits(feeUsd: string, usdcPrice: string, decimals: number): bigint {
  const price = positivePrice(usdcPrice);
  return toUnits(Decimal.parse(feeUsd).div(price, 'ceil'), decimals, 'ceil');
}

/**
 * `units` of USDC paid out in another currency at the two USD prices, rounded down:
 * units × usdcPrice × 10^targetDecimals / (10^usdcDecimals × targetPrice), in one exact integer division.
 */
export function convertUsdcUnits(
  units: bigint,
  usdc: { readonly decimals: number; readonly usdPrice: string },
  target: { readonly decimals: number; readonly usdPrice: string },
): bigint {
  const usdcPrice = positivePrice(usdc.usdPrice).scaled;
  const targetPrice = positivePrice(target.usdPrice).scaled;
  return divide(units * usdcPrice * pow10(target.decimals), pow10(usdc.decimals) * targetPrice, 'floor');
}

function positivePrice(price: string): Decimal {
  const value = Decimal.parse(price, 'floor');
  if (!value.isPositive()) throw new RangeError(`A USD price must be positive, got "${price}"`);
  return value;
}
