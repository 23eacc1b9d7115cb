import { QuoteError } from '../quote-error.js';
import { Decimal, divide, formatPercent, formatUsd } from './decimal.js';
import { BPS_DENOMINATOR, defaultSlippageBps, type TransactionType } from './fee-schedule.js';
import type { PricedCurrency, TradeType } from './price-quote-input.js';
import { usdValue } from './valuation.js';

/** One side of `details.slippageTolerance`: the tolerated shortfall in USD, in the smallest unit, in percent. */
export interface SlippageSide {
  readonly usd: string;
  readonly value: string;
  readonly percent: string;
}

export interface SlippageTolerance {
  readonly origin: SlippageSide;
  readonly destination: SlippageSide;
}

export interface ResolveSlippageBpsParameters {
  readonly requested: string | undefined;
  readonly tradeType: TradeType;
  readonly transactionType: TransactionType;
  readonly swapImpactBps: number;
}

const SLIPPAGE_PATTERN = /^([0-9]{1,4}|10000)$/;

/**
 * The tolerance in bps: 0 for EXACT_OUTPUT (the output is guaranteed, so none is tolerated whatever was asked),
 * else the requested one, else the default rule (`defaultSlippageBps`).
 */
export function resolveSlippageBps({
  requested,
  tradeType,
  transactionType,
  swapImpactBps,
}: ResolveSlippageBpsParameters): bigint {
  if (requested !== undefined && !SLIPPAGE_PATTERN.test(requested)) {
    throw new QuoteError('INVALID_INPUT', 'slippageTolerance must be basis points from "0" to "10000"', {
      field: 'slippageTolerance',
      value: requested,
    });
  }
  if (tradeType === 'EXACT_OUTPUT') return 0n;
  if (requested !== undefined) return BigInt(requested);
  return defaultSlippageBps(transactionType, BigInt(swapImpactBps));
}

/** The worst-case output: `floor(expected × (10000 − bps) / 10000)` (the user receives, so it rounds down). */
export function minimumAmount(expected: bigint, bps: bigint): bigint {
  return divide(expected * (BPS_DENOMINATOR - bps), BPS_DENOMINATOR, 'floor');
}

export interface SlippageToleranceParameters {
  readonly bps: bigint;
  readonly expected: bigint;
  readonly minimum: bigint;
  readonly currencyOut: PricedCurrency;
  readonly sameChain: boolean;
}

/**
 * `details.slippageTolerance`: the tolerance sits where the swap settles, on the origin side for a same-chain quote
 * and on the destination side for a cross-chain one; the other side is zero.
 */
export function slippageTolerance({
  bps,
  expected,
  minimum,
  currencyOut,
  sameChain,
}: SlippageToleranceParameters): SlippageTolerance {
  const shortfall = expected - minimum;
  const side: SlippageSide = {
    usd: formatUsd(usdValue(shortfall, currencyOut)),
    value: shortfall.toString(),
    percent: formatPercent(Decimal.ratio(bps, 100n, 'halfExpand')),
  };
  const none: SlippageSide = { usd: '0', value: '0', percent: '0' };
  return sameChain ? { origin: side, destination: none } : { origin: none, destination: side };
}
