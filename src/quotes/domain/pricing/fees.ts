import type { Operation } from '../../../requests/domain/records.js';
import { QuoteError } from '../quote-error.js';
import { Decimal, divide } from './decimal.js';
import {
  BPS_DENOMINATOR,
  FLAT_EXECUTION_FEE_USD,
  isSwap,
  PLATFORM_FEE_BPS,
  type TransactionType,
} from './fee-schedule.js';
import type { AppFeeRequest, GasEstimate, PriceQuoteInput, PricedCurrency } from './price-quote-input.js';
import { convertUnits, unitsForUsd } from './valuation.js';

/** One app fee to collect, in bps of the input. */
export interface AppFeeRate {
  readonly recipient: string;
  readonly bps: bigint;
}

/**
 * The fees of a quote before the amount is known: the fixed parts already in the input currency's smallest unit
 * (rounded up), the proportional parts in bps of the input amount.
 */
export interface FeePlan {
  /** The flat 0.02 USD of the execution fee. */
  readonly flatExecution: bigint;
  /** The fill's gas on the destination chain. */
  readonly destinationGas: bigint;
  /** The deposit's gas on the origin chain, charged only when the deposit is gasless; else 0. */
  readonly originGas: bigint;
  /** Account rent the fill pays on the destination. */
  readonly rent: bigint;
  /** DEX fee + swap impact (swaps) + solver rebalancing (cross-chain); may be negative. */
  readonly swapBps: bigint;
  readonly platformBps: bigint;
  /** Empty when the flow collects no app fees. */
  readonly appFees: readonly AppFeeRate[];
  /** Whether app fees are collected at all (false for sends and flows the caller marks unsupported). */
  readonly appFeesCollected: boolean;
}

export interface AppFeeAmount extends AppFeeRate {
  readonly amount: bigint;
}

/** The fees of one input amount, each in the input currency's smallest unit. */
export interface FeeAmounts {
  readonly flatExecution: bigint;
  readonly destinationGas: bigint;
  readonly originGas: bigint;
  readonly rent: bigint;
  /** flat + destination gas + origin gas (rent stays apart: it is its own sponsorship component). */
  readonly execution: bigint;
  readonly swap: bigint;
  readonly platform: bigint;
  readonly appFees: readonly AppFeeAmount[];
  readonly app: bigint;
  /** Every fee: execution + rent + swap + platform + app. */
  readonly total: bigint;
}

export interface PlanFeesParameters {
  readonly input: PriceQuoteInput;
  readonly transactionType: TransactionType;
  readonly operation: Operation;
  readonly sameChain: boolean;
}

/** The fee plan of a quote (docs/fees.md, "The four fees"). */
export function planFees({ input, transactionType, operation, sameChain }: PlanFeesParameters): FeePlan {
  const appFeesCollected = input.appFeesSupported !== false && operation !== 'send';
  const plan: FeePlan = {
    flatExecution: unitsForUsd(Decimal.parse(FLAT_EXECUTION_FEE_USD), input.currencyIn, 'ceil'),
    destinationGas: gasInInputUnits(input.destinationGas, input.currencyIn),
    originGas: input.gasless ? gasInInputUnits(input.originGas, input.currencyIn) : 0n,
    rent: convertUnits(
      nonNegative(input.destinationRent ?? 0n, 'destinationRent'),
      input.destinationGas.native,
      input.currencyIn,
      'ceil',
    ),
    swapBps: swapBpsOf(input, transactionType, sameChain),
    platformBps: PLATFORM_FEE_BPS[transactionType],
    appFees: appFeesCollected ? (input.appFees ?? []).map(appFeeRate) : [],
    appFeesCollected,
  };
  assertFeesLeaveSomething(plan);
  return plan;
}

/** The fees of one input amount: the proportional parts rounded up (fees charged round up). */
export function feesFor(plan: FeePlan, amountIn: bigint): FeeAmounts {
  const execution = plan.flatExecution + plan.destinationGas + plan.originGas;
  const swap = bpsOf(amountIn, plan.swapBps);
  const platform = bpsOf(amountIn, plan.platformBps);
  const appFees = plan.appFees.map((fee) => ({ ...fee, amount: bpsOf(amountIn, fee.bps) }));
  const app = appFees.reduce((sum, fee) => sum + fee.amount, 0n);
  return {
    flatExecution: plan.flatExecution,
    destinationGas: plan.destinationGas,
    originGas: plan.originGas,
    rent: plan.rent,
    execution,
    swap,
    platform,
    appFees,
    app,
    total: execution + plan.rent + swap + platform + app,
  };
}

/** `bps` basis points of an amount, rounded up (towards +∞, so a negative fee, a reward, rounds towards 0). */
export function bpsOf(amount: bigint, bps: bigint): bigint {
  return divide(amount * bps, BPS_DENOMINATOR, 'ceil');
}

/** Every proportional fee together, in bps. */
export function proportionalBps(plan: FeePlan): bigint {
  return plan.swapBps + plan.platformBps + plan.appFees.reduce((sum, fee) => sum + fee.bps, 0n);
}

/** Gas in the native smallest unit (`units × price`). */
export function gasInNativeUnits(gas: GasEstimate): bigint {
  return nonNegative(gas.units, 'gas units') * nonNegative(gas.priceWei, 'gas price');
}

function gasInInputUnits(gas: GasEstimate, currencyIn: PricedCurrency): bigint {
  return convertUnits(gasInNativeUnits(gas), gas.native, currencyIn, 'ceil');
}

function swapBpsOf(input: PriceQuoteInput, type: TransactionType, sameChain: boolean): bigint {
  const dex = isSwap(type) ? configuredBps(input.swapFeeBps, 'swapFeeBps', false) : 0n;
  const impact = isSwap(type) ? configuredBps(input.swapImpactBps, 'swapImpactBps', false) : 0n;
  const rebalancing = sameChain ? 0n : configuredBps(input.rebalancingBps ?? 0, 'rebalancingBps', true);
  return dex + impact + rebalancing;
}

function configuredBps(value: number, name: string, signed: boolean): bigint {
  if (!Number.isSafeInteger(value) || (!signed && value < 0)) {
    throw new RangeError(
      `${name} must be ${signed ? 'an' : 'a non-negative'} integer number of bps, got ${value}`,
    );
  }
  return BigInt(value);
}

function appFeeRate(fee: AppFeeRequest, index: number): AppFeeRate {
  if (!/^[0-9]+$/.test(fee.fee)) {
    throw new QuoteError('INVALID_INPUT', `appFees[${index}].fee must be an integer number of basis points`, {
      field: `appFees[${index}].fee`,
      value: fee.fee,
    });
  }
  return { recipient: fee.recipient, bps: BigInt(fee.fee) };
}

/** Proportional fees of 100% or more leave nothing to deliver at any amount. */
function assertFeesLeaveSomething(plan: FeePlan): void {
  const total = proportionalBps(plan);
  if (total < BPS_DENOMINATOR) return;
  throw new QuoteError(
    'UNSUPPORTED_OPTION',
    `The fees in basis points add up to ${total} (100% or more of the input); lower appFees`,
    {
      totalBps: total.toString(),
      swapBps: plan.swapBps.toString(),
      platformBps: plan.platformBps.toString(),
      appFeesBps: plan.appFees.map((fee) => fee.bps.toString()),
    },
  );
}

function nonNegative(value: bigint, name: string): bigint {
  if (value < 0n) throw new RangeError(`${name} must not be negative, got ${value}`);
  return value;
}
