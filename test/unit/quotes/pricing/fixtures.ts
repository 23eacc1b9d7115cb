import { QuoteError } from '../../../../src/quotes/domain/quote-error.js';
import type { PricedCurrency, PriceQuoteInput } from '../../../../src/quotes/domain/pricing/index.js';

/** Priced chain currencies for the worked examples: ETH 3000 USD, BNB 600, UNI 10, every dollar stablecoin 1. */
function currency(
  chainId: number,
  symbol: string,
  address: string,
  decimals: number,
  usdPrice: string,
  flags: { isNative?: boolean; wrappedNative?: boolean } = {},
): PricedCurrency {
  return {
    chainId,
    address,
    symbol,
    name: symbol,
    decimals,
    metadata: { logoURI: '', verified: true, ...(flags.isNative ? { isNative: true } : {}) },
    supportsPermit: symbol === 'USDC',
    wrappedNative: flags.wrappedNative === true,
    usdPrice,
  };
}

const NATIVE = '0x0000000000000000000000000000000000000000';

export const ethereum = {
  ETH: currency(1, 'ETH', NATIVE, 18, '3000', { isNative: true }),
  WETH: currency(1, 'WETH', '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2', 18, '3000', {
    wrappedNative: true,
  }),
  USDC: currency(1, 'USDC', '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', 6, '1'),
  USDT: currency(1, 'USDT', '0xdAC17F958D2ee523a2206206994597C13D831ec7', 6, '1'),
  UNI: currency(1, 'UNI', '0x1f9840a85d5aF5bf1D1762F925BDADdC4201F984', 18, '10'),
};

export const base = {
  ETH: currency(8453, 'ETH', NATIVE, 18, '3000', { isNative: true }),
  WETH: currency(8453, 'WETH', '0x4200000000000000000000000000000000000006', 18, '3000', {
    wrappedNative: true,
  }),
  USDC: currency(8453, 'USDC', '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 6, '1'),
  USDT: currency(8453, 'USDT', '0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2', 6, '1'),
};

export const bnbChain = {
  BNB: currency(56, 'BNB', NATIVE, 18, '600', { isNative: true }),
  USDC: currency(56, 'USDC', '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d', 18, '1'),
};

/** Gas of the worked examples: a deposit on Ethereum costs 3 USD, a fill on Base 0.003 USD. */
export const gas = {
  ethereumDeposit: { units: 50_000n, priceWei: 20_000_000_000n, native: ethereum.ETH },
  baseFill: { units: 100_000n, priceWei: 10_000_000n, native: base.ETH },
  baseDeposit: { units: 50_000n, priceWei: 10_000_000n, native: base.ETH },
  ethereumFill: { units: 100_000n, priceWei: 20_000_000_000n, native: ethereum.ETH },
  bnbFill: { units: 100_000n, priceWei: 1_000_000_000n, native: bnbChain.BNB },
};

export const APP = '0x00000000000000000000000000000000000000a1';
export const OTHER_APP = '0x00000000000000000000000000000000000000a2';

/** 100 USDC from Ethereum to Base, EXACT_INPUT, DEX fee 5 bps and impact 10 bps configured (unused by a bridge). */
export function bridgeInput(overrides: Partial<PriceQuoteInput> = {}): PriceQuoteInput {
  return {
    tradeType: 'EXACT_INPUT',
    amount: 100_000_000n,
    currencyIn: ethereum.USDC,
    currencyOut: base.USDC,
    originGas: gas.ethereumDeposit,
    destinationGas: gas.baseFill,
    swapFeeBps: 5,
    swapImpactBps: 10,
    ...overrides,
  };
}

/** 1 ETH to USDC on Base, EXACT_INPUT, DEX fee 5 bps and impact 10 bps. */
export function sameChainSwapInput(overrides: Partial<PriceQuoteInput> = {}): PriceQuoteInput {
  return {
    tradeType: 'EXACT_INPUT',
    amount: 10n ** 18n,
    currencyIn: base.ETH,
    currencyOut: base.USDC,
    originGas: gas.baseDeposit,
    destinationGas: gas.baseFill,
    swapFeeBps: 5,
    swapImpactBps: 10,
    ...overrides,
  };
}

/** The QuoteError `price` throws (fails the test when it throws nothing or something else). */
export function quoteErrorOf(price: () => unknown): QuoteError {
  try {
    price();
  } catch (error) {
    if (error instanceof QuoteError) return error;
    throw error;
  }
  throw new Error('expected a QuoteError, nothing was thrown');
}
