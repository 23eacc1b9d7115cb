import type { FeeComponent, FeeComponentName, FeePhase } from '../../src/requests/domain/records.js';
import type { RequestV3 } from '../requests/request-record-state.js';
import { formatUnits } from '../requests/record-amounts.js';

/** v2's raw fee breakdown (`data.fees` in the fee currency's smallest unit, `data.feesUsd` in USD). */
export interface V2FeeBreakdown {
  readonly gas: string;
  readonly fixed: string;
  readonly price: string;
  readonly gateway: string;
}

/** v2's `expandedPriceImpact`: the v3 `data.fees` components in USD, with `platform` named `relay`. */
export type V2ExpandedPriceImpact = Readonly<
  Record<'swap' | 'execution' | 'relay' | 'app' | 'sponsored', { readonly usd: string }>
>;

/** The flat part of every execution fee (spec, Fees: "a flat 0.02 USD always included"). */
export const FIXED_EXECUTION_FEE_USD = '0.02';

/**
 * Pure: v2's `data.fees` and `data.feesUsd` from the v3 fee phases. Each component is the collected (`actual`)
 * value once the fill succeeded, else the quoted one; an `actual` component carrying only `usd` keeps the quoted
 * amount for the raw side.
 *
 * - `gas` + `fixed` = the execution fee. `fixed` is its flat 0.02 USD part (at most the whole fee), converted to
 *   units at the component's own rate (amount / usd), rounded down; `gas` is the rest (the fill gas, plus the origin
 *   gas on gasless requests).
 * - `price` = the swap fee (DEX fees, swap impact, solver rebalancing: the price of the route).
 * - `gateway` = the platform fee (the spec calls it the Relay-type gateway fee; v2 named the component `relay`).
 *
 * App fees (`data.appFees`/`paidAppFees`) and the sponsored part (`data.subsidizedFee`) have their own fields.
 */
export function v2Fees(fees: RequestV3['data']['fees']): {
  fees: V2FeeBreakdown;
  feesUsd: V2FeeBreakdown;
} {
  const usd = (name: FeeComponentName) => usdOf(fees, name);
  const raw = (name: FeeComponentName) => rawOf(fees, name);

  const fixed = toScaled(FIXED_EXECUTION_FEE_USD);
  const executionUsd = toScaled(usd('execution'));
  const fixedUsd = clamp(fixed, executionUsd);
  // The unit split uses the amount's own component, so amount and USD come from the same phase.
  const execution = raw('execution');
  const executionUnits = BigInt(execution.amount ?? '0');
  const unitsUsd = toScaled(execution.usd);
  const fixedUnits =
    unitsUsd > 0n && executionUnits > 0n ? (executionUnits * clamp(fixed, unitsUsd)) / unitsUsd : 0n;

  return {
    fees: {
      gas: (executionUnits - fixedUnits).toString(),
      fixed: fixedUnits.toString(),
      price: raw('swap').amount ?? '0',
      gateway: raw('platform').amount ?? '0',
    },
    feesUsd: {
      gas: fromScaled(executionUsd - fixedUsd),
      fixed: fromScaled(fixedUsd),
      price: usd('swap'),
      gateway: usd('platform'),
    },
  };
}

/**
 * Pure: v2's `expandedPriceImpact` (collected values once filled, else quoted; `platform` → `relay`), in the
 * quote's sign convention: each fee's effect on the user, so costs are negative and what a sponsor covers positive
 * (docs/fees.md).
 */
export function v2ExpandedPriceImpact(fees: RequestV3['data']['fees']): V2ExpandedPriceImpact {
  return {
    swap: { usd: negated(usdOf(fees, 'swap')) },
    execution: { usd: negated(usdOf(fees, 'execution')) },
    relay: { usd: negated(usdOf(fees, 'platform')) },
    app: { usd: negated(usdOf(fees, 'app')) },
    sponsored: { usd: usdOf(fees, 'sponsored') },
  };
}

/** A decimal string with its sign flipped (zero stays `0`). */
function negated(usd: string): string {
  if (/^-?0*(\.0*)?$/.test(usd)) return usd.replace(/^-/, '');
  return usd.startsWith('-') ? usd.slice(1) : `-${usd}`;
}

/** The sponsored fee in the fee currency's smallest unit (collected once filled, else quoted). */
export function sponsoredFeeUnits(fees: RequestV3['data']['fees']): string {
  return rawOf(fees, 'sponsored').amount ?? '0';
}

/** Whether a decimal string (e.g. a USD value) is greater than zero; exact, no floating point. */
export function isPositiveDecimal(decimal: string): boolean {
  return toScaled(decimal) > 0n;
}

function usdOf(fees: RequestV3['data']['fees'], name: FeeComponentName): string {
  return (fees.actual ?? fees.quoted)[name].usd;
}

/** The component whose amount the raw side shows: the actual one when it carries an amount. */
function rawOf(fees: RequestV3['data']['fees'], name: FeeComponentName): FeeComponent {
  const actual = fees.actual?.[name];
  return actual?.amount !== undefined ? actual : (fees.quoted as FeePhase)[name];
}

/** USD decimals are handled exactly as integers scaled by 10^18. */
const SCALE = 18;

function toScaled(decimal: string): bigint {
  const match = /^(-?)(\d*)(?:\.(\d*))?$/.exec(decimal.trim());
  if (!match || (match[2] === '' && !match[3])) return 0n;
  const [, sign, whole, fraction = ''] = match;
  const value = BigInt((whole || '0') + fraction.padEnd(SCALE, '0').slice(0, SCALE));
  return sign ? -value : value;
}

function fromScaled(value: bigint): string {
  return formatUnits(value, SCALE);
}

/** `part` limited to `[0, whole]` (0 when the whole is not positive). */
function clamp(part: bigint, whole: bigint): bigint {
  if (whole <= 0n) return 0n;
  return part > whole ? whole : part;
}
