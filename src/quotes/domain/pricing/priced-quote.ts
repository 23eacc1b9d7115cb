import type {
  Amount,
  Currency,
  FeePhase,
  Operation,
  QuotedAppFee,
  RequestType,
  SponsorshipPhase,
} from '../../../requests/domain/records.js';
import type { TransactionType } from './fee-schedule.js';
import type { TradeType } from './price-quote-input.js';
import type { SlippageTolerance } from './slippage.js';
import type { QuoteSponsorshipPhase } from './sponsorship.js';

/** `details.totalImpact` / `details.swapImpact`: USD and percent of the input value, negative for a cost. */
export interface UsdImpact {
  readonly usd: string;
  readonly percent: string;
}

export const IMPACT_COMPONENTS = ['swap', 'execution', 'relay', 'app', 'sponsored'] as const;
export type ImpactComponentName = (typeof IMPACT_COMPONENTS)[number];

/** `details.expandedPriceImpact`: each fee's effect on the user in USD (costs negative, `sponsored` positive). */
export type ExpandedPriceImpact = Readonly<Record<ImpactComponentName, { readonly usd: string }>>;

/** The quote response's deprecated `fees` object (docs/fees.md, "Deprecated fees object"). */
export interface QuoteFees {
  /** The deposit's origin gas the user pays the network directly (0 when gasless), in the origin native currency. */
  readonly gas: Amount;
  /** relayerService + relayerGas. */
  readonly relayer: Amount;
  /** Gas the solver pays: destination fill gas, the origin gas of a gasless deposit, destination rent. */
  readonly relayerGas: Amount;
  /** flat 0.02 USD + swap + platform; negative when a rebalancing reward outweighs them. */
  readonly relayerService: Amount;
  readonly app: Amount;
  /** The sponsored part of the fees. */
  readonly subsidized: Amount;
}

/** Every fee amount in the fee (input) currency's smallest unit, for order data and records. */
export interface FeeUnits {
  readonly flatExecution: bigint;
  readonly destinationGas: bigint;
  /** The gasless deposit's origin gas charged to the user (0 unless gasless). */
  readonly originGas: bigint;
  readonly rent: bigint;
  /** `fees.execution`: flat + destination gas + origin gas + rent. */
  readonly execution: bigint;
  readonly swap: bigint;
  readonly platform: bigint;
  readonly app: bigint;
  readonly sponsored: bigint;
  /** execution + swap + platform + app. */
  readonly total: bigint;
  /** total − sponsored: what the user's input pays for. */
  readonly userPays: bigint;
}

export interface QuotedSponsorship {
  /** The sponsorship currency (v3 records hoist it to `feeSponsorship.currency`). */
  readonly currency: Currency;
  /** The quote response's `feeSponsorship.quoted` (component `relay`). */
  readonly quoted: QuoteSponsorshipPhase;
  /** The v3 record's `feeSponsorship.quoted` (component `platform`). */
  readonly record: SponsorshipPhase;
}

/** Everything priced about a quote: what the quote response and the recorded request carry about money. */
export interface PricedQuote {
  readonly tradeType: TradeType;
  readonly transactionType: TransactionType;
  readonly operation: Operation;
  readonly requestType: RequestType;
  readonly sameChain: boolean;
  /** The deposit, in the input currency's smallest unit. */
  readonly amountIn: bigint;
  /** The quoted output: exact (EXACT_OUTPUT), expected (EXPECTED_OUTPUT), or what the input buys (EXACT_INPUT). */
  readonly amountOut: bigint;
  /** The worst case after slippage (the amount itself for EXACT_OUTPUT). */
  readonly minimumAmountOut: bigint;
  /** `details.currencyIn` (`minimumAmount` = the amount). */
  readonly currencyIn: Amount;
  /** `details.currencyOut` (`minimumAmount` after slippage). */
  readonly currencyOut: Amount;
  /** One whole input unit in whole output units, fees included (up to 18 decimals, rounded down). */
  readonly rate: string;
  /** The record's `slippageTolerance`: the tolerance applied, in bps. */
  readonly slippageToleranceBps: string;
  readonly slippageTolerance: SlippageTolerance;
  /** The currency every fee is charged in: the input currency. */
  readonly feeCurrency: Currency;
  /** The record's `fees.quoted` (v3 naming). */
  readonly fees: FeePhase;
  readonly feeUnits: FeeUnits;
  /** The quote response's deprecated `fees`. */
  readonly quoteFees: QuoteFees;
  readonly expandedPriceImpact: ExpandedPriceImpact;
  readonly totalImpact: UsdImpact;
  readonly swapImpact: UsdImpact;
  /** The record's `appFees.quoted`; empty when the flow collects no app fees. */
  readonly appFees: readonly QuotedAppFee[];
  readonly appFeeCurrency: Currency;
  readonly appFeesCollected: boolean;
  /** Same-chain collection needs an extra swap into a solver-accepted currency (docs/fees.md, "App fees"). */
  readonly appFeeExtraSwap: boolean;
  /** Null when the request asks for no sponsorship. */
  /** The sponsorship asked for and recorded, or null when none was. */
  readonly feeSponsorship: QuotedSponsorship | null;
  /** What the quote answers as `feeSponsorship`: the same, or an object with nothing selected. */
  readonly shownSponsorship: QuotedSponsorship;
}
