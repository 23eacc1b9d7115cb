import { priceQuote } from '../../../../src/quotes/domain/pricing/index.js';
import { base, bridgeInput } from './fixtures.js';

/** 1000 USDC on Ethereum to USDT on Base; DEX fee 1 bps, swap impact 2 bps. */
const input = (slippageToleranceBps?: string) =>
  bridgeInput({
    amount: 1_000_000_000n,
    currencyOut: base.USDT,
    swapFeeBps: 1,
    swapImpactBps: 2,
    ...(slippageToleranceBps === undefined ? {} : { slippageToleranceBps }),
  });

describe('stablecoin swap, cross-chain, EXACT_INPUT', () => {
  const sut = priceQuote(input());

  it('charges the 1 bps platform fee and the 3 bps swap fee on the input', () => {
    expect(sut).toMatchObject({
      transactionType: 'stablecoin-swap',
      operation: 'swap',
      requestType: 'Crosschain Swap',
    });
    expect(sut.fees).toEqual({
      swap: { usd: '0.3', amount: '300000', amountFormatted: '0.3' },
      execution: { usd: '0.023', amount: '23000', amountFormatted: '0.023' },
      platform: { usd: '0.1', amount: '100000', amountFormatted: '0.1' },
      app: { usd: '0', amount: '0', amountFormatted: '0' },
      sponsored: { usd: '0', amount: '0', amountFormatted: '0' },
    });
  });

  it('converts the rest at the price ratio, rounding the output down', () => {
    expect(sut.currencyOut).toMatchObject({ amount: '999577000', amountUsd: '999.577' });
    expect(sut.rate).toBe('0.999577');
  });

  it('tolerates the default 50 bps on the destination side: minimum = floor(999577000 × 0.995)', () => {
    expect(sut.slippageToleranceBps).toBe('50');
    expect(sut.minimumAmountOut).toBe(994_579_115n);
    expect(sut.currencyOut.minimumAmount).toBe('994579115');
    expect(sut.slippageTolerance).toEqual({
      origin: { usd: '0', value: '0', percent: '0' },
      destination: { usd: '4.997885', value: '4997885', percent: '0.5' },
    });
  });

  it('reports the swap impact apart from the other fees', () => {
    expect(sut.swapImpact).toEqual({ usd: '-0.3', percent: '-0.03' });
    expect(sut.totalImpact).toEqual({ usd: '-0.423', percent: '-0.0423' });
    expect(sut.expandedPriceImpact).toMatchObject({
      swap: { usd: '-0.3' },
      execution: { usd: '-0.023' },
      relay: { usd: '-0.1' },
    });
    expect(sut.quoteFees.relayerService).toMatchObject({ amount: '420000', amountUsd: '0.42' });
    expect(sut.quoteFees.relayer).toMatchObject({ amount: '423000', amountUsd: '0.423' });
  });

  it('takes the requested tolerance instead: 30 bps', () => {
    const sut30 = priceQuote(input('30'));
    expect(sut30.slippageToleranceBps).toBe('30');
    expect(sut30.minimumAmountOut).toBe(996_578_269n);
    expect(sut30.slippageTolerance.destination).toEqual({
      usd: '2.998731',
      value: '2998731',
      percent: '0.3',
    });
  });

  it('accepts the edges of the tolerance: 0 bps keeps the whole output, 10000 bps guarantees nothing', () => {
    expect(priceQuote(input('0')).minimumAmountOut).toBe(999_577_000n);
    expect(priceQuote(input('10000')).minimumAmountOut).toBe(0n);
    expect(priceQuote(input('10000')).slippageTolerance.destination.percent).toBe('100');
  });
});
