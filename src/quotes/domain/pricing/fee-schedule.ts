/**
 * The fee schedule of the spec (Fees, App fees, Limits) as data: the transaction types, the symbol lists they are
 * decided by, the platform fee of each, and the fixed USD amounts. docs/fees.md explains every entry.
 */

/** Basis points in one whole: 10000 bps = 100%. */
export const BPS_DENOMINATOR = 10_000n;

/** The flat part of every execution fee, in USD. */
export const FLAT_EXECUTION_FEE_USD = '0.02';

/** Same-chain app fee collection swaps into a solver-accepted currency only above this many USD. */
export const APP_FEE_EXTRA_SWAP_THRESHOLD_USD = '0.025';

/** The least automatic slippage tolerance of a swap, in bps (see `defaultSlippageBps`). */
export const MIN_SWAP_SLIPPAGE_BPS = 50n;

/** Stablecoins, by symbol (compared without case): a swap between two of them is a stablecoin swap. */
export const STABLECOINS = [
  'USDC',
  'USDC.e',
  'USDT',
  'USDT0',
  'DAI',
  'USDe',
  'USDS',
  'USD1',
  'PYUSD',
  'USDG',
  'mUSD',
  'USDm',
  'USDH',
  'pUSD',
  'PlumeUSD',
] as const;

/** Major assets, by symbol (compared without case): a swap between two of them is a major swap. */
export const MAJOR_ASSETS = ['ETH', 'WETH', 'BTC', 'WBTC', 'SOL', 'WSOL', 'POL', 'BNB', 'PLUME'] as const;

/**
 * The "major stablecoins" a major asset may be swapped with at the major rate. The spec does not list them; these
 * are the two largest dollar stablecoins, DAI, and the bridged/omnichain forms of the first two.
 */
export const MAJOR_STABLECOINS = ['USDC', 'USDC.e', 'USDT', 'USDT0', 'DAI'] as const;

/**
 * Wrapped tokens that are the same asset as a major native currency wherever they live (so WETH on a chain whose
 * native currency is not ETH still bridges to ETH at the bridge rate). WBTC is not here: it is a custodial token,
 * not a 1:1 wrapping contract.
 */
export const WRAPPED_ASSETS: Readonly<Record<string, string>> = {
  WETH: 'ETH',
  WSOL: 'SOL',
  WBNB: 'BNB',
  WPOL: 'POL',
  WPLUME: 'PLUME',
};

/**
 * The fee classes of the spec's platform fee table, plus `send` (a plain transfer of one currency on one chain,
 * which the table does not list and which is charged like a bridge).
 */
export const TRANSACTION_TYPES = [
  'send',
  'token-bridge',
  'wrap-unwrap',
  'stablecoin-swap',
  'major-swap',
  'minor-swap',
] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

/** The platform fee of each transaction type, in bps of the input amount. */
export const PLATFORM_FEE_BPS: Readonly<Record<TransactionType, bigint>> = {
  send: 0n,
  'token-bridge': 0n,
  'wrap-unwrap': 0n,
  'stablecoin-swap': 1n,
  'major-swap': 6n,
  'minor-swap': 15n,
};

/** Whether a transaction type swaps one asset into another (DEX fees, swap impact and slippage apply). */
export function isSwap(type: TransactionType): boolean {
  return type === 'stablecoin-swap' || type === 'major-swap' || type === 'minor-swap';
}

/**
 * The slippage tolerance when the request gives none: 0 where nothing is swapped (the amount moves 1:1), and for
 * swaps twice the configured swap impact, at least 50 bps, at most 10000.
 */
export function defaultSlippageBps(type: TransactionType, swapImpactBps: bigint): bigint {
  if (!isSwap(type)) return 0n;
  const twice = 2n * swapImpactBps;
  const atLeast = twice > MIN_SWAP_SLIPPAGE_BPS ? twice : MIN_SWAP_SLIPPAGE_BPS;
  return atLeast > BPS_DENOMINATOR ? BPS_DENOMINATOR : atLeast;
}

/** Whether a symbol is on one of the lists above (compared without case: `wSOL` is `WSOL`). */
export function isListed(list: readonly string[], symbol: string): boolean {
  const upper = symbol.toUpperCase();
  return list.some((entry) => entry.toUpperCase() === upper);
}
