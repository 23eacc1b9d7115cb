import { priceQuote } from '../../../../src/quotes/domain/pricing/index.js';
import { base, bridgeInput, sameChainSwapInput } from './fixtures.js';

/** A cross-chain move that rebalances the solver earns the user a reward: a negative swap fee. */
describe('rebalancing reward (negative fees)', () => {
  const sut = priceQuote(bridgeInput({ rebalancingBps: -5 }));

  it('credits 5 bps of the input: the swap fee is −0.05 USDC', () => {
    expect(sut.fees.swap).toEqual({ usd: '-0.05', amount: '-50000', amountFormatted: '-0.05' });
    expect(sut.feeUnits.total).toBe(-27_000n);
    expect(sut.currencyOut.amount).toBe('100027000');
    expect(sut.rate).toBe('1.00027');
  });

  it('shows a negative relayerService and relayer in the deprecated fees', () => {
    expect(sut.quoteFees.relayerService).toMatchObject({
      amount: '-30000',
      amountFormatted: '-0.03',
      amountUsd: '-0.03',
    });
    expect(sut.quoteFees.relayer).toMatchObject({ amount: '-27000', amountUsd: '-0.027' });
  });

  it('shows the reward as a positive impact', () => {
    expect(sut.expandedPriceImpact.swap).toEqual({ usd: '0.05' });
    expect(sut.swapImpact).toEqual({ usd: '0.05', percent: '0.05' });
    expect(sut.totalImpact).toEqual({ usd: '0.027', percent: '0.027' });
  });

  it('rounds a reward towards zero (fees round towards +∞): 5 bps of 100.000001 is 0.05', () => {
    const odd = priceQuote(bridgeInput({ amount: 100_000_001n, rebalancingBps: -5 }));
    expect(odd.fees.swap.amount).toBe('-50000');
  });

  it('adds a rebalancing cost to the swap fee of a cross-chain swap, and ignores it on one chain', () => {
    const crossChain = priceQuote(
      bridgeInput({ currencyOut: base.USDT, swapFeeBps: 1, swapImpactBps: 2, rebalancingBps: 2 }),
    );
    expect(crossChain.fees.swap.amount).toBe('50000');
    const sameChain = priceQuote(sameChainSwapInput({ rebalancingBps: 2 }));
    expect(sameChain.fees.swap.amount).toBe('1500000000000000');
  });
});
