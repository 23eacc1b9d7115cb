import type { ChainCurrency } from '../../../chains/chain.js';
import type { Priced } from './valuation.js';

/** The spec's `tradeType`. */
export const TRADE_TYPES = ['EXACT_INPUT', 'EXACT_OUTPUT', 'EXPECTED_OUTPUT'] as const;
export type TradeType = (typeof TRADE_TYPES)[number];

/** A chain currency with its USD price per whole unit (from a `PriceBook`). */
export type PricedCurrency = Priced<ChainCurrency>;

/** A gas estimate on one chain: `units × priceWei` smallest native units, valued at the native currency's price. */
export interface GasEstimate {
  readonly units: bigint;
  /** Price of one gas unit in the native currency's smallest unit (wei on EVM chains). */
  readonly priceWei: bigint;
  /** The chain's native currency, priced. */
  readonly native: PricedCurrency;
}

/** One `appFees` entry of the request: `fee` in basis points of the input (string integer, 100 = 1%). */
export interface AppFeeRequest {
  readonly recipient: string;
  readonly fee: string;
}

/** What the request asks to sponsor (`subsidizeFees`, `sponsoredFeeComponents` of POST /quote/v2). */
export interface SponsorshipRequest {
  readonly subsidizeFees?: boolean;
  /** Quote names (`execution`, `swap`, `relay`, `app`, `rent`); the v3 name `platform` is accepted for `relay`. */
  readonly sponsoredFeeComponents?: readonly string[];
}

/** The API key's sponsorship settings; a key without sponsorship has none (`sponsor: null`). */
export interface SponsorConfig {
  /** The most the sponsor pays for one quote, in the sponsorship currency's smallest unit. */
  readonly maxSubsidizationAmount: bigint;
  /** The currency sponsorship amounts are counted in; defaults to the fee currency (the input currency). */
  readonly currency?: PricedCurrency;
}

/** Which of the two currencies the solver holds, for the same-chain app fee rule (docs/fees.md, "App fees"). */
export interface SolverInventory {
  readonly currencyIn: boolean;
  readonly currencyOut: boolean;
}

/**
 * Everything `priceQuote` needs, already looked up: the request's own fields, the two priced currencies, the gas
 * estimates of both chains and the configured swap costs. No I/O happens past this point.
 */
export interface PriceQuoteInput {
  readonly tradeType: TradeType;
  /** In the smallest unit: the input for EXACT_INPUT, the (exact or expected) output otherwise. */
  readonly amount: bigint;
  readonly currencyIn: PricedCurrency;
  readonly currencyOut: PricedCurrency;
  /** The request carries `txs` (a call): only the request type changes (`Call`). */
  readonly hasTxs?: boolean;
  /** The deposit is gasless (`usePermit`): the solver pays the origin gas and charges it as execution. */
  readonly gasless?: boolean;
  /** The deposit transaction on the origin chain. */
  readonly originGas: GasEstimate;
  /** The fill transaction on the destination chain. */
  readonly destinationGas: GasEstimate;
  /** Account rent the fill pays on the destination (SVM), in the destination native smallest unit; default 0. */
  readonly destinationRent?: bigint;
  /** DEX fee of the route, in bps of the input (swaps only). */
  readonly swapFeeBps: number;
  /** Expected DEX price impact, in bps of the input (swaps only); per pair or the configured default. */
  readonly swapImpactBps: number;
  /**
   * Solver rebalancing cost of a cross-chain move, in bps of the input; negative when the move rebalances the
   * solver's liquidity (a network reward). Default 0.
   */
  readonly rebalancingBps?: number;
  readonly appFees?: readonly AppFeeRequest[];
  /**
   * Whether this flow can collect app fees at all (default true). Sends never do; the caller sets false for other
   * unsupported flows (gasless execution without a prior quote).
   */
  readonly appFeesSupported?: boolean;
  /** Default: the solver holds neither currency (an extra swap is planned whenever the threshold is passed). */
  readonly solverInventory?: SolverInventory;
  /** The request's `slippageTolerance` (bps, "0" to "10000"); absent: the default rule. */
  readonly slippageToleranceBps?: string;
  readonly sponsorship?: SponsorshipRequest;
  /** The API key's sponsorship settings, or null/absent when the key has none. */
  readonly sponsor?: SponsorConfig | null;
  /** The quote uses a deposit address (sponsorship is then refused). */
  readonly useDepositAddress?: boolean;
}
