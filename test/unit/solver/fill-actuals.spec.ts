import { sampleQuote } from '../../../src/requests/domain/sample-requests.js';
import type { Currency } from '../../../src/requests/domain/records.js';
import { fillActuals, type FillActualsInput } from '../../../src/solver/fill-actuals.js';

const ETH: Currency = {
  chainId: 31338,
  address: '0x0000000000000000000000000000000000000000',
  symbol: 'ETH',
  name: 'Ether',
  decimals: 18,
  metadata: { logoURI: '', verified: true, isNative: true },
};

/** A sample USDC request (1 USDC quoted at 1 USD) with a 50 bps app fee, filled for exactly the quoted output. */
const input = (overrides: Partial<FillActualsInput> = {}): FillActualsInput => {
  const quote = sampleQuote(0, { appFeeBps: 50 });
  return {
    quote,
    deposited: BigInt(quote.currencyIn.amount),
    paid: BigInt(quote.currencyOut.amount),
    fillGas: 0n,
    destinationNative: ETH,
    relayedDepositGas: null,
    usdPriceOf: () => null,
    ...overrides,
  };
};

describe(fillActuals.name, () => {
  it('values a currency the price source cannot price at the quote’s own price of it', () => {
    const { quote } = input();
    const actuals = fillActuals(input());
    expect(actuals.currencyOut.amountUsd).toBe(quote.currencyOut.amountUsd);
    expect(actuals.appFees[0].amountUsd).toBe('0.005'); // 5000 units of USDC at the quote's 1 USD
  });

  it('values at the price source’s price when it has one', () => {
    const actuals = fillActuals(
      input({ usdPriceOf: (currency) => (currency.symbol === 'USDC' ? '2' : null) }),
    );
    expect(actuals.appFees[0].amountUsd).toBe('0.01');
  });

  it('writes a value something is credited from rounded down, never up (app fees, fee components)', () => {
    // 0.005 USDC at 0.0003 USD: 0.0000015 USD, written 0.000001 (half away from zero would credit 0.000002).
    const actuals = fillActuals(
      input({ usdPriceOf: (currency) => (currency.symbol === 'USDC' ? '0.0003' : null) }),
    );
    expect(actuals.appFees[0].amountUsd).toBe('0.000001');
  });

  it('reads "0" for the gas of a currency neither the source nor the quote prices, never a guess', () => {
    const actuals = fillActuals(input({ fillGas: 10n ** 15n }));
    expect(actuals.fees.execution).toEqual({ usd: '0.02' });
  });

  it('states the rate of what was paid over what was deposited', () => {
    const actuals = fillActuals(input({ deposited: 1_000_000n, paid: 980_000n }));
    expect(actuals.rate).toBe('0.98');
  });
});
