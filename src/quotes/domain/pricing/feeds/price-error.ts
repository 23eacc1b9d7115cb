import type { Currency } from '../../../../requests/domain/records.js';
import { QuoteError } from '../../quote-error.js';

/**
 * Why a price was refused. `unreachable` is the only reason a development fallback may answer instead (the feed
 * chain did not answer); every other reason means the feed answered and its answer must not be used.
 */
export type PriceRefusal =
  | 'no-feed'
  | 'unreachable'
  | 'feed-error'
  | 'wrong-feed'
  | 'non-positive-answer'
  | 'incomplete-round'
  | 'future-round'
  | 'deviation'
  | 'stale';

/**
 * A quote refused for its price: `PRICE_STALE` when the feed's last update is too old, `PRICE_UNAVAILABLE` for
 * every other refusal. `errorData` names the currency, the reason and the feed, so an operator can act on it.
 */
export class PriceError extends QuoteError {
  constructor(
    readonly reason: PriceRefusal,
    currency: Pick<Currency, 'chainId' | 'address' | 'symbol'>,
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super(reason === 'stale' ? 'PRICE_STALE' : 'PRICE_UNAVAILABLE', message, {
      chainId: currency.chainId,
      address: currency.address,
      symbol: currency.symbol,
      reason,
      ...details,
    });
    this.name = 'PriceError';
  }
}
