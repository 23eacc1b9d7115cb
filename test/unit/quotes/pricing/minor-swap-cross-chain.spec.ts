import { priceQuote } from '../../../../src/quotes/domain/pricing/index.js';
import { base, bridgeInput, ethereum } from './fixtures.js';

/** 100 UNI (10 USD) on Ethereum to USDC on Base; DEX fee 30 bps, swap impact 50 bps. */
describe('minor swap, cross-chain, EXACT_INPUT', () => {
  const sut = priceQuote(
    bridgeInput({
      amount: 100n * 10n ** 18n,
      currencyIn: ethereum.UNI,
      currencyOut: base.USDC,
      swapFeeBps: 30,
      swapImpactBps: 50,
    }),
  );

  it('charges 15 bps platform and 80 bps swap on the input', () => {
    expect(sut).toMatchObject({ transactionType: 'minor-swap', requestType: 'Crosschain Swap' });
    expect(sut.fees.platform).toEqual({ usd: '1.5', amount: '150000000000000000', amountFormatted: '0.15' });
    expect(sut.fees.swap).toEqual({ usd: '8', amount: '800000000000000000', amountFormatted: '0.8' });
    expect(sut.fees.execution).toEqual({
      usd: '0.023',
      amount: '2300000000000000',
      amountFormatted: '0.0023',
    });
  });

  it('delivers (100 − 0.9523) UNI × 10 USD = 990.477 USDC', () => {
    expect(sut.currencyOut).toMatchObject({ amount: '990477000', amountUsd: '990.477' });
    expect(sut.rate).toBe('9.90477');
  });

  it('tolerates twice the swap impact by default: 100 bps', () => {
    expect(sut.slippageToleranceBps).toBe('100');
    expect(sut.minimumAmountOut).toBe(980_572_230n);
    expect(sut.slippageTolerance.destination).toEqual({ usd: '9.90477', value: '9904770', percent: '1' });
  });
});
