import { type Address, isAddressEqual, parseEventLogs, type TransactionReceipt } from 'viem';
import { erc20Abi } from '../chains/abi/erc20.js';
import { currencyKey } from '../quotes/domain/pricing/price-source.js';
import { rateOf, usdValue } from '../quotes/domain/pricing/valuation.js';
import { Decimal, divide, formatUnits, formatUsd } from '../quotes/domain/pricing/decimal.js';
import type { Amount, Currency, FeeComponent, FeePhase, PaidAppFee } from '../requests/domain/records.js';
import type { RequestQuotedData } from '../requests/domain/request-events.js';
import { FLAT_EXECUTION_FEE_USD } from '../quotes/domain/pricing/fee-schedule.js';

const NATIVE = '0x0000000000000000000000000000000000000000';

/** USD per whole unit of a currency at fill time, or null when the price source has none. */
export type UsdPriceOf = (currency: Currency) => string | null;

/**
 * What the fill moved, read from the chain: the native value of the fill transaction, or the sum of the output
 * token's `Transfer` logs out of the solver's account in its receipt. Whatever the quote said, this is what was paid.
 */
export function paidByFill(
  quote: RequestQuotedData,
  solver: Address,
  transaction: { readonly from: Address; readonly value: bigint },
  receipt: TransactionReceipt,
): bigint {
  const token = quote.currencyOut.currency.address;
  if (token.toLowerCase() === NATIVE) {
    return isAddressEqual(transaction.from, solver) ? transaction.value : 0n;
  }
  return parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs })
    .filter((log) => isAddressEqual(log.address, token as Address) && isAddressEqual(log.args.from, solver))
    .reduce((sum, log) => sum + log.args.value, 0n);
}

export interface FillActualsInput {
  readonly quote: RequestQuotedData;
  /** The deposit's amount as the origin chain reported it (smallest unit of the input currency). */
  readonly deposited: bigint;
  /** `paidByFill`: the output the fill moved. */
  readonly paid: bigint;
  /** The fill's gas (gasUsed × effective gas price), in the destination's native smallest unit. */
  readonly fillGas: bigint;
  readonly destinationNative: Currency;
  /** The deposit's gas in the origin's native unit, when Ferry's relayer paid it (a gasless deposit); else null. */
  readonly relayedDepositGas: { readonly amount: bigint; readonly currency: Currency } | null;
  readonly usdPriceOf: UsdPriceOf;
}

export interface FillActuals {
  readonly currencyOut: Amount;
  readonly rate: string;
  readonly fees: FeePhase;
  readonly appFees: readonly PaidAppFee[];
}

/**
 * The `actual` side of a filled request, from what the chains show: the output the fill moved, the rate that gives
 * against the deposit, the execution fee as it was spent (the flat 0.02 USD plus the fill's gas, and the deposit's
 * gas when Ferry's relayer sent it), and every amount valued at the price source's prices at fill time. A currency
 * the source cannot price is valued at the quote's own price of it (the amount's quoted USD per unit), never at a
 * made-up one; one the quote never priced reads "0". Every USD value is written rounded down: app fees and revenue
 * share are credited from these, and a half-up rounding would credit a unit more than was taken.
 */
export function fillActuals(input: FillActualsInput): FillActuals {
  const { quote } = input;
  const price = pricer(input);
  const currencyOut = amountOf(
    input.paid,
    quote.currencyOut.currency,
    price,
    quote.currencyOut.minimumAmount,
  );
  const gasUsd = usdOf(input.fillGas, input.destinationNative, price).add(
    input.relayedDepositGas
      ? usdOf(input.relayedDepositGas.amount, input.relayedDepositGas.currency, price)
      : Decimal.ZERO,
  );
  const fees = quote.fees;
  const feeCurrency = quote.feeCurrency;
  const repriced = (component: FeeComponent): FeeComponent =>
    component.amount === undefined
      ? component
      : { ...component, usd: formatUsd(usdOf(BigInt(component.amount), feeCurrency, price), 'floor') };
  return {
    currencyOut,
    rate: rateOf(input.deposited, input.paid, quote.currencyIn.currency, quote.currencyOut.currency),
    fees: {
      swap: repriced(fees.swap),
      // What executing cost: spent gas, not the estimate (the actual phase carries `usd` only here).
      execution: { usd: formatUsd(Decimal.parse(FLAT_EXECUTION_FEE_USD).add(gasUsd), 'floor') },
      platform: repriced(fees.platform),
      app: repriced(fees.app),
      sponsored: repriced(fees.sponsored),
    },
    appFees: quote.appFees.map((fee) => ({
      ...fee,
      amountUsd: formatUsd(usdOf(BigInt(fee.amount), quote.appFeeCurrency, price), 'floor'),
    })),
  };
}

/** The USD value of an amount of a currency, rounded down, or null when nothing prices the currency. */
type Pricer = (currency: Currency, units: bigint) => Decimal | null;

/**
 * The price source's price at fill time, else the quote's own valuation of that currency (its amountUsd scaled to
 * the units asked, so the quoted amount is worth exactly what the quote said), else null.
 */
function pricer(input: FillActualsInput): Pricer {
  const quoted = new Map(
    [input.quote.currencyIn, input.quote.currencyOut]
      .filter((amount) => BigInt(amount.amount) > 0n)
      .map((amount) => [currencyKey(amount.currency), amount] as const),
  );
  return (currency, units) => {
    const usdPrice = input.usdPriceOf(currency);
    if (usdPrice !== null && Decimal.parse(usdPrice).isPositive()) {
      return usdValue(units, { ...currency, usdPrice }, 'floor');
    }
    const amount = quoted.get(currencyKey(currency));
    if (!amount) return null;
    return Decimal.fromScaled(
      divide(Decimal.parse(amount.amountUsd).scaled * units, BigInt(amount.amount), 'floor'),
    );
  };
}

/** The USD value of an amount at the pricer's price, rounded down; "0" for a currency nothing prices. */
function usdOf(units: bigint, currency: Currency, price: Pricer): Decimal {
  return price(currency, units) ?? Decimal.ZERO;
}

function amountOf(units: bigint, currency: Currency, price: Pricer, minimumAmount: string): Amount {
  return {
    currency,
    amount: units.toString(),
    amountFormatted: formatUnits(units, currency.decimals),
    amountUsd: formatUsd(usdOf(units, currency, price), 'floor'),
    minimumAmount,
  };
}
