import { priceQuote, type PriceQuoteInput } from '../../../../src/quotes/domain/pricing/index.js';
import { base, bridgeInput, quoteErrorOf } from './fixtures.js';

/** 1000 USDC on Ethereum to USDT on Base: execution 23000, swap 300000, platform 100000 (units of USDC). */
const swap = (overrides: Partial<PriceQuoteInput> = {}) =>
  bridgeInput({
    amount: 1_000_000_000n,
    currencyOut: base.USDT,
    swapFeeBps: 1,
    swapImpactBps: 2,
    sponsor: { maxSubsidizationAmount: 1_000_000n },
    ...overrides,
  });

describe('fee sponsorship', () => {
  it('sponsors every component with subsidizeFees: the user gets the whole input', () => {
    const sut = priceQuote(swap({ sponsorship: { subsidizeFees: true } }));
    expect(sut.currencyOut.amount).toBe('1000000000');
    expect(sut.fees.sponsored).toEqual({ usd: '0.423', amount: '423000', amountFormatted: '0.423' });
    expect(sut.expandedPriceImpact.sponsored).toEqual({ usd: '0.423' });
    expect(sut.quoteFees.subsidized).toMatchObject({ amount: '423000', amountUsd: '0.423' });
    expect(sut.totalImpact).toEqual({ usd: '0', percent: '0' });
    const phase = sut.feeSponsorship?.record;
    expect(phase).toMatchObject({
      selectedComponents: ['execution', 'swap', 'platform', 'app', 'rent'],
      capHit: false,
      maxSubsidizationAmount: '1000000',
      sponsoredTotal: { amount: '423000', amountUsd: '0.423' },
      userPaysTotal: { amount: '0', amountUsd: '0' },
    });
    expect(phase?.components.platform).toEqual({
      selected: true,
      total: '100000',
      sponsored: '100000',
      userPays: '0',
    });
  });

  it('names the platform component `relay` in the quote response and `platform` in the record', () => {
    const sut = priceQuote(swap({ sponsorship: { subsidizeFees: true } }));
    expect(sut.feeSponsorship?.quoted.selectedComponents).toEqual([
      'execution',
      'swap',
      'relay',
      'app',
      'rent',
    ]);
    expect(Object.keys(sut.feeSponsorship?.quoted.components ?? {})).toEqual([
      'execution',
      'swap',
      'relay',
      'app',
      'rent',
    ]);
    expect(Object.keys(sut.feeSponsorship?.record.components ?? {})).toEqual([
      'execution',
      'swap',
      'platform',
      'app',
      'rent',
    ]);
    expect(sut.feeSponsorship?.currency).toEqual(sut.feeCurrency);
  });

  it('sponsors only the chosen components; `relay` and `platform` both name the platform fee', () => {
    for (const relay of ['relay', 'platform']) {
      const sut = priceQuote(swap({ sponsorship: { sponsoredFeeComponents: ['execution', relay] } }));
      expect(sut.feeSponsorship?.record.selectedComponents).toEqual(['execution', 'platform']);
      expect(sut.feeSponsorship?.quoted.selectedComponents).toEqual(['execution', 'relay']);
      expect(sut.feeSponsorship?.record.components.swap).toEqual({
        selected: false,
        total: '300000',
        sponsored: '0',
        userPays: '300000',
      });
      expect(sut.feeUnits.sponsored).toBe(123_000n);
      expect(sut.currencyOut.amount).toBe('999700000');
    }
  });

  it('stops at the cap, paying components in order, and says the cap was hit', () => {
    const sut = priceQuote(
      swap({ sponsorship: { subsidizeFees: true }, sponsor: { maxSubsidizationAmount: 200_000n } }),
    );
    const phase = sut.feeSponsorship?.record;
    expect(phase?.capHit).toBe(true);
    expect(phase?.components.execution).toMatchObject({ sponsored: '23000', userPays: '0' });
    expect(phase?.components.swap).toMatchObject({ sponsored: '177000', userPays: '123000' });
    expect(phase?.components.platform).toMatchObject({ sponsored: '0', userPays: '100000' });
    expect(phase?.sponsoredTotal.amount).toBe('200000');
    expect(phase?.userPaysTotal.amount).toBe('223000');
    expect(sut.currencyOut.amount).toBe('999777000');
  });

  it('does not call an exactly spent cap hit', () => {
    const sut = priceQuote(
      swap({ sponsorship: { subsidizeFees: true }, sponsor: { maxSubsidizationAmount: 423_000n } }),
    );
    expect(sut.feeSponsorship?.record.capHit).toBe(false);
    expect(sut.currencyOut.amount).toBe('1000000000');
  });

  it('lowers the input of an EXACT_OUTPUT quote by what is sponsored', () => {
    const plain = priceQuote(bridgeInput({ tradeType: 'EXACT_OUTPUT' }));
    const sponsored = priceQuote(
      bridgeInput({
        tradeType: 'EXACT_OUTPUT',
        sponsorship: { subsidizeFees: true },
        sponsor: { maxSubsidizationAmount: 10_000n },
      }),
    );
    expect(plain.amountIn).toBe(100_023_000n);
    expect(sponsored.amountIn).toBe(100_013_000n);
    expect(sponsored.feeSponsorship?.record).toMatchObject({
      capHit: true,
      sponsoredTotal: { amount: '10000' },
    });
    expect(sponsored.amountOut).toBe(100_000_000n);
  });

  it('counts in the sponsor currency when the key names one: cap 0.001 ETH = 3 USDC', () => {
    const sut = priceQuote(
      bridgeInput({
        sponsorship: { subsidizeFees: true },
        sponsor: { maxSubsidizationAmount: 1_000_000_000_000_000n, currency: base.ETH },
      }),
    );
    expect(sut.feeSponsorship?.currency).toMatchObject({ chainId: 8453, symbol: 'ETH' });
    // 23000 units of USDC = 0.023 USD = 0.000007666666666666 ETH (rounded down).
    expect(sut.feeSponsorship?.record.sponsoredTotal).toMatchObject({
      amount: '7666666666666',
      amountUsd: '0.023',
    });
    expect(sut.feeSponsorship?.record.maxSubsidizationAmount).toBe('1000000000000000');
    expect(sut.feeUnits.sponsored).toBe(23_000n);
    expect(sut.currencyOut.amount).toBe('100000000');
  });

  it('is absent when the request asks for none, even with a sponsoring key', () => {
    expect(priceQuote(swap()).feeSponsorship).toBeNull();
    expect(
      priceQuote(swap({ sponsorship: { subsidizeFees: false, sponsoredFeeComponents: [] } })).feeSponsorship,
    ).toBeNull();
  });

  it('is refused for a key without sponsorship', () => {
    const error = quoteErrorOf(() =>
      priceQuote(swap({ sponsor: null, sponsorship: { subsidizeFees: true } })),
    );
    expect(error.errorCode).toBe('SPONSORSHIP_NOT_ALLOWED');
    expect(error.errorData).toEqual({ reason: 'key-without-sponsorship' });
  });

  it('is refused with a deposit address', () => {
    const error = quoteErrorOf(() =>
      priceQuote(swap({ useDepositAddress: true, sponsorship: { sponsoredFeeComponents: ['execution'] } })),
    );
    expect(error.errorCode).toBe('SPONSORSHIP_NOT_ALLOWED');
    expect(error.errorData).toEqual({ reason: 'deposit-address' });
  });

  it('refuses an unknown component name', () => {
    const error = quoteErrorOf(() => priceQuote(swap({ sponsorship: { sponsoredFeeComponents: ['gas'] } })));
    expect(error.errorCode).toBe('INVALID_INPUT');
    expect(error.errorData).toMatchObject({ field: 'sponsoredFeeComponents', value: 'gas' });
    expect(
      quoteErrorOf(() => priceQuote(swap({ sponsorship: { sponsoredFeeComponents: ['toString'] } })))
        .errorCode,
    ).toBe('INVALID_INPUT');
  });

  it('never sponsors a reward: a negative component stays with the user', () => {
    const sut = priceQuote(
      bridgeInput({
        rebalancingBps: -5,
        sponsorship: { subsidizeFees: true },
        sponsor: { maxSubsidizationAmount: 1_000_000n },
      }),
    );
    expect(sut.feeSponsorship?.record.components.swap).toEqual({
      selected: true,
      total: '-50000',
      sponsored: '0',
      userPays: '-50000',
    });
    expect(sut.feeSponsorship?.record.userPaysTotal.amount).toBe('-50000');
    expect(sut.currencyOut.amount).toBe('100050000');
  });
});
