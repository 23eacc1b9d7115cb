import type { Currency } from '../../../requests/domain/records.js';

/**
 * Where USD prices come from: the port the quote service asks once per currency a quote needs (through a
 * `PriceBook`). The answer is a decimal string of USD per one whole unit (`"3000"` for ETH, `"0.9998"` for USDC), or
 * null when the source has no price for that currency (the quote then fails with `NO_ROUTE`). A source that has a
 * price it must not use (a stale or broken feed, an unreachable feed chain) rejects with a `PriceError`
 * (`PRICE_STALE`, `PRICE_UNAVAILABLE`) naming the currency, and the quote is refused with it.
 *
 * Implementations sit in their own files: `ChainlinkPriceSource` (onchain USD feeds, production),
 * `ConfigPriceSource` (a fixed table: tests, and the development fallback), `TableFallbackPriceSource` (the two,
 * development). docs/prices.md says which runs where; docs/fees.md what an implementation must guarantee.
 */
export interface PriceSource {
  usdPrice(currency: Currency): Promise<string | null>;
}

/**
 * One currency's identity across price lookups: the chain and the address, EVM hex addresses compared without
 * case (checksums differ), every other address format (SVM base58, perps exchange ids) compared exactly.
 */
export function currencyKey(currency: Pick<Currency, 'chainId' | 'address'>): string {
  return `${currency.chainId}:${normalizeAddress(currency.address)}`;
}

/** Whether two addresses name the same account or token (see `currencyKey` for the comparison). */
export function sameAddress(a: string, b: string): boolean {
  return normalizeAddress(a) === normalizeAddress(b);
}

function normalizeAddress(address: string): string {
  return /^0x[0-9a-fA-F]*$/.test(address) ? address.toLowerCase() : address;
}
