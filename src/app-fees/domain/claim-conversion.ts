import { Decimal } from '../../quotes/domain/pricing/decimal.js';
import type { AppFeeClaimOpenedData } from './app-fee-account-events.js';

/**
 * Pure: the opened claim's terms, converted at today's USD prices (`usdcUsd`, `targetUsd`) instead of those fixed
 * at opening when today's pay less. Prices fixed at opening alone would be a free option: anyone may open claims at
 * any time and sign, within the TTL, the one whose frozen price pays the most after the market moved, taking more
 * than the balance is worth (`test/integration/app-fees/app-fee-claim-conversion-price.int-spec.ts`).
 */
export function atLowerPayout(
  opened: AppFeeClaimOpenedData,
  usdcUsd: string,
  targetUsd: string,
): AppFeeClaimOpenedData {
  const frozen = opened.conversion;
  if (!frozen) return opened;
  // Target units per USDC unit go as usdc ÷ target: lower today ⇔ today.usdc × frozen.target < frozen.usdc × today.target.
  const lower = Decimal.parse(usdcUsd)
    .mul(Decimal.parse(frozen.target.usdPrice), 'floor')
    .lt(Decimal.parse(frozen.usdc.usdPrice).mul(Decimal.parse(targetUsd), 'floor'));
  if (!lower) return opened;
  return {
    ...opened,
    conversion: {
      usdc: { ...frozen.usdc, usdPrice: usdcUsd },
      target: { ...frozen.target, usdPrice: targetUsd },
    },
  };
}
