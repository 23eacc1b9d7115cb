import { priceQuote } from '../../../../src/quotes/domain/pricing/index.js';
import { APP, base, sameChainSwapInput } from './fixtures.js';

describe('wrap, unwrap and send', () => {
  it('wraps 1 ETH into WETH 1:1 less the execution fee, with no platform or swap fee', () => {
    const sut = priceQuote(sameChainSwapInput({ currencyOut: base.WETH }));
    expect(sut).toMatchObject({
      transactionType: 'wrap-unwrap',
      operation: 'wrap',
      requestType: 'Wrap',
      slippageToleranceBps: '0',
    });
    expect(sut.fees.platform.amount).toBe('0');
    expect(sut.fees.swap.amount).toBe('0');
    expect(sut.currencyOut).toMatchObject({
      amount: '999992333333333333',
      minimumAmount: '999992333333333333',
    });
    expect(sut.rate).toBe('0.999992333333333333');
  });

  it('unwraps WETH into ETH the same way', () => {
    const sut = priceQuote(sameChainSwapInput({ currencyIn: base.WETH, currencyOut: base.ETH }));
    expect(sut).toMatchObject({
      operation: 'unwrap',
      requestType: 'Unwrap',
      amountOut: 999_992_333_333_333_333n,
    });
  });

  it('sends USDC on one chain: charged like a bridge, and app fees are neither collected nor refused', () => {
    const sut = priceQuote(
      sameChainSwapInput({
        amount: 100_000_000n,
        currencyIn: base.USDC,
        currencyOut: base.USDC,
        appFees: [{ recipient: APP, fee: '50' }],
      }),
    );
    expect(sut).toMatchObject({
      transactionType: 'send',
      operation: 'send',
      requestType: 'Send',
      appFeesCollected: false,
      appFeeExtraSwap: false,
      appFees: [],
    });
    expect(sut.fees.app).toEqual({ usd: '0', amount: '0', amountFormatted: '0' });
    expect(sut.currencyOut.amount).toBe('99977000');
  });
});
