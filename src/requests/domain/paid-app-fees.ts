import { Decimal, formatUsd } from '../../quotes/domain/pricing/decimal.js';
import type { PaidAppFee } from './records.js';
import type { RequestQuotedData } from './request-events.js';

/**
 * The app fees paid with a fill, valued in USD at the quote's own price of the fee currency (the input's USD value per
 * unit). The fee currency is the input currency; if it ever is not, its value is not known here and reads "0" rather
 * than a token amount passed off as dollars.
 */
export function paidAppFees(quote: RequestQuotedData): PaidAppFee[] {
  const input = quote.currencyIn;
  const sameCurrency =
    quote.appFeeCurrency.chainId === input.currency.chainId &&
    quote.appFeeCurrency.address.toLowerCase() === input.currency.address.toLowerCase();
  const inputUnits = BigInt(input.amount);
  return quote.appFees.map((fee) => ({
    ...fee,
    amountUsd:
      sameCurrency && inputUnits > 0n
        ? formatUsd(
            Decimal.parse(input.amountUsd).mul(
              Decimal.ratio(BigInt(fee.amount), inputUnits, 'floor'),
              'floor',
            ),
          )
        : '0',
  }));
}
