import type { GasPrice } from '../../../src/chains/chain-reader.js';
import { QuoteError } from '../../../src/quotes/domain/quote-error.js';
import { refuseUnreadGasPrice } from '../../../src/quotes/quote-guards.js';
import { chain } from './steps/fixtures.js';

const read: GasPrice = { priceWei: 2_000_000_000n, source: 'rpc' };
const failed: GasPrice = { priceWei: 1_000_000_000n, source: 'default', unavailable: 'rpc-failed' };
const unconfigured: GasPrice = { priceWei: 1_000_000_000n, source: 'default', unavailable: 'not-configured' };
const notRead: GasPrice = { priceWei: 0n, source: 'default' };

describe(refuseUnreadGasPrice.name, () => {
  const devnet = chain();

  it('refuses in production a gas price that is the default because the chain could not be read', () => {
    for (const gas of [failed, unconfigured]) {
      let refusal: unknown;
      try {
        refuseUnreadGasPrice(gas, devnet, 'production');
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toBeInstanceOf(QuoteError);
      expect(refusal).toMatchObject({
        errorCode: 'CHAIN_RPC_UNAVAILABLE',
        errorData: { chainId: devnet.id, reason: gas.unavailable },
      });
    }
  });

  it('lets through a price read from the chain, a chain whose gas is not read, and other environments', () => {
    expect(() => refuseUnreadGasPrice(read, devnet, 'production')).not.toThrow();
    expect(() => refuseUnreadGasPrice(notRead, chain({ vmType: 'svm' }), 'production')).not.toThrow();
    for (const environment of ['development', 'test']) {
      expect(() => refuseUnreadGasPrice(failed, devnet, environment)).not.toThrow();
    }
  });

  it('refuses in every environment a chain whose RPC serves another chain', () => {
    const wrongChain: GasPrice = { priceWei: 1_000_000_000n, source: 'default', unavailable: 'wrong-chain' };
    for (const environment of ['production', 'development', 'test']) {
      expect(() => refuseUnreadGasPrice(wrongChain, devnet, environment)).toThrow(
        expect.objectContaining({
          errorCode: 'CHAIN_RPC_UNAVAILABLE',
          errorData: { chainId: devnet.id, reason: 'wrong-chain' },
        }),
      );
    }
  });
});
