import { Decimal } from '../quotes/domain/pricing/decimal.js';
import type { TransactionType } from '../quotes/domain/pricing/fee-schedule.js';

/**
 * The spec's revenue-share table (Fees) as data: the share of the platform fee a key earns per transaction type, by
 * its trailing-30-day volume. Shares are exact decimal fractions of the platform fee, never floating point.
 */
export interface RevenueShareTier {
  readonly name: string;
  /** The tier applies when the trailing volume is strictly more than this many USD. */
  readonly aboveUsd: string;
  readonly shares: Readonly<Record<TransactionType, string>>;
}

/** The trailing window of volume the tier is decided by. */
export const REVENUE_SHARE_WINDOW_DAYS = 30;

/**
 * Highest first. The spec's tiers are "10M to 100M" and "100M to 1B": a volume of exactly 100M stays in the first
 * (the second starts, like the first, at "more than"); above 1B the spec lists nothing, so the second tier's shares
 * still apply rather than none. Sends are charged like bridges, so they share like bridges (nothing).
 */
export const REVENUE_SHARE_TIERS: readonly RevenueShareTier[] = [
  {
    name: '100M-1B',
    aboveUsd: '100000000',
    shares: {
      send: '0',
      'token-bridge': '0',
      'wrap-unwrap': '0',
      'stablecoin-swap': '0.67',
      'major-swap': '0.5',
      'minor-swap': '0.6667',
    },
  },
  {
    name: '10M-100M',
    aboveUsd: '10000000',
    shares: {
      send: '0',
      'token-bridge': '0',
      'wrap-unwrap': '0',
      'stablecoin-swap': '0.34',
      'major-swap': '0.25',
      'minor-swap': '0.3333',
    },
  },
];

/** The tier a trailing volume (USD, decimal string) earns, or null below the first. */
export function tierOf(volumeUsd: string): RevenueShareTier | null {
  const volume = Decimal.parse(volumeUsd, 'floor');
  return REVENUE_SHARE_TIERS.find((tier) => volume.gt(Decimal.parse(tier.aboveUsd))) ?? null;
}

/** What a request earns, in USD (exact, 18 decimals, rounded down): its platform fee times the tier's share. */
export function revenueShareUsd(platformFeeUsd: string, share: string): Decimal {
  return Decimal.parse(platformFeeUsd, 'floor').mul(Decimal.parse(share), 'floor');
}
