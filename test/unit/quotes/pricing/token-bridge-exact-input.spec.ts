import { priceQuote } from '../../../../src/quotes/domain/pricing/index.js';
import { base, bnbChain, bridgeInput, ethereum, gas } from './fixtures.js';

/** The worked example of docs/fees.md: 100 USDC from Ethereum to Base. */
describe('token bridge, EXACT_INPUT', () => {
  const sut = priceQuote(bridgeInput());

  it('is a bridge: no platform fee, no swap fee, no slippage', () => {
    expect(sut).toMatchObject({
      transactionType: 'token-bridge',
      operation: 'bridge',
      requestType: 'Bridge',
      sameChain: false,
      slippageToleranceBps: '0',
    });
    expect(sut.fees.platform).toEqual({ usd: '0', amount: '0', amountFormatted: '0' });
    expect(sut.fees.swap).toEqual({ usd: '0', amount: '0', amountFormatted: '0' });
  });

  it('charges 0.02 USD flat plus the 0.003 USD fill gas, in the input currency', () => {
    expect(sut.fees.execution).toEqual({ usd: '0.023', amount: '23000', amountFormatted: '0.023' });
    expect(sut.feeUnits).toMatchObject({ flatExecution: 20_000n, destinationGas: 3_000n, originGas: 0n });
  });

  it('delivers the input less the fees, 1:1', () => {
    expect(sut.amountIn).toBe(100_000_000n);
    expect(sut.currencyIn).toMatchObject({
      amount: '100000000',
      amountUsd: '100',
      minimumAmount: '100000000',
    });
    expect(sut.currencyOut).toMatchObject({
      amount: '99977000',
      amountFormatted: '99.977',
      amountUsd: '99.977',
      minimumAmount: '99977000',
    });
    expect(sut.currencyOut.currency).toEqual({
      chainId: 8453,
      address: base.USDC.address,
      symbol: 'USDC',
      name: 'USDC',
      decimals: 6,
      metadata: { logoURI: '', verified: true },
    });
    expect(sut.rate).toBe('0.99977');
  });

  it('reports the impacts in USD, costs negative', () => {
    expect(sut.expandedPriceImpact).toEqual({
      swap: { usd: '0' },
      execution: { usd: '-0.023' },
      relay: { usd: '0' },
      app: { usd: '0' },
      sponsored: { usd: '0' },
    });
    expect(sut.totalImpact).toEqual({ usd: '-0.023', percent: '-0.023' });
    expect(sut.swapImpact).toEqual({ usd: '0', percent: '0' });
    expect(sut.slippageTolerance).toEqual({
      origin: { usd: '0', value: '0', percent: '0' },
      destination: { usd: '0', value: '0', percent: '0' },
    });
  });

  it('fills the deprecated fees object: origin gas in ETH, the relayer parts in USDC', () => {
    expect(sut.quoteFees.gas).toMatchObject({
      amount: '1000000000000000',
      amountFormatted: '0.001',
      amountUsd: '3',
      currency: expect.objectContaining({ chainId: 1, symbol: 'ETH' }) as unknown,
    });
    expect(sut.quoteFees.relayerGas).toMatchObject({ amount: '3000', amountUsd: '0.003' });
    expect(sut.quoteFees.relayerService).toMatchObject({ amount: '20000', amountUsd: '0.02' });
    expect(sut.quoteFees.relayer).toMatchObject({ amount: '23000', amountUsd: '0.023' });
    expect(sut.quoteFees.app).toMatchObject({ amount: '0', amountUsd: '0' });
    expect(sut.quoteFees.subsidized).toMatchObject({ amount: '0', amountUsd: '0' });
  });

  it('bridges between different decimals at parity: 6-decimal USDC to 18-decimal USDC', () => {
    const sut18 = priceQuote(bridgeInput({ currencyOut: bnbChain.USDC, destinationGas: gas.bnbFill }));
    // Fill gas: 100000 × 1 gwei = 0.0001 BNB = 0.06 USD = 60000 units; plus 20000 flat.
    expect(sut18.fees.execution).toEqual({ usd: '0.08', amount: '80000', amountFormatted: '0.08' });
    expect(sut18.currencyOut).toMatchObject({ amount: '99920000000000000000', amountFormatted: '99.92' });
    expect(sut18.rate).toBe('0.9992');
  });

  it('keeps parity when the two sides are priced differently; the impact shows the difference', () => {
    const sutDepegged = priceQuote(bridgeInput({ currencyIn: { ...ethereum.USDC, usdPrice: '0.9998' } }));
    // 0.02 / 0.9998 = 20004.0008 units → 20005; 0.003 / 0.9998 = 3000.6 → 3001 (fees round up).
    expect(sutDepegged.feeUnits).toMatchObject({ flatExecution: 20_005n, destinationGas: 3_001n });
    expect(sutDepegged.currencyOut).toMatchObject({ amount: '99976994', amountUsd: '99.976994' });
    expect(sutDepegged.currencyIn.amountUsd).toBe('99.98');
    // 99.976994 − 99.98 = −0.003006, of 99.98: −0.0030066 %.
    expect(sutDepegged.totalImpact).toEqual({ usd: '-0.003006', percent: '-0.003' });
  });
});
