import {
  defaultSlippageBps,
  MAJOR_ASSETS,
  PLATFORM_FEE_BPS,
  STABLECOINS,
  TRANSACTION_TYPES,
} from '../../../../src/quotes/domain/pricing/fee-schedule.js';
import type { PricedCurrency } from '../../../../src/quotes/domain/pricing/price-quote-input.js';
import { classifyTransaction, swapTypeOf } from '../../../../src/quotes/domain/pricing/transaction-type.js';
import { base, bnbChain, ethereum } from './fixtures.js';

const classify = (currencyIn: PricedCurrency, currencyOut: PricedCurrency, hasTxs = false) => {
  const natives: Record<number, PricedCurrency> = { 1: ethereum.ETH, 8453: base.ETH, 56: bnbChain.BNB };
  return classifyTransaction({
    currencyIn,
    currencyOut,
    originNative: natives[currencyIn.chainId],
    destinationNative: natives[currencyOut.chainId],
    hasTxs,
  });
};

describe(classifyTransaction.name, () => {
  it.each([
    ['USDC Ethereum → USDC Base', 'token-bridge', 'bridge', 'Bridge', ethereum.USDC, base.USDC],
    ['ETH Ethereum → ETH Base', 'token-bridge', 'bridge', 'Bridge', ethereum.ETH, base.ETH],
    [
      'ETH Ethereum → WETH Base (the same asset)',
      'token-bridge',
      'bridge',
      'Bridge',
      ethereum.ETH,
      base.WETH,
    ],
    [
      'USDC (6 decimals) → USDC on BNB Chain (18)',
      'token-bridge',
      'bridge',
      'Bridge',
      ethereum.USDC,
      bnbChain.USDC,
    ],
    ['ETH → WETH on Base', 'wrap-unwrap', 'wrap', 'Wrap', base.ETH, base.WETH],
    ['WETH → ETH on Base', 'wrap-unwrap', 'unwrap', 'Unwrap', base.WETH, base.ETH],
    ['USDC → USDC on Base', 'send', 'send', 'Send', base.USDC, base.USDC],
    ['USDC → USDT on Base', 'stablecoin-swap', 'swap', 'Same-chain Swap', base.USDC, base.USDT],
    ['USDC Ethereum → USDT Base', 'stablecoin-swap', 'swap', 'Crosschain Swap', ethereum.USDC, base.USDT],
    ['ETH → USDC on Base', 'major-swap', 'swap', 'Same-chain Swap', base.ETH, base.USDC],
    ['ETH Ethereum → BNB', 'major-swap', 'swap', 'Crosschain Swap', ethereum.ETH, bnbChain.BNB],
    ['UNI Ethereum → USDC Base', 'minor-swap', 'swap', 'Crosschain Swap', ethereum.UNI, base.USDC],
    ['UNI → ETH on Ethereum', 'minor-swap', 'swap', 'Same-chain Swap', ethereum.UNI, ethereum.ETH],
  ] as const)('%s is a %s (%s, %s)', (_name, type, operation, requestType, currencyIn, currencyOut) => {
    expect(classify(currencyIn, currencyOut)).toEqual({
      transactionType: type,
      operation,
      requestType,
      sameChain: currencyIn.chainId === currencyOut.chainId,
    });
  });

  it('names any request with txs a Call, whatever it moves', () => {
    expect(classify(ethereum.USDC, base.USDC, true)).toMatchObject({
      operation: 'bridge',
      requestType: 'Call',
    });
    expect(classify(base.USDC, base.USDC, true)).toMatchObject({ operation: 'send', requestType: 'Call' });
  });

  it('tells EVM addresses apart without case: a checksummed and a lower-case address are one currency', () => {
    const lower = { ...base.USDC, address: base.USDC.address.toLowerCase() };
    expect(classify(base.USDC, lower).operation).toBe('send');
  });
});

describe(swapTypeOf.name, () => {
  it('charges a stablecoin swap between any two listed stablecoins, without case', () => {
    for (const a of STABLECOINS) {
      for (const b of STABLECOINS)
        expect([a, b, swapTypeOf(a, b.toUpperCase())]).toEqual([a, b, 'stablecoin-swap']);
    }
  });

  it('charges a major swap between any two majors', () => {
    for (const a of MAJOR_ASSETS) {
      for (const b of MAJOR_ASSETS) expect([a, b, swapTypeOf(a, b)]).toEqual([a, b, 'major-swap']);
    }
    expect(swapTypeOf('wSOL', 'sol')).toBe('major-swap');
  });

  it('charges a major swap between a major and a major stablecoin, either way round', () => {
    expect(swapTypeOf('WBTC', 'USDC')).toBe('major-swap');
    expect(swapTypeOf('USDT', 'SOL')).toBe('major-swap');
    expect(swapTypeOf('DAI', 'PLUME')).toBe('major-swap');
  });

  it('charges a minor swap for every other pair', () => {
    expect(swapTypeOf('ETH', 'PYUSD')).toBe('minor-swap');
    expect(swapTypeOf('UNI', 'USDC')).toBe('minor-swap');
    expect(swapTypeOf('PEPE', 'ETH')).toBe('minor-swap');
    expect(swapTypeOf('USDC', 'EURC')).toBe('minor-swap');
  });
});

describe('the platform fee table', () => {
  it('is the spec table: bridges and wraps 0, stablecoin 1 bps, major 6, minor 15 (sends 0)', () => {
    expect(Object.fromEntries(TRANSACTION_TYPES.map((type) => [type, PLATFORM_FEE_BPS[type]]))).toEqual({
      send: 0n,
      'token-bridge': 0n,
      'wrap-unwrap': 0n,
      'stablecoin-swap': 1n,
      'major-swap': 6n,
      'minor-swap': 15n,
    });
  });

  it('lists the spec stablecoins and majors', () => {
    expect(STABLECOINS).toHaveLength(15);
    expect(MAJOR_ASSETS).toEqual(['ETH', 'WETH', 'BTC', 'WBTC', 'SOL', 'WSOL', 'POL', 'BNB', 'PLUME']);
  });
});

describe(defaultSlippageBps.name, () => {
  it('tolerates nothing where nothing is swapped', () => {
    expect(defaultSlippageBps('token-bridge', 40n)).toBe(0n);
    expect(defaultSlippageBps('wrap-unwrap', 40n)).toBe(0n);
    expect(defaultSlippageBps('send', 40n)).toBe(0n);
  });

  it('tolerates twice the swap impact on swaps, at least 50 bps and at most 10000', () => {
    expect(defaultSlippageBps('stablecoin-swap', 2n)).toBe(50n);
    expect(defaultSlippageBps('major-swap', 25n)).toBe(50n);
    expect(defaultSlippageBps('minor-swap', 40n)).toBe(80n);
    expect(defaultSlippageBps('minor-swap', 6000n)).toBe(10000n);
  });
});
