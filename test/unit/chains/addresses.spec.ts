import { getAddressDecoder } from '@solana/kit';
import { randomBytes } from 'node:crypto';
import {
  assertAddress,
  assertCurrencyAddress,
  assertWalletAddress,
  decodeBase58,
  isValidAddress,
  isValidCurrencyAddress,
  isValidWalletAddress,
  normalizeAddress,
  sameAddress,
} from '../../../src/chains/addresses.js';
import type { VmType } from '../../../src/chains/chain.js';
import { QuoteError } from '../../../src/quotes/domain/quote-error.js';

const EVM = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const SVM_USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const SVM_SYSTEM = '11111111111111111111111111111111';
const PERPS_A_USDC = '0x00000000000000000000000000000000';
const PERPS_A_SPOT = '0x6d1e7cde53ba9467b783cb7c530ce054';

describe(isValidWalletAddress.name, () => {
  it.each<[VmType, string, boolean]>([
    ['evm', EVM, true],
    ['evm', EVM.toLowerCase(), true],
    ['evm', EVM.toUpperCase().replace('0X', '0x'), true],
    // A wrong checksum is still accepted as input: the spec's pattern is ^0x[a-fA-F0-9]{40}$.
    ['evm', '0x833589FCD6eDb6E08f4c7C32D4f71b54bdA02913', true],
    ['evm', EVM.slice(0, 41), false],
    ['evm', `${EVM}00`, false],
    ['evm', EVM.slice(2), false],
    ['evm', '0xZ33589fCD6eDb6E08f4c7C32D4f71b54bdA02913', false],
    ['evm', SVM_USDC, false],
    ['evm', '', false],
    ['svm', SVM_USDC, true],
    ['svm', SVM_SYSTEM, true],
    ['svm', 'So11111111111111111111111111111111111111112', true],
    ['svm', 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB', true],
    ['svm', SVM_USDC.toLowerCase(), false],
    // Case matters: the uppercase spelling is another valid key, not the USDC mint (see sameAddress).
    ['svm', SVM_USDC.toUpperCase(), true],
    ['svm', 'EPjFWdd5AufqSSqeM2qyRJ8kM6k1Mr1Jwg7fK1eB1v', false],
    ['svm', `${SVM_USDC}1`, false],
    ['svm', SVM_USDC.slice(0, 31), false],
    ['svm', SVM_USDC.replace('E', '0'), false],
    ['svm', SVM_USDC.replace('E', 'O'), false],
    ['svm', SVM_USDC.replace('E', 'I'), false],
    ['svm', SVM_USDC.replace('E', 'l'), false],
    ['svm', EVM, false],
    ['svm', '1'.repeat(33), false],
    ['perps-a', EVM, true],
    ['perps-a', EVM.toLowerCase(), true],
    ['perps-a', PERPS_A_SPOT, false],
    ['perps-a', SVM_USDC, false],
    ['perps-b', '0', true],
    ['perps-b', '281474976710655', true],
    ['perps-b', '18446744073709551615', true],
    ['perps-b', '18446744073709551616', false],
    ['perps-b', '007', false],
    ['perps-b', '-1', false],
    ['perps-b', '1.5', false],
    ['perps-b', ' 12', false],
    ['perps-b', '', false],
    ['perps-b', EVM, false],
  ])('%s wallet %j → %s', (vmType, address, valid) => {
    expect(isValidWalletAddress(vmType, address)).toBe(valid);
    expect(isValidAddress(vmType, address)).toBe(valid);
  });
});

describe(isValidCurrencyAddress.name, () => {
  it.each<[VmType, string, boolean]>([
    ['evm', '0x0000000000000000000000000000000000000000', true],
    ['evm', EVM, true],
    ['evm', PERPS_A_USDC, false],
    ['svm', SVM_USDC, true],
    ['svm', SVM_USDC.toLowerCase(), false],
    ['perps-a', PERPS_A_USDC, true],
    ['perps-a', PERPS_A_SPOT, true],
    ['perps-a', PERPS_A_SPOT.toUpperCase().replace('0X', '0x'), true],
    // A third-party DEX currency: the spot token id followed by the hex of the DEX name ("xyz").
    ['perps-a', `${PERPS_A_SPOT}78797a`, true],
    ['perps-a', `${PERPS_A_SPOT}78797`, false],
    ['perps-a', `${PERPS_A_SPOT}${'61'.repeat(65)}`, false],
    ['perps-a', PERPS_A_SPOT.slice(0, 33), false],
    ['perps-a', PERPS_A_SPOT.slice(2), false],
    ['perps-a', EVM, true],
    ['perps-a', '0x0000000000000000000000000000000g', false],
    ['perps-b', '0', true],
    ['perps-b', '3', true],
    ['perps-b', '00', false],
    ['perps-b', 'USDC', false],
  ])('%s currency %j → %s', (vmType, address, valid) => {
    expect(isValidCurrencyAddress(vmType, address)).toBe(valid);
    expect(isValidAddress(vmType, address, 'currency')).toBe(valid);
  });
});

describe(decodeBase58.name, () => {
  it('agrees with @solana/kit on random keys, including leading zero bytes', () => {
    for (let i = 0; i < 200; i++) {
      const bytes = randomBytes(32);
      if (i % 10 === 0) bytes.fill(0, 0, i % 7);
      const text = getAddressDecoder().decode(bytes);
      expect(Buffer.from(decodeBase58(text) as Uint8Array).equals(bytes)).toBe(true);
    }
  });

  it('answers null outside the alphabet', () => {
    expect(decodeBase58('abc0')).toBeNull();
    expect(decodeBase58('')).toEqual(new Uint8Array());
  });
});

describe(normalizeAddress.name, () => {
  it('checksums EVM addresses, lowercases perps exchange A token ids and keeps SVM and perps B exact', () => {
    expect(normalizeAddress('evm', EVM.toLowerCase())).toBe(EVM);
    expect(normalizeAddress('perps-a', EVM.toLowerCase())).toBe(EVM);
    expect(normalizeAddress('perps-a', PERPS_A_SPOT.toUpperCase().replace('0X', '0x'), 'currency')).toBe(
      PERPS_A_SPOT,
    );
    expect(normalizeAddress('svm', SVM_USDC)).toBe(SVM_USDC);
    expect(normalizeAddress('perps-b', '42')).toBe('42');
  });
});

describe(sameAddress.name, () => {
  it.each<[VmType, string, string, boolean]>([
    ['evm', EVM, EVM.toLowerCase(), true],
    ['evm', EVM, '0x0000000000000000000000000000000000000000', false],
    ['perps-a', PERPS_A_SPOT, PERPS_A_SPOT.toUpperCase().replace('0X', '0x'), true],
    ['svm', SVM_USDC, SVM_USDC, true],
    ['svm', SVM_USDC, SVM_USDC.toLowerCase(), false],
    ['svm', SVM_USDC, SVM_USDC.toUpperCase(), false],
    ['perps-b', '12', '12', true],
    ['perps-b', '12', '012', false],
  ])('%s %s vs %s → %s', (vmType, a, b, same) => {
    expect(sameAddress(vmType, a, b)).toBe(same);
  });
});

describe(assertAddress.name, () => {
  function thrown(run: () => unknown): QuoteError {
    try {
      run();
    } catch (error) {
      return error as QuoteError;
    }
    throw new Error('did not throw');
  }

  it('returns the normalised address when it is valid', () => {
    expect(assertWalletAddress('evm', EVM.toLowerCase(), 'user')).toBe(EVM);
    expect(assertCurrencyAddress('svm', SVM_USDC, 'originCurrency', 792703809)).toBe(SVM_USDC);
    expect(assertAddress('perps-b', '7', 'recipient')).toBe('7');
  });

  it('rejects an EVM recipient on the SVM chain with INVALID_ADDRESS naming the field and chain', () => {
    const error = thrown(() => assertWalletAddress('svm', EVM, 'recipient', 792703809));
    expect(error).toBeInstanceOf(QuoteError);
    expect(error.errorCode).toBe('INVALID_ADDRESS');
    expect(error.message).toBe(
      'recipient must be an SVM address (base58 of 32 bytes, case-sensitive) on chain 792703809',
    );
    expect(error.errorData).toEqual({ field: 'recipient', chainId: 792703809, address: EVM });
  });

  it('rejects a wallet address where a perps exchange B account index is needed, and non-strings', () => {
    expect(thrown(() => assertWalletAddress('perps-b', EVM, 'user', 3586256)).errorData).toEqual({
      field: 'user',
      chainId: 3586256,
      address: EVM,
    });
    const error = thrown(() => assertCurrencyAddress('perps-a', 42, 'destinationCurrency'));
    expect(error.message).toContain('perps exchange A token id');
    expect(error.errorData).toEqual({ field: 'destinationCurrency', address: null });
  });
});
