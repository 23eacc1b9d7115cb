import type { SponsorshipComponentName } from '../../../requests/domain/records.js';
import { QuoteError } from '../quote-error.js';
import { divide } from './decimal.js';
import { BPS_DENOMINATOR, isSwap } from './fee-schedule.js';
import { type FeeAmounts, type FeePlan, feesFor, planFees, proportionalBps } from './fees.js';
import type { PriceQuoteInput, SponsorConfig } from './price-quote-input.js';
import {
  allocateSponsorship,
  capInFeeUnits,
  selectSponsoredComponents,
  type SponsorshipAllocation,
} from './sponsorship.js';
import { type Classification, classifyTransaction } from './transaction-type.js';
import { applyRate, marketRate, parityRate, priceOf, type UnitRate } from './valuation.js';

/** What stays the same whatever the input amount turns out to be. */
export interface QuoteContext {
  readonly input: PriceQuoteInput;
  readonly classification: Classification;
  readonly plan: FeePlan;
  /** Input units → output units before fees: parity for a bridge, wrap or send; the USD price ratio for a swap. */
  readonly rate: UnitRate;
  readonly sponsorship: {
    readonly selected: readonly SponsorshipComponentName[];
    readonly sponsor: SponsorConfig;
    /** The cap in the fee currency's smallest unit. */
    readonly cap: bigint;
  } | null;
}

/** One input amount, priced. */
export interface Evaluation {
  readonly amountIn: bigint;
  readonly fees: FeeAmounts;
  readonly allocation: SponsorshipAllocation | null;
  readonly sponsored: bigint;
  /** fees.total − sponsored. */
  readonly userFees: bigint;
  /** amountIn − userFees: what is converted into the output. */
  readonly netIn: bigint;
  /** netIn at the rate, rounded down (0 when netIn is not positive). */
  readonly deliverable: bigint;
}

/** Classifies the quote and plans its fees and sponsorship; checks what can be checked before any amount. */
export function quoteContext(input: PriceQuoteInput): QuoteContext {
  if (input.amount < 0n) {
    throw new QuoteError('INVALID_INPUT', 'amount must not be negative', { field: 'amount' });
  }
  [input.currencyIn, input.currencyOut, input.originGas.native, input.destinationGas.native].forEach(priceOf);
  const classification = classifyTransaction({
    currencyIn: input.currencyIn,
    currencyOut: input.currencyOut,
    originNative: input.originGas.native,
    destinationNative: input.destinationGas.native,
    hasTxs: input.hasTxs === true,
  });
  const plan = planFees({ input, ...classification });
  const selected = selectSponsoredComponents({
    request: input.sponsorship,
    sponsor: input.sponsor,
    useDepositAddress: input.useDepositAddress === true,
  });
  const sponsor = input.sponsor;
  return {
    input,
    classification,
    plan,
    rate: isSwap(classification.transactionType)
      ? marketRate(input.currencyIn, input.currencyOut)
      : parityRate(input.currencyIn, input.currencyOut),
    sponsorship:
      selected && sponsor ? { selected, sponsor, cap: capInFeeUnits(sponsor, input.currencyIn) } : null,
  };
}

/** Prices one input amount (fees, sponsorship, what reaches the output). */
export function evaluate(context: QuoteContext, amountIn: bigint): Evaluation {
  const fees = feesFor(context.plan, amountIn);
  const allocation = context.sponsorship
    ? allocateSponsorship(fees, context.sponsorship.selected, context.sponsorship.cap)
    : null;
  const sponsored = allocation?.sponsored ?? 0n;
  const userFees = fees.total - sponsored;
  const netIn = amountIn - userFees;
  const deliverable = netIn > 0n ? applyRate(netIn, context.rate, 'floor') : 0n;
  return { amountIn, fees, allocation, sponsored, userFees, netIn, deliverable };
}

/** The smallest input (up to a few units: fees round up per component) whose net covers `requiredNet`. */
export function solveInput(context: QuoteContext, requiredNet: bigint): bigint {
  const covers = (amountIn: bigint) => evaluate(context, amountIn).netIn >= requiredNet;
  let high = upperBound(context.plan, requiredNet);
  if (!covers(high)) {
    throw new Error(`Pricing bug: the input bound ${high} does not cover a net input of ${requiredNet}`);
  }
  // covers(0) is false: at 0 only the fixed fees are charged and sponsorship never exceeds them.
  let low = 0n;
  while (high - low > 1n) {
    const middle = (low + high) / 2n;
    if (covers(middle)) high = middle;
    else low = middle;
  }
  return high;
}

/** The input that certainly covers `requiredNet`: fixed fees, the bps fees and one unit of rounding per bps fee. */
function upperBound(plan: FeePlan, requiredNet: bigint): bigint {
  const fixed = plan.flatExecution + plan.destinationGas + plan.originGas + plan.rent;
  const roundingSlack = BigInt(2 + plan.appFees.length);
  return divide(
    (requiredNet + fixed + roundingSlack) * BPS_DENOMINATOR,
    BPS_DENOMINATOR - proportionalBps(plan),
    'ceil',
  );
}

/** The least net input that converts to at least `amountOut` (rounded up). */
export function requiredNetFor(context: QuoteContext, amountOut: bigint): bigint {
  return divide(amountOut * context.rate.denominator, context.rate.numerator, 'ceil');
}
