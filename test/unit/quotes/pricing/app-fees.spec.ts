import { priceQuote } from '../../../../src/quotes/domain/pricing/index.js';
import { APP, base, bridgeInput, OTHER_APP, quoteErrorOf, sameChainSwapInput } from './fixtures.js';

describe('app fees', () => {
  it('charges each recipient its bps of the input, on top of the other fees', () => {
    const sut = priceQuote(
      bridgeInput({
        appFees: [
          { recipient: APP, fee: '50' },
          { recipient: OTHER_APP, fee: '25' },
        ],
      }),
    );
    expect(sut.appFees).toEqual([
      { recipient: APP, bps: '50', amount: '500000', amountFormatted: '0.5' },
      { recipient: OTHER_APP, bps: '25', amount: '250000', amountFormatted: '0.25' },
    ]);
    expect(sut.fees.app).toEqual({ usd: '0.75', amount: '750000', amountFormatted: '0.75' });
    expect(sut.quoteFees.app).toMatchObject({ amount: '750000', amountUsd: '0.75' });
    expect(sut.expandedPriceImpact.app).toEqual({ usd: '-0.75' });
    expect(sut.currencyOut.amount).toBe('99227000');
    expect(sut.appFeeCurrency).toEqual(sut.feeCurrency);
    expect(sut.appFeesCollected).toBe(true);
  });

  it('rounds each recipient up: 1 bps of 100.000001 USDC is 0.010001', () => {
    const sut = priceQuote(bridgeInput({ amount: 100_000_001n, appFees: [{ recipient: APP, fee: '1' }] }));
    expect(sut.appFees[0]).toMatchObject({ amount: '10001', amountFormatted: '0.010001' });
  });

  it('quotes a 0 bps entry as a zero fee', () => {
    const sut = priceQuote(bridgeInput({ appFees: [{ recipient: APP, fee: '0' }] }));
    expect(sut.appFees).toEqual([{ recipient: APP, bps: '0', amount: '0', amountFormatted: '0' }]);
    expect(sut.currencyOut.amount).toBe('99977000');
  });

  it('collects nothing and raises nothing on a flow marked unsupported', () => {
    const sut = priceQuote(
      bridgeInput({ appFees: [{ recipient: APP, fee: '50' }], appFeesSupported: false }),
    );
    expect(sut).toMatchObject({ appFees: [], appFeesCollected: false });
    expect(sut.currencyOut.amount).toBe('99977000');
  });

  it('refuses fees that take the whole input (10000 bps): nothing could ever arrive', () => {
    const error = quoteErrorOf(() =>
      priceQuote(bridgeInput({ appFees: [{ recipient: APP, fee: '10000' }] })),
    );
    expect(error.errorCode).toBe('UNSUPPORTED_OPTION');
    expect(error.errorData).toEqual({
      totalBps: '10000',
      swapBps: '0',
      platformBps: '0',
      appFeesBps: ['10000'],
    });
    const split = quoteErrorOf(() =>
      priceQuote(
        bridgeInput({
          appFees: [
            { recipient: APP, fee: '5000' },
            { recipient: OTHER_APP, fee: '5000' },
          ],
        }),
      ),
    );
    expect(split.errorCode).toBe('UNSUPPORTED_OPTION');
  });

  it('takes up to 9999 bps when what is left still covers the fixed fees', () => {
    const sut = priceQuote(
      bridgeInput({ amount: 1_000_000_000n, appFees: [{ recipient: APP, fee: '9999' }] }),
    );
    expect(sut.appFees[0].amount).toBe('999900000');
    expect(sut.currencyOut.amount).toBe('77000');
  });

  it.each(['1.5', '-1', '', 'ten'])('refuses the malformed fee "%s"', (fee) => {
    const error = quoteErrorOf(() => priceQuote(bridgeInput({ appFees: [{ recipient: APP, fee }] })));
    expect(error.errorCode).toBe('INVALID_INPUT');
    expect(error.errorData).toEqual({ field: 'appFees[0].fee', value: fee });
  });

  describe('the same-chain extra swap (solver holds neither currency, fee above 0.025 USD)', () => {
    const stableSwap = (amount: bigint) =>
      sameChainSwapInput({
        amount,
        currencyIn: base.USDC,
        currencyOut: base.USDT,
        appFees: [{ recipient: APP, fee: '1' }],
      });

    it('is needed above 0.025 USD', () => {
      expect(priceQuote(stableSwap(250_010_000n)).appFeeExtraSwap).toBe(true);
    });

    it('is not needed at exactly 0.025 USD', () => {
      const sut = priceQuote(stableSwap(250_000_000n));
      expect(sut.fees.app.usd).toBe('0.025');
      expect(sut.appFeeExtraSwap).toBe(false);
    });

    it('is not needed when the solver holds either currency', () => {
      const holding = { ...stableSwap(250_010_000n) };
      expect(
        priceQuote({ ...holding, solverInventory: { currencyIn: true, currencyOut: false } }).appFeeExtraSwap,
      ).toBe(false);
      expect(
        priceQuote({ ...holding, solverInventory: { currencyIn: false, currencyOut: true } }).appFeeExtraSwap,
      ).toBe(false);
      expect(
        priceQuote({ ...holding, solverInventory: { currencyIn: false, currencyOut: false } })
          .appFeeExtraSwap,
      ).toBe(true);
    });

    it('is never needed cross-chain', () => {
      expect(priceQuote(bridgeInput({ appFees: [{ recipient: APP, fee: '100' }] })).appFeeExtraSwap).toBe(
        false,
      );
    });
  });
});
