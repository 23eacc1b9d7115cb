import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { getAddress } from 'viem';
import {
  ChainRegistry,
  type ChainsFile,
  type ChainsFileChain,
  type ChainsFileCurrency,
  DEVNET_ADDRESSES_FILE,
  loadChainRegistry,
  withoutCredentials,
} from '../../../src/chains/chain-registry.js';
import { QuoteError } from '../../../src/quotes/domain/quote-error.js';
import { configError } from '../../support/config-error.js';

const configs = resolve('configs');
const SPEC_CHAINS = [1337, 999, 3586256, 792703809];
const DEVNETS = [31337, 31338];
/** The variables production requires (depositories and solvers); RPC URLs are optional. */
const PRODUCTION_ENV = {
  EVM_DEPOSITORY_ADDRESS: '0x1111111111111111111111111111111111111111',
  EVM_SOLVER_ADDRESS: '0x2222222222222222222222222222222222222222',
  PERPS_A_DEPOSITORY_ADDRESS: '0x3333333333333333333333333333333333333333',
  PERPS_A_SOLVER_ADDRESS: '0x4444444444444444444444444444444444444444',
  PERPS_B_DEPOSITORY_ACCOUNT: '281474976710654',
  PERPS_B_SOLVER_ACCOUNT: '281474976710655',
  SVM_DEPOSITORY_ADDRESS: '5jELfm4RK7sDjFNNPobrrxpYtubkQ1aFPDQ2dWKUsKRn',
  SVM_SOLVER_ADDRESS: '88pCz2q7gEY6FCHtGUJaikoEJ4hfCz3CHUHvqHgojA8G',
};
const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

function currency(overrides: Partial<ChainsFileCurrency> = {}): ChainsFileCurrency {
  return {
    address: USDC_BASE,
    symbol: 'USDC',
    name: 'USD Coin',
    decimals: 6,
    metadata: { logoURI: '', verified: true },
    supportsPermit: true,
    eip712: { name: 'USD Coin', version: '2' },
    ...overrides,
  };
}

function evmChain(overrides: Partial<ChainsFileChain> = {}): ChainsFileChain {
  return {
    id: 8453,
    name: 'base',
    displayName: 'Base',
    vmType: 'evm',
    rpcUrl: '',
    depository: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    solver: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    depositEnabled: true,
    finality: { blocks: 1, seconds: 2 },
    timeEstimateSeconds: 6,
    gas: { defaultPriceWei: '1000', depositUnits: '60000', erc20DepositUnits: '90000', fillUnits: '80000' },
    nativeCurrency: {
      address: '0x0000000000000000000000000000000000000000',
      symbol: 'ETH',
      name: 'Ether',
      decimals: 18,
      metadata: { logoURI: '', verified: true, isNative: true },
    },
    currencies: [
      {
        address: '0x4200000000000000000000000000000000000006',
        symbol: 'WETH',
        name: 'Wrapped Ether',
        decimals: 18,
        metadata: { logoURI: '', verified: true },
        wrappedNative: true,
      },
      currency(),
    ],
    ...overrides,
  };
}

function registry(...chains: ChainsFileChain[]): ChainRegistry {
  return new ChainRegistry({ chains }, { source: 'chains.test.json' });
}

function quoteError(run: () => unknown): QuoteError {
  try {
    run();
  } catch (error) {
    if (error instanceof QuoteError) return error;
    throw error;
  }
  throw new Error('no QuoteError');
}

describe(loadChainRegistry.name, () => {
  it.each([
    ['development', {}],
    ['test', {}],
    ['production', PRODUCTION_ENV],
  ])('parses configs/chains.%s.json with unique ids and names', (environment, env) => {
    const sut = loadChainRegistry(env, environment, configs);
    const chains = sut.all();
    expect(new Set(chains.map((chain) => chain.id)).size).toBe(chains.length);
    expect(new Set(chains.map((chain) => chain.name)).size).toBe(chains.length);
    expect(chains.map((chain) => chain.id)).toEqual(expect.arrayContaining(SPEC_CHAINS));
    for (const chain of chains) {
      expect(chain.currencies[0]).toBe(chain.nativeCurrency);
      expect(chain.nativeCurrency.metadata.isNative).toBe(true);
      expect(chain.currencies.every((each) => each.chainId === chain.id)).toBe(true);
    }
  });

  it('lists the two devnets (never 1337) in development and test, with their RPC defaults and variables', () => {
    for (const environment of ['development', 'test']) {
      const sut = loadChainRegistry({}, environment, configs);
      expect(sut.all().map((chain) => chain.id)).toEqual(expect.arrayContaining(DEVNETS));
      expect(sut.chain(31337)).toMatchObject({
        vmType: 'evm',
        rpcUrl: 'http://127.0.0.1:8545',
        rpcUrlVariable: 'DEVNET_A_RPC_URL',
        finality: { blocks: 1 },
      });
      expect(sut.chain(31338).rpcUrl).toBe('http://127.0.0.1:8546');
      expect(sut.chain(1337).vmType).toBe('perps-a');
      for (const id of DEVNETS) {
        expect(sut.wrappedNative(id)?.symbol).toBe('WETH');
        expect(sut.currency(id, '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512')).toMatchObject({
          symbol: 'USDC',
          decimals: 6,
          supportsPermit: true,
          eip712: { name: 'USD Coin', version: '2' },
        });
      }
    }
  });

  it('leaves the spec chains without RPC unless their variable is set, and names that variable', () => {
    const sut = loadChainRegistry({ RPC_URL_999: 'https://node.example/evm' }, 'development', configs);
    expect(sut.chain(792703809)).toMatchObject({ rpcUrl: null, rpcUrlVariable: 'RPC_URL_792703809' });
    expect(sut.chain(999)).toMatchObject({
      rpcUrl: 'https://node.example/evm',
      rpcUrlVariable: 'RPC_URL_999',
    });
    expect(
      loadChainRegistry({ DEVNET_A_RPC_URL: 'http://10.0.0.5:9545' }, 'test', configs).chain(31337).rpcUrl,
    ).toBe('http://10.0.0.5:9545');
  });

  it('carries the spec currencies of the perps exchanges and the SVM chain', () => {
    const sut = loadChainRegistry({}, 'development', configs);
    expect(sut.nativeCurrency(1337)).toMatchObject({
      address: '0x00000000000000000000000000000000',
      decimals: 8,
    });
    expect(sut.nativeCurrency(3586256)).toMatchObject({ address: '0', symbol: 'USDC (Perp)', decimals: 6 });
    expect(sut.nativeCurrency(792703809)).toMatchObject({
      address: '11111111111111111111111111111111',
      symbol: 'SOL',
      decimals: 9,
    });
    expect(sut.wrappedNative(792703809)?.address).toBe('So11111111111111111111111111111111111111112');
    expect(sut.wrappedNative(1337)).toBeNull();
    const decimals = Object.fromEntries(
      sut.chain(792703809).currencies.map((each) => [each.symbol, each.decimals]),
    );
    expect(decimals).toEqual({ SOL: 9, WSOL: 9, USDC: 6, USDT: 6 });
  });

  it('requires the production depositories and solvers, naming the variable', () => {
    const { EVM_DEPOSITORY_ADDRESS: _unset, ...env } = PRODUCTION_ENV;
    expect(configError(() => loadChainRegistry(env, 'production', configs)).variable).toBe(
      'EVM_DEPOSITORY_ADDRESS',
    );
    const error = configError(() =>
      loadChainRegistry({ ...PRODUCTION_ENV, SVM_SOLVER_ADDRESS: '0xabc' }, 'production', configs),
    );
    expect(error.variable).toBe('SVM_SOLVER_ADDRESS');
    expect(error.message).toMatch(
      /^Invalid configuration: SVM_SOLVER_ADDRESS must be an SVM address .* on chain 792703809 \(svm\) \(.*chains\.production\.json: chains\[\d+\]\.solver\)$/,
    );
  });

  it('names a malformed RPC variable without echoing its value (it may hold a key)', () => {
    const error = configError(() =>
      loadChainRegistry({ ...PRODUCTION_ENV, RPC_URL_8453: 'not a url secret-key' }, 'production', configs),
    );
    expect(error.variable).toBe('RPC_URL_8453');
    expect(error.message).toContain('must be a URL (http:// or https://), on chain 8453 (base)');
    expect(error.message).not.toContain('secret-key');
  });

  it('keeps production RPC URLs private: GET /chains shows the declared public endpoint', () => {
    const sut = loadChainRegistry(
      { ...PRODUCTION_ENV, RPC_URL_8453: 'https://base.provider.example/v2/secret-key' },
      'production',
      configs,
    );
    expect(sut.chain(8453).rpcUrl).toBe('https://base.provider.example/v2/secret-key');
    expect(sut.publicRpcUrl(8453)).toBe('https://mainnet.base.org');
    expect(sut.publicRpcUrl(1337)).toBeNull();
  });

  it('uses real mainnet tokens with valid checksums and an EIP-712 domain on every permit token', () => {
    const sut = loadChainRegistry(PRODUCTION_ENV, 'production', configs);
    expect(sut.currency(8453, USDC_BASE.toLowerCase()).address).toBe(USDC_BASE);
    expect(sut.currency(1, '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48').symbol).toBe('USDC');
    expect(sut.wrappedNative(137)?.symbol).toBe('WPOL');
    expect(sut.currency(56, '0x8ac76a51cc950d9822d68b83fe1ad97b32cd580d').decimals).toBe(18);
    const raw = readFileSync(join(configs, 'chains.production.json'), 'utf8');
    for (const address of raw.match(/0x[0-9a-fA-F]{40}\b/g) ?? []) {
      if (address !== address.toLowerCase()) expect(getAddress(address)).toBe(address);
    }
    for (const chain of sut.all()) {
      for (const each of chain.currencies) expect(each.supportsPermit).toBe(each.eip712 !== undefined);
    }
  });

  it('applies configs/devnet.addresses.json in development only, reporting bad values against it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-chains-'));
    for (const environment of ['development', 'test']) {
      writeFileSync(
        join(dir, `chains.${environment}.json`),
        readFileSync(join(configs, `chains.${environment}.json`)),
      );
    }
    const usdc = '0xcf7ed3acca5a467e9e704c703e8d87f634fb0fc9';
    writeFileSync(
      join(dir, DEVNET_ADDRESSES_FILE),
      JSON.stringify({
        chains: {
          '31338': { depository: '0xDc64a140Aa3E981100a9becA4E685f962f0cF6C9', currencies: { USDC: usdc } },
        },
      }),
    );
    const sut = loadChainRegistry({}, 'development', dir);
    expect(sut.chain(31338).depository).toBe('0xDc64a140Aa3E981100a9becA4E685f962f0cF6C9');
    expect(sut.currency(31338, usdc).address).toBe(getAddress(usdc));
    expect(sut.chain(31337).depository).toBe('0x5FbDB2315678afecb367f032d93F642f64180aa3');
    expect(loadChainRegistry({}, 'test', dir).chain(31338).depository).toBe(
      '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    );

    writeFileSync(
      join(dir, DEVNET_ADDRESSES_FILE),
      JSON.stringify({ chains: { '31337': { solver: 'nope' } } }),
    );
    const bad = configError(() => loadChainRegistry({}, 'development', dir));
    expect(bad.variable).toBe(`${join(dir, DEVNET_ADDRESSES_FILE)}: chains.31337.solver`);
    expect(bad.message).toContain('must be an EVM address');

    writeFileSync(join(dir, DEVNET_ADDRESSES_FILE), JSON.stringify({ chains: { '5': { solver: 'nope' } } }));
    expect(configError(() => loadChainRegistry({}, 'development', dir)).message).toContain(
      'chains.5 names no chain of the chains file',
    );
  });

  it('stops when the environment has no chains file', () => {
    expect(configError(() => loadChainRegistry({}, 'nowhere', configs)).message).toMatch(
      /ENVIRONMENT is "nowhere" but .*chains\.nowhere\.json does not exist/,
    );
  });
});

describe(ChainRegistry.name, () => {
  const svmChain = evmChain({
    id: 792703809,
    name: 'svm',
    displayName: 'SVM Chain',
    vmType: 'svm',
    depository: '5jELfm4RK7sDjFNNPobrrxpYtubkQ1aFPDQ2dWKUsKRn',
    solver: '88pCz2q7gEY6FCHtGUJaikoEJ4hfCz3CHUHvqHgojA8G',
    nativeCurrency: {
      address: '11111111111111111111111111111111',
      symbol: 'SOL',
      name: 'SOL',
      decimals: 9,
      metadata: { logoURI: '', verified: true },
    },
    currencies: [
      currency({
        address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
        supportsPermit: false,
        eip712: undefined,
      }),
    ],
  });
  const perpsA = evmChain({
    id: 1337,
    name: 'perps-a',
    vmType: 'perps-a',
    nativeCurrency: {
      address: '0x00000000000000000000000000000000',
      symbol: 'USDC',
      name: 'USDC (Perps)',
      decimals: 8,
      metadata: { logoURI: '', verified: true },
    },
    currencies: [
      currency({ address: '0x6D1E7CDE53BA9467B783CB7C530CE054', supportsPermit: false, eip712: undefined }),
    ],
  });
  const perpsB = evmChain({
    id: 3586256,
    name: 'perps-b',
    vmType: 'perps-b',
    depository: '1001',
    solver: '1002',
    nativeCurrency: {
      address: '0',
      symbol: 'USDC (Perp)',
      name: 'USDC (Perp)',
      decimals: 6,
      metadata: { logoURI: '', verified: true },
    },
    currencies: [],
  });
  const sut = registry(evmChain(), svmChain, perpsA, perpsB);

  it('finds chains and answers UNSUPPORTED_CHAIN with the chain id for others', () => {
    expect(sut.chain(8453).displayName).toBe('Base');
    expect(sut.find(8453)?.id).toBe(8453);
    expect(sut.find(1)).toBeUndefined();
    const error = quoteError(() => sut.chain(1));
    expect(error.errorCode).toBe('UNSUPPORTED_CHAIN');
    expect(error.errorData).toEqual({ chainId: 1 });
    expect(quoteError(() => sut.currency(1, USDC_BASE)).errorCode).toBe('UNSUPPORTED_CHAIN');
  });

  it('matches EVM currencies case-insensitively and returns them checksummed', () => {
    expect(sut.currency(8453, USDC_BASE.toLowerCase()).address).toBe(USDC_BASE);
    expect(sut.currency(8453, '0x0000000000000000000000000000000000000000')).toBe(sut.nativeCurrency(8453));
    expect(sut.wrappedNative(8453)?.address).toBe('0x4200000000000000000000000000000000000006');
  });

  it('matches SVM currencies exactly: another case is another (unsupported) mint', () => {
    expect(sut.currency(792703809, 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v').symbol).toBe('USDC');
    const error = quoteError(() => sut.currency(792703809, 'epjfwdd5aufqssqem2qn1xzybapc8g4wegggkzwytdt1v'));
    expect(error.errorCode).toBe('UNSUPPORTED_CURRENCY');
    expect(error.errorData).toEqual({
      chainId: 792703809,
      currency: 'epjfwdd5aufqssqem2qn1xzybapc8g4wegggkzwytdt1v',
    });
  });

  it('matches perps exchange A token ids in any case (stored lowercase) and perps exchange B ids exactly', () => {
    expect(sut.currency(1337, '0x6d1e7cde53ba9467b783cb7c530ce054').address).toBe(
      '0x6d1e7cde53ba9467b783cb7c530ce054',
    );
    expect(sut.currency(1337, '0x00000000000000000000000000000000').name).toBe('USDC (Perps)');
    expect(sut.currency(3586256, '0').symbol).toBe('USDC (Perp)');
    expect(quoteError(() => sut.currency(3586256, '00')).errorCode).toBe('UNSUPPORTED_CURRENCY');
    expect(sut.findCurrency(3586256, '3')).toBeUndefined();
  });

  it('accepts numbers and booleans as strings (placeholders resolve to text)', () => {
    const chain = registry(
      evmChain({ id: '10', depositEnabled: 'false', finality: { blocks: '12', seconds: '24' } }),
    ).chain(10);
    expect(chain).toMatchObject({ id: 10, depositEnabled: false, finality: { blocks: 12, seconds: 24 } });
  });

  it('shows RPC URLs without credentials unless publicRpcUrl is declared', () => {
    const withKey = registry(evmChain({ rpcUrl: 'https://user:pass@rpc.example:8443/path?key=secret#x' }));
    expect(withKey.publicRpcUrl(8453)).toBe('https://rpc.example:8443/path');
    const declared = registry(evmChain({ rpcUrl: 'https://rpc.example/v2/secret', publicRpcUrl: '' }));
    expect(declared.publicRpcUrl(8453)).toBeNull();
    expect(withoutCredentials('http://127.0.0.1:8545')).toBe('http://127.0.0.1:8545');
    expect(withoutCredentials('http://127.0.0.1:8545/')).toBe('http://127.0.0.1:8545/');
    expect(withoutCredentials('wss://a:b@ws.example/ws?token=1')).toBe('wss://ws.example/ws');
  });

  const WETH = evmChain().currencies[0];
  it.each<[string, ChainsFile, RegExp]>([
    [
      'a duplicate chain id',
      { chains: [evmChain(), evmChain({ name: 'base-2' })] },
      /chains\.test\.json: chains\[1\]\.id duplicates chains\[0\]\.id \(8453\), on chain 8453 \(base-2\)$/,
    ],
    [
      'a duplicate chain name',
      { chains: [evmChain(), evmChain({ id: 10 })] },
      /chains\[1\]\.name duplicates chains\[0\]\.name \(base\)/,
    ],
    [
      'an unknown vmType',
      { chains: [evmChain({ vmType: 'bvm' })] },
      /chains\[0\]\.vmType must be one of evm, svm, perps-a, perps-b \(got "bvm"\), on chain 8453 \(base\)$/,
    ],
    [
      'an SVM address on an EVM chain',
      { chains: [evmChain({ depository: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' })] },
      /chains\[0\]\.depository must be an EVM address \(0x and 40 hex digits\) \(got "EPjF.*"\), on chain 8453/,
    ],
    [
      'a mistyped checksum',
      {
        chains: [
          evmChain({ currencies: [currency({ address: '0x833589FCD6eDb6E08f4c7C32D4f71b54bdA02913' })] }),
        ],
      },
      /chains\[0\]\.currencies\[0\]\.address has a wrong EIP-55 checksum/,
    ],
    [
      'decimals out of range',
      { chains: [evmChain({ currencies: [currency({ decimals: 77 })] })] },
      /chains\[0\]\.currencies\[0\]\.decimals must be between 0 and 36 \(got 77\), on chain 8453 \(base\)$/,
    ],
    [
      'a lowercase SVM mint (another key)',
      {
        chains: [
          evmChain({
            vmType: 'svm',
            depository: '5jELfm4RK7sDjFNNPobrrxpYtubkQ1aFPDQ2dWKUsKRn',
            solver: '5jELfm4RK7sDjFNNPobrrxpYtubkQ1aFPDQ2dWKUsKRn',
            nativeCurrency: {
              ...evmChain().nativeCurrency,
              address: '5jelfm4rk7sdjfnnpobrrxpytubkq1afpdq2dwkusKRn',
            },
          }),
        ],
      },
      /chains\[0\]\.nativeCurrency\.address must be an SVM address/,
    ],
    [
      'a currency listed twice',
      { chains: [evmChain({ currencies: [currency(), currency({ address: USDC_BASE.toLowerCase() })] })] },
      /chains\[0\]\.currencies\[1\]\.address lists 0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913 twice/,
    ],
    [
      'two wrapped natives',
      { chains: [evmChain({ currencies: [WETH, { ...WETH, address: USDC_BASE, symbol: 'WETH2' }] })] },
      /chains\[0\]\.currencies\[1\]\.wrappedNative is set on a second currency/,
    ],
    [
      'a permit token without its EIP-712 domain',
      { chains: [evmChain({ currencies: [currency({ eip712: undefined })] })] },
      /chains\[0\]\.currencies\[0\]\.eip712 is required when supportsPermit is true/,
    ],
    [
      'a currency of another chain',
      { chains: [evmChain({ currencies: [currency({ chainId: 1 })] })] },
      /chains\[0\]\.currencies\[0\]\.chainId must be the chain's id 8453/,
    ],
    [
      'an EVM native currency that is not the zero address',
      { chains: [evmChain({ nativeCurrency: { ...evmChain().nativeCurrency, address: USDC_BASE } })] },
      /chains\[0\]\.nativeCurrency\.address must be 0x0{40} on an EVM chain/,
    ],
    [
      'a misspelt field',
      { chains: [{ ...evmChain(), depositEnable: true } as unknown as ChainsFileChain] },
      /chains\[0\]\.depositEnable is not a known field/,
    ],
    [
      'a websocket URL that is not ws',
      { chains: [evmChain({ wsRpcUrl: 'http://rpc.example' })] },
      /chains\[0\]\.wsRpcUrl must be a URL \(ws:\/\/ or wss:\/\/\)/,
    ],
    [
      'a gas default that is not an integer',
      { chains: [evmChain({ gas: { ...evmChain().gas, fillUnits: '1.5' } })] },
      /chains\[0\]\.gas\.fillUnits must be a non-negative integer string \(got "1\.5"\)/,
    ],
    ['no chains', { chains: [] }, /chains\.test\.json: chains must list at least one chain$/],
  ])('rejects %s with a ConfigError naming the chain and field', (_case, file, message) => {
    const error = configError(() => new ChainRegistry(file, { source: 'chains.test.json' }));
    expect(error.message).toMatch(/^Invalid configuration: chains\.test\.json: /);
    expect(error.message).toMatch(message);
  });
});
