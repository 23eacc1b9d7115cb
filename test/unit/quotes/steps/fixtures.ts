import { type Hex, zeroAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { ChainCurrency, ChainInfo } from '../../../../src/chains/chain.js';

/** Well-known development keys (Hardhat accounts #1 and #2): never funded outside local chains. */
export const userAccount = privateKeyToAccount(
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
);
export const otherAccount = privateKeyToAccount(
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
);

export const requestId: Hex = `0x${'5a'.repeat(32)}`;
export const otherRequestId: Hex = `0x${'a5'.repeat(32)}`;

export const DEPOSITORY = '0x1111111111111111111111111111111111111111';
export const SOLVER = '0x2222222222222222222222222222222222222222';
export const USDC = '0x3333333333333333333333333333333333333333';

export function currency(overrides: Partial<ChainCurrency> = {}): ChainCurrency {
  return {
    chainId: 31337,
    address: USDC,
    symbol: 'USDC',
    name: 'USD Coin',
    decimals: 6,
    metadata: { logoURI: '', verified: true },
    supportsPermit: true,
    wrappedNative: false,
    eip712: { name: 'USD Coin', version: '2' },
    ...overrides,
  };
}

export const evmNative = currency({
  address: zeroAddress,
  symbol: 'ETH',
  name: 'Ether',
  decimals: 18,
  metadata: { logoURI: '', verified: true, isNative: true },
  supportsPermit: false,
  eip712: undefined,
});

export function chain(overrides: Partial<ChainInfo> = {}): ChainInfo {
  return {
    id: 31337,
    name: 'devnet-a',
    displayName: 'Devnet A',
    vmType: 'evm',
    rpcUrl: null,
    rpcUrlVariable: null,
    wsRpcUrl: null,
    explorerUrl: null,
    depository: DEPOSITORY,
    solver: SOLVER,
    depositEnabled: true,
    finality: { blocks: 1, seconds: 1 },
    timeEstimateSeconds: 10,
    gas: { defaultPriceWei: '1', depositUnits: '1', erc20DepositUnits: '1', fillUnits: '1' },
    nativeCurrency: evmNative,
    currencies: [evmNative, currency()],
    ...overrides,
  };
}

/** Fixed SVM keys for the tests (the ed25519 public keys of the seeds 0x01…, 0x02…, 0x03…). */
export const svmUser = 'AKnL4NNf3DGWZJS6cPknBuEGnVsV4A4m5tgebLHaRSZ9';
export const svmDepository = '9hSR6S7WPtxmTojgo6GG3k4yDPecgJY292j7xrsUGWBu';
export const recentBlockhash = 'GyGKxMyg1p9SsHfm15MkNUu1u9TN2JtTspcdmrtGUdse';
export const SVM_USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGPkZwyTDt1v';

/** `expect(fn).toThrow` for a QuoteError with this code (and errorData containing `data`). */
export function expectQuoteError(fn: () => unknown, errorCode: string, data?: Record<string, unknown>) {
  try {
    fn();
  } catch (error) {
    expect(error).toMatchObject({ name: 'QuoteError', errorCode, ...(data && { errorData: data }) });
    return;
  }
  throw new Error(`Expected a QuoteError ${errorCode}`);
}

export async function expectQuoteErrorAsync(
  promise: Promise<unknown>,
  errorCode: string,
  data?: Record<string, unknown>,
) {
  await expect(promise).rejects.toMatchObject({
    name: 'QuoteError',
    errorCode,
    ...(data && { errorData: expect.objectContaining(data) as unknown }),
  });
}
