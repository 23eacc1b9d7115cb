import type { Amount, Operation } from '../requests/domain/records.js';
import type { OrderData, PaymentDetails } from './domain/order/order-data.js';
import type { ExpandedPriceImpact, QuoteFees, UsdImpact } from './domain/pricing/priced-quote.js';
import type { SlippageTolerance } from './domain/pricing/slippage.js';
import type { QuoteSponsorshipPhase } from './domain/pricing/sponsorship.js';
import type { Step } from './domain/steps/step.js';

/**
 * What `POST /quote/v2` and `POST /price` answer (spec/api.md, "Quote response"). The OpenAPI schemas of these
 * (src/bootstrap/openapi-schemas.ts) are checked against these types by test/unit/openapi/typed-client.spec.ts.
 */

/** One side of `details.route`. */
export interface QuoteRouteSide {
  readonly inputCurrency: Amount;
  readonly outputCurrency: Amount;
  readonly router: string;
  readonly includedSwapSources: readonly string[];
}

/** `details` of `/price`: the subset of the quote's details the spec lists for it. */
export interface PriceDetails {
  readonly operation: Operation;
  readonly sender: string;
  readonly recipient: string;
  readonly currencyIn: Amount;
  readonly currencyOut: Amount;
  readonly totalImpact: UsdImpact;
  readonly swapImpact: UsdImpact;
  readonly rate: string;
  readonly slippageTolerance: SlippageTolerance;
  readonly timeEstimate: number;
  /** Absent when the origin chain's balance could not be read. */
  readonly userBalance?: string;
}

export interface QuoteDetails extends PriceDetails {
  readonly expandedPriceImpact: ExpandedPriceImpact;
  /** The native value the destination calls spend out of the output (docs/quotes.md); only with calls. */
  readonly callValue?: string;
  readonly fallbackType: string;
  readonly isFixedRate: boolean;
  readonly fixedRateFee: { readonly usd: string };
  readonly route: { readonly origin: QuoteRouteSide; readonly destination: QuoteRouteSide | null };
}

export interface QuoteResponse {
  readonly steps: readonly Step[];
  /** Deprecated. */
  readonly fees: QuoteFees;
  /** Always an object; nothing selected when the quote sponsors nothing. `actual` is null until execution. */
  readonly feeSponsorship: { readonly quoted: QuoteSponsorshipPhase; readonly actual: null };
  readonly details: QuoteDetails;
  readonly protocol: {
    readonly v2: {
      readonly orderId: string;
      readonly hubType: string;
      readonly orderData: OrderData;
      readonly paymentDetails: PaymentDetails;
    };
  };
}

/** `POST /price`'s answer: the deprecated fees and a subset of the details. */
export interface PriceResponse {
  readonly fees: QuoteFees;
  readonly details: PriceDetails;
}

/** The quote's details without what `/price` leaves out. */
export function priceDetailsOf(details: QuoteDetails): PriceDetails {
  const { operation, sender, recipient, currencyIn, currencyOut, totalImpact, swapImpact } = details;
  const { rate, slippageTolerance, timeEstimate, userBalance } = details;
  return {
    operation,
    sender,
    recipient,
    currencyIn,
    currencyOut,
    totalImpact,
    swapImpact,
    rate,
    slippageTolerance,
    timeEstimate,
    ...(userBalance === undefined ? {} : { userBalance }),
  };
}
