import { QuoteError } from '../../../../src/quotes/domain/quote-error.js';
import { ConfigPriceSource } from '../../../../src/quotes/domain/pricing/config-price-source.js';
import { PriceBook } from '../../../../src/quotes/domain/pricing/price-book.js';
import type { PriceSource } from '../../../../src/quotes/domain/pricing/price-source.js';
import type { Currency } from '../../../../src/requests/domain/records.js';
import { base, ethereum } from './fixtures.js';

const unpriced = (currency: Currency): Currency => {
  const { chainId, address, symbol, name, decimals, metadata } = currency;
  return { chainId, address, symbol, name, decimals, metadata };
};

describe(ConfigPriceSource.name, () => {
  const sut = new ConfigPriceSource({
    bySymbol: { ETH: '3000', USDC: '1' },
    overrides: [{ chainId: 1, address: ethereum.USDC.address.toLowerCase(), usd: '0.9998' }],
  });

  it('prices a currency by its symbol', async () => {
    await expect(sut.usdPrice(unpriced(base.USDC))).resolves.toBe('1');
    await expect(sut.usdPrice(unpriced(base.ETH))).resolves.toBe('3000');
  });

  it('prefers a (chainId, address) override, comparing EVM addresses without case', async () => {
    await expect(sut.usdPrice(unpriced(ethereum.USDC))).resolves.toBe('0.9998');
  });

  it('answers null for a currency it has no price for (symbols are exact)', async () => {
    await expect(sut.usdPrice(unpriced(ethereum.UNI))).resolves.toBeNull();
    await expect(sut.usdPrice({ ...unpriced(base.USDC), symbol: 'usdc' })).resolves.toBeNull();
  });

  it('compares non-EVM addresses exactly', async () => {
    const svm = new ConfigPriceSource({
      bySymbol: {},
      overrides: [{ chainId: 792703809, address: 'So11111111111111111111111111111111111111112', usd: '150' }],
    });
    const sol = { ...unpriced(base.ETH), chainId: 792703809, symbol: 'SOL' };
    await expect(
      svm.usdPrice({ ...sol, address: 'So11111111111111111111111111111111111111112' }),
    ).resolves.toBe('150');
    await expect(
      svm.usdPrice({ ...sol, address: 'so11111111111111111111111111111111111111112' }),
    ).resolves.toBeNull();
  });

  it.each(['0', '-1', 'abc', '1e3'])('refuses the configured price "%s", naming it', (usd) => {
    expect(() => new ConfigPriceSource({ bySymbol: { ETH: usd } })).toThrow(/bySymbol\.ETH/);
  });
});

describe(PriceBook.name, () => {
  it('asks the source once per distinct currency and answers from what it fetched', async () => {
    const asked: string[] = [];
    const source: PriceSource = {
      usdPrice: (currency) => {
        asked.push(`${currency.chainId}:${currency.symbol}`);
        return Promise.resolve(currency.symbol === 'USDC' ? '1' : null);
      },
    };
    const sut = await PriceBook.load(source, [
      unpriced(base.USDC),
      { ...unpriced(base.USDC), address: base.USDC.address.toLowerCase() },
      unpriced(ethereum.USDC),
      unpriced(base.ETH),
    ]);
    expect(asked.sort()).toEqual(['1:USDC', '8453:ETH', '8453:USDC']);
    expect(sut.usdPrice(base.USDC)).toBe('1');
    expect(sut.priced(unpriced(ethereum.USDC)).usdPrice).toBe('1');
    expect(sut.usdPrice(base.ETH)).toBeNull();
    expect(sut.usdPrice(ethereum.UNI)).toBeNull();
  });

  it('fails the quote with NO_ROUTE for a currency without a price', async () => {
    const sut = await PriceBook.load({ usdPrice: () => Promise.resolve(null) }, [unpriced(base.ETH)]);
    expect(() => sut.priced(unpriced(base.ETH))).toThrow(QuoteError);
    expect(() => sut.priced(unpriced(base.ETH))).toThrow(
      expect.objectContaining({
        errorCode: 'NO_ROUTE',
        errorData: { chainId: 8453, address: base.ETH.address, symbol: 'ETH' },
      }) as unknown as Error,
    );
  });

  it.each(['0', '-3', 'n/a'])('treats an unusable answer ("%s") as no price', async (usd) => {
    const sut = await PriceBook.load({ usdPrice: () => Promise.resolve(usd) }, [unpriced(base.ETH)]);
    expect(sut.usdPrice(base.ETH)).toBeNull();
  });
});
