import { priceQuote } from '../../../../src/quotes/domain/pricing/index.js';
import { sameChainSwapInput } from './fixtures.js';

/** 1 ETH to USDC on Base at 3000 USD; DEX fee 5 bps, swap impact 10 bps. */
describe('major swap, same chain, EXACT_INPUT', () => {
  const sut = priceQuote(sameChainSwapInput());

  it('is a same-chain major swap: 6 bps platform fee', () => {
    expect(sut).toMatchObject({
      transactionType: 'major-swap',
      operation: 'swap',
      requestType: 'Same-chain Swap',
      sameChain: true,
    });
    expect(sut.fees.platform).toEqual({ usd: '1.8', amount: '600000000000000', amountFormatted: '0.0006' });
    expect(sut.fees.swap).toEqual({ usd: '4.5', amount: '1500000000000000', amountFormatted: '0.0015' });
  });

  it('rounds the flat fee up in wei: 0.02 / 3000 ETH = 6666666666667 wei', () => {
    expect(sut.feeUnits.flatExecution).toBe(6_666_666_666_667n);
    expect(sut.feeUnits.destinationGas).toBe(1_000_000_000_000n);
    expect(sut.fees.execution).toEqual({
      usd: '0.023',
      amount: '7666666666667',
      amountFormatted: '0.000007666666666667',
    });
    expect(sut.feeUnits.total).toBe(2_107_666_666_666_667n);
  });

  it('converts the net 0.997892333333333333 ETH at 3000, rounding down to 2993.676999 USDC', () => {
    expect(sut.currencyOut).toMatchObject({ amount: '2993676999', amountUsd: '2993.676999' });
    expect(sut.rate).toBe('2993.676999');
    expect(sut.totalImpact).toEqual({ usd: '-6.323001', percent: '-0.2108' });
    expect(sut.swapImpact).toEqual({ usd: '-4.5', percent: '-0.15' });
  });

  it('puts the default 50 bps tolerance on the origin side of a same-chain quote', () => {
    expect(sut.minimumAmountOut).toBe(2_978_708_614n);
    expect(sut.slippageTolerance).toEqual({
      origin: { usd: '14.968385', value: '14968385', percent: '0.5' },
      destination: { usd: '0', value: '0', percent: '0' },
    });
  });

  it('reports the deposit gas the user pays on Base: 50000 × 0.01 gwei', () => {
    expect(sut.quoteFees.gas).toMatchObject({ amount: '500000000000', amountUsd: '0.0015' });
  });
});
