import type { Hex } from 'viem';
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
