import { priceQuote } from '../../../../src/quotes/domain/pricing/index.js';
import { APP, bridgeInput, sameChainSwapInput } from './fixtures.js';

describe('EXACT_OUTPUT and EXPECTED_OUTPUT', () => {
  it('solves a bridge input so that exactly 100 USDC arrive: 100 + 0.023', () => {
    const sut = priceQuote(bridgeInput({ tradeType: 'EXACT_OUTPUT' }));
    expect(sut.amountIn).toBe(100_023_000n);
    expect(sut.currencyIn).toMatchObject({ amount: '100023000', minimumAmount: '100023000' });
    expect(sut.currencyOut).toMatchObject({ amount: '100000000', minimumAmount: '100000000' });
    expect(sut.fees.execution.amount).toBe('23000');
  });

  it('solves through the proportional fees, rounding the input up: 100.525629 USDC with a 50 bps app fee', () => {
    // A − 23000 − ceil(A × 0.005) ≥ 100000000 first holds at A = 100525629 (ceil(502628.145) = 502629).
    const sut = priceQuote(
      bridgeInput({ tradeType: 'EXACT_OUTPUT', appFees: [{ recipient: APP, fee: '50' }] }),
    );
    expect(sut.amountIn).toBe(100_525_629n);
    expect(sut.appFees[0].amount).toBe('502629');
    expect(sut.amountOut).toBe(100_000_000n);
  });

  it('solves a swap input at the price ratio: 3000 USDC from 1.002112102081036846 ETH', () => {
    const sut = priceQuote(sameChainSwapInput({ tradeType: 'EXACT_OUTPUT', amount: 3_000_000_000n }));
    expect(sut.amountIn).toBe(1_002_112_102_081_036_846n);
    expect(sut.fees.swap.amount).toBe('1503168153121556');
    expect(sut.fees.platform.amount).toBe('601267261248623');
    expect(sut.currencyOut).toMatchObject({ amount: '3000000000', minimumAmount: '3000000000' });
  });

  it('guarantees the output of EXACT_OUTPUT: no tolerance, even when one is asked for', () => {
    const sut = priceQuote(
      sameChainSwapInput({ tradeType: 'EXACT_OUTPUT', amount: 3_000_000_000n, slippageToleranceBps: '100' }),
    );
    expect(sut.slippageToleranceBps).toBe('0');
    expect(sut.minimumAmountOut).toBe(3_000_000_000n);
    expect(sut.slippageTolerance.origin).toEqual({ usd: '0', value: '0', percent: '0' });
  });

  it('solves EXPECTED_OUTPUT the same way but only expects the output: the minimum follows the tolerance', () => {
    const sut = priceQuote(sameChainSwapInput({ tradeType: 'EXPECTED_OUTPUT', amount: 3_000_000_000n }));
    expect(sut.amountIn).toBe(1_002_112_102_081_036_846n);
    expect(sut.slippageToleranceBps).toBe('50');
    expect(sut.currencyOut).toMatchObject({ amount: '3000000000', minimumAmount: '2985000000' });
    expect(sut.slippageTolerance.origin).toEqual({ usd: '15', value: '15000000', percent: '0.5' });
  });

  it('quotes the rate from the solved input', () => {
    const sut = priceQuote(bridgeInput({ tradeType: 'EXACT_OUTPUT' }));
    // 100 / 100.023 = 0.999770052887835797...
    expect(sut.rate).toBe('0.999770052887835797');
  });
});
