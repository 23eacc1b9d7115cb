import { QuoteError } from '../quote-error.js';
import { formatUnits, formatUsd } from './decimal.js';
import type { PriceQuoteInput } from './price-quote-input.js';
import type { PricedQuote } from './priced-quote.js';
import { presentQuote } from './present-quote.js';
import {
  type Evaluation,
  evaluate,
  type QuoteContext,
  quoteContext,
  requiredNetFor,
  solveInput,
} from './quote-evaluation.js';
import { minimumAmount, resolveSlippageBps } from './slippage.js';
import { usdValue } from './valuation.js';

/**
 * Prices a quote: classifies it, charges the four fees, applies the sponsorship, solves the input for the output
 * trade types, applies slippage and returns every amount, fee and impact the quote response and the recorded
 * request need. Pure: same input, same result.
 *
 * Throws `QuoteError`: AMOUNT_TOO_LOW (nothing would arrive; `errorData` has the fees and the minimum input),
 * SPONSORSHIP_NOT_ALLOWED, UNSUPPORTED_OPTION (proportional fees of 100% or more), INVALID_INPUT (a malformed bps
 * string or sponsored component), NO_ROUTE (a currency without a usable price).
 *
 * @example
 * // 100 USDC from Ethereum to Base (docs/fees.md, worked example)
 * const priced = priceQuote({ tradeType: 'EXACT_INPUT', amount: 100_000_000n, currencyIn, currencyOut, ... });
 * priced.currencyOut.amount; // '99977000'
 */
export function priceQuote(input: PriceQuoteInput): PricedQuote {
  const context = quoteContext(input);
  const slippageBps = resolveSlippageBps({
    requested: input.slippageToleranceBps,
    tradeType: input.tradeType,
    transactionType: context.classification.transactionType,
    swapImpactBps: input.swapImpactBps,
  });
  const { evaluation, amountOut } =
    input.tradeType === 'EXACT_INPUT' ? priceExactInput(context) : priceForOutput(context);
  return presentQuote({
    context,
    evaluation,
    amountOut,
    slippageBps,
    minimumAmountOut: minimumAmount(amountOut, slippageBps),
  });
}

function priceExactInput(context: QuoteContext): { evaluation: Evaluation; amountOut: bigint } {
  const evaluation = evaluate(context, context.input.amount);
  if (evaluation.deliverable <= 0n) throw amountTooLow(context, evaluation);
  return { evaluation, amountOut: evaluation.deliverable };
}

/**
 * EXACT_OUTPUT and EXPECTED_OUTPUT: the input whose net, at the rate and rounded down, gives at least the amount.
 * The output quoted is the amount itself; the rounding surplus (at most a few input units' worth, from rounding
 * the fees up and the conversion down) stays with the solver.
 */
function priceForOutput(context: QuoteContext): { evaluation: Evaluation; amountOut: bigint } {
  const amountOut = context.input.amount;
  if (amountOut <= 0n) throw amountTooLow(context, null);
  const evaluation = evaluate(context, solveInput(context, requiredNetFor(context, amountOut)));
  return { evaluation, amountOut };
}

function amountTooLow(context: QuoteContext, evaluation: Evaluation | null): QuoteError {
  const { currencyIn } = context.input;
  const minimum = solveInput(context, requiredNetFor(context, 1n));
  const fees = evaluation ?? evaluate(context, minimum);
  const feesUsd = formatUsd(usdValue(fees.userFees, currencyIn));
  const minimumFormatted = formatUnits(minimum, currencyIn.decimals);
  return new QuoteError(
    'AMOUNT_TOO_LOW',
    `The fees (${feesUsd} USD) leave nothing to deliver; send at least ${minimumFormatted} ${currencyIn.symbol}`,
    {
      feesUsd,
      feesAmount: fees.userFees.toString(),
      minimumAmount: minimum.toString(),
      minimumAmountFormatted: minimumFormatted,
      minimumAmountUsd: formatUsd(usdValue(minimum, currencyIn)),
      currency: { chainId: currencyIn.chainId, address: currencyIn.address, symbol: currencyIn.symbol },
    },
  );
}
