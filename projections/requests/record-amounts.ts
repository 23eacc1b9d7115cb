import type { Amount } from '../../src/requests/domain/records.js';

/**
 * The same currency as `like`, with another amount in the smallest unit (USD scaled exactly from the quote). An
 * amount that moved onchain has no slippage left: its `minimumAmount` is the amount.
 */
export function amountOf(like: Amount, amount: string): Amount {
  const units = BigInt(amount);
  const quotedUnits = BigInt(like.amount);
  return {
    currency: like.currency,
    amount,
    amountFormatted: formatUnits(units, like.currency.decimals),
    amountUsd: quotedUnits === 0n ? '0' : scaleDecimal(like.amountUsd, units, quotedUnits),
    minimumAmount: amount,
  };
}

export function formatUnits(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const text = (negative ? -units : units).toString().padStart(decimals + 1, '0');
  const whole = text.slice(0, text.length - decimals);
  const fraction = text.slice(text.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** `decimal × numerator / denominator`, exactly, to 6 decimal places (rounded down). */
function scaleDecimal(decimal: string, numerator: bigint, denominator: bigint): string {
  const [whole, fraction = ''] = decimal.split('.');
  const scaled = BigInt(whole + fraction.padEnd(6, '0').slice(0, 6));
  return formatUnits((scaled * numerator) / denominator, 6);
}
