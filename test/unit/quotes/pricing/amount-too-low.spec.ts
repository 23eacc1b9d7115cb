import { priceQuote } from '../../../../src/quotes/domain/pricing/index.js';
import { bridgeInput, ethereum, quoteErrorOf, sameChainSwapInput } from './fixtures.js';

describe('AMOUNT_TOO_LOW', () => {
  it('refuses an input that only covers the fees, naming the fees and the least input that works', () => {
    const error = quoteErrorOf(() => priceQuote(bridgeInput({ amount: 23_000n })));
    expect(error.errorCode).toBe('AMOUNT_TOO_LOW');
    expect(error.message).toBe('The fees (0.023 USD) leave nothing to deliver; send at least 0.023001 USDC');
    expect(error.errorData).toEqual({
      feesUsd: '0.023',
      feesAmount: '23000',
      minimumAmount: '23001',
      minimumAmountFormatted: '0.023001',
      minimumAmountUsd: '0.023001',
      currency: { chainId: 1, address: ethereum.USDC.address, symbol: 'USDC' },
    });
  });

  it('quotes the least input it names: one unit arrives', () => {
    expect(priceQuote(bridgeInput({ amount: 23_001n })).currencyOut.amount).toBe('1');
  });

  it('refuses a zero input and a zero output', () => {
    expect(quoteErrorOf(() => priceQuote(bridgeInput({ amount: 0n }))).errorCode).toBe('AMOUNT_TOO_LOW');
    const exactOutput = quoteErrorOf(() =>
      priceQuote(bridgeInput({ tradeType: 'EXACT_OUTPUT', amount: 0n })),
    );
    expect(exactOutput.errorCode).toBe('AMOUNT_TOO_LOW');
    expect(exactOutput.errorData).toMatchObject({ minimumAmount: '23001' });
  });

  it('names a swap minimum that buys one unit of the output and no less', () => {
    const error = quoteErrorOf(() => priceQuote(sameChainSwapInput({ amount: 1_000_000_000_000n })));
    const minimum = BigInt((error.errorData as { minimumAmount: string }).minimumAmount);
    expect(priceQuote(sameChainSwapInput({ amount: minimum })).currencyOut.amount).toBe('1');
    expect(quoteErrorOf(() => priceQuote(sameChainSwapInput({ amount: minimum - 1n }))).errorCode).toBe(
      'AMOUNT_TOO_LOW',
    );
  });

  it('lets a tiny amount through when the sponsor pays every fee', () => {
    const sut = priceQuote(
      bridgeInput({
        amount: 1_000n,
        sponsorship: { subsidizeFees: true },
        sponsor: { maxSubsidizationAmount: 1_000_000n },
      }),
    );
    expect(sut.currencyOut.amount).toBe('1000');
  });

  it('refuses a negative amount as invalid input', () => {
    expect(quoteErrorOf(() => priceQuote(bridgeInput({ amount: -1n }))).errorCode).toBe('INVALID_INPUT');
  });
});
