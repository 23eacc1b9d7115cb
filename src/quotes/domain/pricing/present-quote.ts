import type { FeeComponent, FeePhase, QuotedAppFee } from '../../../requests/domain/records.js';
import { Decimal, formatPercent, formatUnits, formatUsd } from './decimal.js';
import { APP_FEE_EXTRA_SWAP_THRESHOLD_USD } from './fee-schedule.js';
import { gasInNativeUnits } from './fees.js';
import type { PricedCurrency } from './price-quote-input.js';
import type { Evaluation, QuoteContext } from './quote-evaluation.js';
import type {
  ExpandedPriceImpact,
  FeeUnits,
  PricedQuote,
  QuoteFees,
  QuotedSponsorship,
  UsdImpact,
} from './priced-quote.js';
import { slippageTolerance } from './slippage.js';
import { allocateSponsorship, sponsorshipPhases } from './sponsorship.js';
import { rateOf, toAmount, toCurrency, usdValue } from './valuation.js';

export interface PresentQuoteParameters {
  readonly context: QuoteContext;
  readonly evaluation: Evaluation;
  readonly amountOut: bigint;
  readonly slippageBps: bigint;
  readonly minimumAmountOut: bigint;
}

/** The priced quote in the shapes of the spec, from the amounts `priceQuote` settled on. */
export function presentQuote(parameters: PresentQuoteParameters): PricedQuote {
  const { context, evaluation, amountOut, slippageBps, minimumAmountOut } = parameters;
  const { input, classification } = context;
  const { currencyIn, currencyOut } = input;
  const units = feeUnitsOf(evaluation);
  const inputUsd = usdValue(evaluation.amountIn, currencyIn);
  return {
    tradeType: input.tradeType,
    ...classification,
    amountIn: evaluation.amountIn,
    amountOut,
    minimumAmountOut,
    currencyIn: toAmount(evaluation.amountIn, currencyIn, evaluation.amountIn),
    currencyOut: toAmount(amountOut, currencyOut, minimumAmountOut),
    rate: rateOf(evaluation.amountIn, amountOut, currencyIn, currencyOut),
    slippageToleranceBps: slippageBps.toString(),
    slippageTolerance: slippageTolerance({
      bps: slippageBps,
      expected: amountOut,
      minimum: minimumAmountOut,
      currencyOut,
      sameChain: classification.sameChain,
    }),
    feeCurrency: toCurrency(currencyIn),
    fees: feePhaseOf(units, currencyIn),
    feeUnits: units,
    quoteFees: quoteFeesOf(context, units),
    expandedPriceImpact: expandedPriceImpactOf(units, currencyIn),
    totalImpact: impact(usdValue(amountOut, currencyOut).sub(inputUsd), inputUsd),
    swapImpact: impact(usdValue(units.swap, currencyIn).neg(), inputUsd),
    appFees: evaluation.fees.appFees.map((fee): QuotedAppFee => ({
      recipient: fee.recipient,
      bps: fee.bps.toString(),
      amount: fee.amount.toString(),
      amountFormatted: formatUnits(fee.amount, currencyIn.decimals),
    })),
    appFeeCurrency: toCurrency(currencyIn),
    appFeesCollected: context.plan.appFeesCollected,
    appFeeExtraSwap: needsAppFeeExtraSwap(context, units.app),
    feeSponsorship: sponsorshipOf(context, evaluation),
    shownSponsorship: shownSponsorship(context, evaluation),
  };
}

function feeUnitsOf({ fees, sponsored, userFees }: Evaluation): FeeUnits {
  return {
    flatExecution: fees.flatExecution,
    destinationGas: fees.destinationGas,
    originGas: fees.originGas,
    rent: fees.rent,
    execution: fees.execution + fees.rent,
    swap: fees.swap,
    platform: fees.platform,
    app: fees.app,
    sponsored,
    total: fees.total,
    userPays: userFees,
  };
}

function feePhaseOf(units: FeeUnits, currency: PricedCurrency): FeePhase {
  const component = (amount: bigint): FeeComponent => ({
    usd: formatUsd(usdValue(amount, currency)),
    amount: amount.toString(),
    amountFormatted: formatUnits(amount, currency.decimals),
  });
  return {
    swap: component(units.swap),
    execution: component(units.execution),
    platform: component(units.platform),
    app: component(units.app),
    sponsored: component(units.sponsored),
  };
}

/** The deprecated `fees` object (docs/fees.md has the mapping). */
function quoteFeesOf(context: QuoteContext, units: FeeUnits): QuoteFees {
  const { currencyIn, originGas, gasless } = context.input;
  const relayerGas = units.destinationGas + units.originGas + units.rent;
  const relayerService = units.flatExecution + units.swap + units.platform;
  return {
    gas: toAmount(gasless ? 0n : gasInNativeUnits(originGas), originGas.native),
    relayer: toAmount(relayerGas + relayerService, currencyIn),
    relayerGas: toAmount(relayerGas, currencyIn),
    relayerService: toAmount(relayerService, currencyIn),
    app: toAmount(units.app, currencyIn),
    subsidized: toAmount(units.sponsored, currencyIn),
  };
}

/** Each fee's effect on the user in USD: costs negative, the sponsored part positive. */
function expandedPriceImpactOf(units: FeeUnits, currency: PricedCurrency): ExpandedPriceImpact {
  const cost = (amount: bigint) => ({ usd: formatUsd(usdValue(amount, currency).neg()) });
  return {
    swap: cost(units.swap),
    execution: cost(units.execution),
    relay: cost(units.platform),
    app: cost(units.app),
    sponsored: { usd: formatUsd(usdValue(units.sponsored, currency)) },
  };
}

function impact(usd: Decimal, inputUsd: Decimal): UsdImpact {
  const percent = inputUsd.isZero()
    ? Decimal.ZERO
    : Decimal.ratio(usd.scaled * 100n, inputUsd.scaled, 'halfExpand');
  return { usd: formatUsd(usd), percent: formatPercent(percent) };
}

/**
 * Same-chain app fees when the solver holds neither currency are swapped into one it accepts, and only when the fee
 * is worth more than 0.025 USD.
 */
function needsAppFeeExtraSwap(context: QuoteContext, appUnits: bigint): boolean {
  const { solverInventory, currencyIn } = context.input;
  const solverHoldsOne = solverInventory ? solverInventory.currencyIn || solverInventory.currencyOut : false;
  return (
    context.classification.sameChain &&
    context.plan.appFeesCollected &&
    !solverHoldsOne &&
    usdValue(appUnits, currencyIn).gt(Decimal.parse(APP_FEE_EXTRA_SWAP_THRESHOLD_USD))
  );
}

/**
 * `feeSponsorship` as the quote answers it: always an object. Without sponsorship, nothing is selected: every
 * component is the user's, the totals say so, `capHit` is false and the cap is 0.
 */
export function shownSponsorship(context: QuoteContext, evaluation: Evaluation): QuotedSponsorship {
  const requested = sponsorshipOf(context, evaluation);
  if (requested) return requested;
  const phases = sponsorshipPhases({
    allocation: allocateSponsorship(evaluation.fees, [], 0n),
    selected: [],
    sponsor: { maxSubsidizationAmount: 0n },
    feeCurrency: context.input.currencyIn,
  });
  return { currency: toCurrency(phases.currency), quoted: phases.quoted, record: phases.record };
}

function sponsorshipOf(context: QuoteContext, evaluation: Evaluation): QuotedSponsorship | null {
  if (!context.sponsorship || !evaluation.allocation) return null;
  const phases = sponsorshipPhases({
    allocation: evaluation.allocation,
    selected: context.sponsorship.selected,
    sponsor: context.sponsorship.sponsor,
    feeCurrency: context.input.currencyIn,
  });
  return { currency: toCurrency(phases.currency), quoted: phases.quoted, record: phases.record };
}
