import { paidAppFees } from '../../../src/requests/domain/paid-app-fees.js';
import type { RequestQuotedData } from '../../../src/requests/domain/request-events.js';
import { sampleQuote } from '../../../src/requests/domain/sample-requests.js';

/** App fees paid with a fill are valued in dollars, not reported as their token amount. */
describe('paidAppFees', () => {
  const eth = (quote: RequestQuotedData): RequestQuotedData => ({
    ...quote,
    currencyIn: {
      ...quote.currencyIn,
      currency: { ...quote.currencyIn.currency, decimals: 18, symbol: 'ETH' },
      amount: '1000000000000000000',
      amountFormatted: '1',
      amountUsd: '3000',
    },
    appFeeCurrency: { ...quote.currencyIn.currency, decimals: 18, symbol: 'ETH' },
    appFees: [
      { recipient: '0x' + '11'.repeat(20), bps: '5', amount: '500000000000000', amountFormatted: '0.0005' },
    ],
  });

  it('values 0.0005 ETH at the quote’s ETH price (3000 USD): 1.5 USD, not 0.0005', () => {
    const [fee] = paidAppFees(eth(sampleQuote(1)));
    expect(Number(fee.amountUsd)).toBe(1.5);
    expect(fee.amountUsd).not.toBe('0.0005');
    expect(fee).toMatchObject({ amount: '500000000000000', amountFormatted: '0.0005', bps: '5' });
  });

  it('reads 0 rather than a token amount when the fee currency is not the input currency', () => {
    const quote = eth(sampleQuote(1));
    const [fee] = paidAppFees({
      ...quote,
      appFeeCurrency: { ...quote.appFeeCurrency, address: '0x' + '22'.repeat(20) },
    });
    expect(fee.amountUsd).toBe('0');
  });
});
