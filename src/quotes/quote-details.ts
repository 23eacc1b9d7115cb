import type { Amount, QuotedRoute } from '../requests/domain/records.js';
import type { RequestFeature } from '../requests/domain/request-features.js';
import { orderCallsFromTxs } from './domain/order/order-calls.js';
import type { PricedQuote } from './domain/pricing/priced-quote.js';
import type { QuoteParties } from './quote-plan.js';
import type { PriceRequestDto, QuoteRequestDto } from './quote-request.dto.js';
import type { QuoteDetails, QuoteRouteSide } from './quote-response.js';

/** The router every side of a Ferry route names. */
export const ROUTER = 'ferry';

/** The quote's `details` (spec "Details object"); `/price` answers a subset of it. */
export function quoteDetails(
  request: PriceRequestDto,
  parties: QuoteParties,
  priced: PricedQuote,
  userBalance: bigint | null,
): QuoteDetails {
  const quoted = quotedRoute(request, priced);
  const side = (value: QuotedRoute['origin'], sources: readonly string[]): QuoteRouteSide => ({
    inputCurrency: value.inputCurrency,
    outputCurrency: value.outputCurrency,
    router: value.router,
    includedSwapSources: sources,
  });
  return {
    operation: priced.operation,
    sender: parties.user,
    recipient: parties.recipient,
    currencyIn: priced.currencyIn,
    currencyOut: priced.currencyOut,
    totalImpact: priced.totalImpact,
    swapImpact: priced.swapImpact,
    expandedPriceImpact: priced.expandedPriceImpact,
    rate: priced.rate,
    slippageTolerance: priced.slippageTolerance,
    timeEstimate: parties.origin.timeEstimateSeconds,
    ...(userBalance === null ? {} : { userBalance: userBalance.toString() }),
    // The native value the destination calls spend out of the output (docs/quotes.md), when there are calls.
    ...((request.txs?.length ?? 0) > 0
      ? {
          callValue: orderCallsFromTxs(request.txs ?? [])
            .reduce((sum, call) => sum + call.value, 0n)
            .toString(),
        }
      : {}),
    fallbackType: 'none',
    isFixedRate: false,
    fixedRateFee: { usd: '0' },
    route: {
      origin: side(quoted.origin, quoted.includedOriginSwapSources),
      destination: quoted.destination && side(quoted.destination, quoted.includedDestinationSwapSources),
    },
  };
}

/** Features a request carries into its records (`GET /requests/v3?features=…`). */
export function requestFeaturesOf(
  request: QuoteRequestDto,
  priced: PricedQuote,
  depositAddress: boolean,
): RequestFeature[] {
  return [
    ...(request.usePermit ? (['gasless_execution'] as const) : []),
    ...(priced.appFees.length > 0 ? (['app_fees'] as const) : []),
    ...(depositAddress ? (['deposit_address'] as const) : []),
  ];
}

/** The quoted route: the deposit on the origin as it is, and what the solver pays out on the destination. */
export function quotedRoute(request: PriceRequestDto, priced: PricedQuote): QuotedRoute {
  const quoteOptions = request as QuoteRequestDto;
  const origin = { inputCurrency: priced.currencyIn, outputCurrency: priced.currencyIn, router: ROUTER };
  const payout: Amount = priced.currencyOut;
  return {
    origin: priced.sameChain ? { ...origin, outputCurrency: payout } : origin,
    destination: priced.sameChain ? null : { inputCurrency: payout, outputCurrency: payout, router: ROUTER },
    includedSwapSources: [],
    includedOriginSwapSources: quoteOptions.includedOriginSwapSources ?? [],
    includedDestinationSwapSources: [],
  };
}
