import { getAddress } from 'viem';
import { QuoteError } from '../quotes/domain/quote-error.js';
import type { VmType } from './chain.js';

/**
 * Address formats per VM type (docs/chains.md, "Address formats"). Pure: no RPC, no registry.
 *
 * Each VM has two kinds of address: a **wallet** (a user, recipient, depository or solver account) and a
 * **currency** (a token). They differ on the perps exchanges: on perps exchange A wallets are EVM addresses while
 * currencies are 16-byte token ids; on perps exchange B wallets are numeric account indexes and currencies are
 * numeric asset ids.
 */
export type AddressRole = 'wallet' | 'currency';

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** A 16-byte token id, optionally followed by the hex of a DEX name (1 to 64 bytes, so even length). */
const PERPS_A_CURRENCY = /^0x[0-9a-fA-F]{32}(?:[0-9a-fA-F]{2}){0,64}$/;
/** Canonical decimal (no leading zeros, so one account has one spelling and exact comparison is safe). */
const DECIMAL_INDEX = /^(?:0|[1-9][0-9]{0,19})$/;
const UINT64_MAX = 2n ** 64n - 1n;

const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BASE58_DIGITS = new Map([...BASE58_ALPHABET].map((char, digit) => [char, BigInt(digit)]));
/** 32 bytes take 32 (all leading zero bytes) to 44 base58 characters. */
const SVM_MIN_LENGTH = 32;
const SVM_MAX_LENGTH = 44;

/**
 * Decodes base58 (the Bitcoin alphabet, without `0`, `O`, `I`, `l`); null when a character is outside it.
 * Each leading `1` is a leading zero byte.
 *
 * @example decodeBase58('11111111111111111111111111111111') // 32 zero bytes
 */
export function decodeBase58(text: string): Uint8Array | null {
  let value = 0n;
  for (const char of text) {
    const digit = BASE58_DIGITS.get(char);
    if (digit === undefined) return null;
    value = value * 58n + digit;
  }
  const bytes: number[] = [];
  for (; value > 0n; value >>= 8n) bytes.push(Number(value & 0xffn));
  let zeros = 0;
  while (zeros < text.length && text[zeros] === '1') zeros++;
  return Uint8Array.from([...new Array<number>(zeros).fill(0), ...bytes.reverse()]);
}

/** An SVM public key: base58 that decodes to exactly 32 bytes. Case-sensitive, so never an EVM address. */
export function isSvmAddress(text: string): boolean {
  if (text.length < SVM_MIN_LENGTH || text.length > SVM_MAX_LENGTH) return false;
  return decodeBase58(text)?.length === 32;
}

function isAccountIndex(text: string): boolean {
  return DECIMAL_INDEX.test(text) && BigInt(text) <= UINT64_MAX;
}

/** Whether `address` is a wallet (user, recipient, depository, solver) address on a chain of this VM type. */
export function isValidWalletAddress(vmType: VmType, address: string): boolean {
  switch (vmType) {
    case 'evm':
    case 'perps-a':
      return EVM_ADDRESS.test(address);
    case 'svm':
      return isSvmAddress(address);
    case 'perps-b':
      return isAccountIndex(address);
  }
}

/** Whether `address` is a currency (token) address on a chain of this VM type. */
export function isValidCurrencyAddress(vmType: VmType, address: string): boolean {
  switch (vmType) {
    case 'evm':
      return EVM_ADDRESS.test(address);
    case 'perps-a':
      return PERPS_A_CURRENCY.test(address);
    case 'svm':
      return isSvmAddress(address);
    case 'perps-b':
      return isAccountIndex(address);
  }
}

/** Whether `address` is valid on a chain of this VM type, as a wallet (default) or a currency. */
export function isValidAddress(vmType: VmType, address: string, role: AddressRole = 'wallet'): boolean {
  return role === 'wallet' ? isValidWalletAddress(vmType, address) : isValidCurrencyAddress(vmType, address);
}

/** What a valid address looks like, for error messages. */
export function describeAddressFormat(vmType: VmType, role: AddressRole = 'wallet'): string {
  if (vmType === 'evm' || (vmType === 'perps-a' && role === 'wallet')) {
    return 'an EVM address (0x and 40 hex digits)';
  }
  if (vmType === 'perps-a') {
    return 'a perps exchange A token id (0x and 32 hex digits, optionally followed by the hex of a DEX name)';
  }
  if (vmType === 'svm') return 'an SVM address (base58 of 32 bytes, case-sensitive)';
  return role === 'wallet'
    ? 'a perps exchange B account index (a decimal integer without leading zeros)'
    : 'a perps exchange B asset id (a decimal integer without leading zeros)';
}

/**
 * The spelling Ferry outputs for a valid address: EVM addresses checksummed (EIP-55), perps exchange A token ids
 * in lowercase (as the exchange reports them), SVM and perps exchange B addresses unchanged (they are exact).
 */
export function normalizeAddress(vmType: VmType, address: string, role: AddressRole = 'wallet'): string {
  if (vmType === 'evm' || (vmType === 'perps-a' && role === 'wallet')) return getAddress(address);
  if (vmType === 'perps-a') return address.toLowerCase();
  return address;
}

/** The key two spellings of one address share: lowercase where the VM ignores case (EVM hex), else unchanged. */
export function addressKey(vmType: VmType, address: string): string {
  return vmType === 'evm' || vmType === 'perps-a' ? address.toLowerCase() : address;
}

/**
 * Whether two addresses name the same account or currency: case-insensitive on EVM and perps exchange A (hex),
 * exact on SVM (base58 is case-sensitive) and perps exchange B (canonical decimals).
 */
export function sameAddress(vmType: VmType, a: string, b: string): boolean {
  return addressKey(vmType, a) === addressKey(vmType, b);
}

export interface AssertAddressOptions {
  /** Wallet (default) or currency. */
  readonly role?: AddressRole;
  /** The chain the address is used on, echoed in `errorData`. */
  readonly chainId?: number;
}

/**
 * Checks an input address for a chain of this VM type and returns it normalised (see {@link normalizeAddress}).
 * Throws a QuoteError INVALID_ADDRESS with `errorData {field, chainId?, address}` otherwise.
 *
 * @example assertAddress('svm', body.recipient, 'recipient', { chainId: 792703809 })
 */
export function assertAddress(
  vmType: VmType,
  address: unknown,
  field: string,
  options: AssertAddressOptions = {},
): string {
  const role = options.role ?? 'wallet';
  if (typeof address === 'string' && isValidAddress(vmType, address, role)) {
    return normalizeAddress(vmType, address, role);
  }
  const on = options.chainId === undefined ? `a ${vmType} chain` : `chain ${options.chainId}`;
  throw new QuoteError(
    'INVALID_ADDRESS',
    `${field} must be ${describeAddressFormat(vmType, role)} on ${on}`,
    {
      field,
      ...(options.chainId === undefined ? {} : { chainId: options.chainId }),
      address: typeof address === 'string' ? address : null,
    },
  );
}

/** {@link assertAddress} for a wallet: a user, recipient or refund address. */
export function assertWalletAddress(
  vmType: VmType,
  address: unknown,
  field: string,
  chainId?: number,
): string {
  return assertAddress(vmType, address, field, { role: 'wallet', chainId });
}

/** {@link assertAddress} for a currency (token) address. */
export function assertCurrencyAddress(
  vmType: VmType,
  address: unknown,
  field: string,
  chainId?: number,
): string {
  return assertAddress(vmType, address, field, { role: 'currency', chainId });
}
