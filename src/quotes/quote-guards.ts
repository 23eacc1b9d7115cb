import type { Hex } from 'viem';
import type { ChainInfo } from '../chains/chain.js';
import type { GasPrice } from '../chains/chain-reader.js';
import { QuoteError } from './domain/quote-error.js';
import type { QuoteParties } from './quote-plan.js';

/**
 * 400 INSUFFICIENT_LIQUIDITY when the solver holds less of the output than the quote would pay: the deposit could only
 * be refunded. A balance the chain could not tell (null) lets the quote through; the fill job still refunds a fill it
 * cannot pay. Fills already promised are not reserved against the balance (docs/quotes.md).
 */
export function refuseBeyondLiquidity(
  solverBalance: bigint | null,
  output: bigint,
  destination: QuoteParties['destination'],
  currencyOut: QuoteParties['currencyOut'],
): void {
  if (solverBalance === null || solverBalance >= output) return;
  throw new QuoteError(
    'INSUFFICIENT_LIQUIDITY',
    `The solver cannot pay ${output} ${currencyOut.symbol} on chain ${destination.id} now; try a smaller amount`,
    { chainId: destination.id, currency: currencyOut.address, available: solverBalance.toString() },
  );
}

/**
 * 400 CHAIN_RPC_UNAVAILABLE in production when an EVM chain's gas price is the configured default because the chain
 * could not be read: a gas fee priced from a constant would under-charge the solver's fill exactly when gas is dear
 * and RPCs overloaded, and a chain Ferry cannot read it cannot settle on either. Other environments quote with the
 * default (docs/quotes.md); chains whose gas is not read from an RPC (SVM, perps) are not concerned. An RPC that
 * serves another chain (`wrong-chain`) is refused in every environment: neither the deposit nor the fill could be
 * seen there.
 */
export function refuseUnreadGasPrice(gas: GasPrice, chain: ChainInfo, environment: string): void {
  if (gas.unavailable === undefined) return;
  if (environment !== 'production' && gas.unavailable !== 'wrong-chain') return;
  throw new QuoteError(
    'CHAIN_RPC_UNAVAILABLE',
    `Chain ${chain.id} (${chain.displayName}) cannot be quoted now: its gas price could not be read (${gas.unavailable})`,
    { chainId: chain.id, reason: gas.unavailable },
  );
}

/**
 * Runs the part of a quote that comes after its order (and so its request id) exists: a refusal there carries the
 * `requestId` in its body, as the spec's error body lists. Nothing was recorded under that id.
 */
export async function withRequestId<T>(requestId: Hex, build: () => Promise<T>): Promise<T> {
  try {
    return await build();
  } catch (error) {
    if (!(error instanceof QuoteError)) throw error;
    throw new QuoteError(error.errorCode, error.message, error.errorData, { ...error.bodyFields, requestId });
  }
}
