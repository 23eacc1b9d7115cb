/** The pure pricing and fee domain of quotes (docs/fees.md): what the quote service imports. */
export { priceQuote } from './price-quote.js';
export type {
  AppFeeRequest,
  GasEstimate,
  PricedCurrency,
  PriceQuoteInput,
  SolverInventory,
  SponsorConfig,
  SponsorshipRequest,
  TradeType,
} from './price-quote-input.js';
export { TRADE_TYPES } from './price-quote-input.js';
export type {
  ExpandedPriceImpact,
  FeeUnits,
  PricedQuote,
  QuotedSponsorship,
  QuoteFees,
  UsdImpact,
} from './priced-quote.js';
export type { SlippageSide, SlippageTolerance } from './slippage.js';
export type { QuoteSponsorshipComponentName, QuoteSponsorshipPhase } from './sponsorship.js';
export { QUOTE_SPONSORSHIP_COMPONENTS } from './sponsorship.js';
export type { TransactionType } from './fee-schedule.js';
export { classifyTransaction } from './transaction-type.js';
export type { PriceSource } from './price-source.js';
export { ConfigPriceSource, type ConfigPrices, type CurrencyPriceOverride } from './config-price-source.js';
export { PriceBook } from './price-book.js';
export type { Priced } from './valuation.js';
export { Decimal, formatUnits, fromUnits, toUnits, type Rounding } from './decimal.js';
