import { assertDepositAddressEligible } from '../../../../src/quotes/domain/steps/deposit-address-eligibility.js';
import { chain, currency, evmNative, expectQuoteError } from './fixtures.js';

const FACTORY = '0xa513E6E4b8f2a923D98304ec87F64353C4D5C853';
const origin = chain({ depositAddressFactory: FACTORY });
const destination = chain({ id: 31338, depositAddressFactory: FACTORY });
const nativeBridge = {
  origin,
  destination,
  currencyIn: evmNative,
  currencyOut: evmNative,
  requestType: 'Bridge',
};

describe(assertDepositAddressEligible.name, () => {
  it('accepts a native-currency bridge from an EVM chain with a factory', () => {
    expect(() => assertDepositAddressEligible(nativeBridge)).not.toThrow();
  });

  it.each([
    ['an ERC-20 bridge', { currencyIn: currency(), currencyOut: currency() }],
    ['a swap to a token', { currencyOut: currency(), requestType: 'Crosschain Swap' }],
    ['a bridge with destination calls', { requestType: 'Call' }],
    ['another native currency', { currencyOut: { ...evmNative, symbol: 'BNB' } }],
  ])('refuses %s (not-native-bridge)', (_, overrides) => {
    expectQuoteError(
      () => assertDepositAddressEligible({ ...nativeBridge, ...overrides }),
      'DEPOSIT_ADDRESS_UNAVAILABLE',
      { option: 'useDepositAddress', reason: 'not-native-bridge' },
    );
  });

  it('refuses an origin chain without a factory (no-factory) and a non-EVM origin (origin-not-evm)', () => {
    expectQuoteError(
      () => assertDepositAddressEligible({ ...nativeBridge, origin: chain() }),
      'DEPOSIT_ADDRESS_UNAVAILABLE',
      { reason: 'no-factory' },
    );
    expectQuoteError(
      () => assertDepositAddressEligible({ ...nativeBridge, origin: chain({ vmType: 'svm' }) }),
      'DEPOSIT_ADDRESS_UNAVAILABLE',
      { reason: 'origin-not-evm' },
    );
  });
});
