import type { Currency } from '../../../../requests/domain/records.js';
import type { PriceSource } from '../price-source.js';
import { PriceError } from './price-error.js';

export interface FallbackEvents {
  /** The feeds stopped answering: the table prices quotes from now on (called once per outage). */
  onFallback(error: PriceError): void;
  /** The feeds answer again. */
  onRecovered(): void;
}

/**
 * Development only (production configuration refuses it): the feeds, and the fixed table while the feed chain
 * does not answer, so quoting works without `npm run devnet`. Only `unreachable` falls back: a feed that answered
 * with a stale, non-positive or jumping price is refused as in production, since the table would hide the bug.
 */
export class TableFallbackPriceSource implements PriceSource {
  private fallingBack = false;

  constructor(
    private readonly feeds: PriceSource,
    private readonly table: PriceSource,
    private readonly events: FallbackEvents,
  ) {}

  async usdPrice(currency: Currency): Promise<string | null> {
    try {
      const price = await this.feeds.usdPrice(currency);
      if (this.fallingBack) {
        this.fallingBack = false;
        this.events.onRecovered();
      }
      return price;
    } catch (error) {
      if (!(error instanceof PriceError) || error.reason !== 'unreachable') throw error;
      if (!this.fallingBack) {
        this.fallingBack = true;
        this.events.onFallback(error);
      }
      return this.table.usdPrice(currency);
    }
  }
}
