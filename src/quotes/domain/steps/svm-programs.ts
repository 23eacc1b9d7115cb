import { createHash } from 'node:crypto';
import { Buffer } from 'node:buffer';
import { LEGACY_MEMO_PROGRAM_ADDRESS_V3 } from '@solana-program/memo';
import { SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { ASSOCIATED_TOKEN_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import {
  type Address,
  getAddressDecoder,
  getAddressEncoder,
  isAddress,
  isOffCurveAddress,
} from '@solana/kit';
import { QuoteError } from '../quote-error.js';

/** The SVM chain's id in quotes. */
export const SVM_CHAIN_ID = 792703809;

/** The native currency's address in the currency list (the system program id). */
export const SVM_NATIVE_CURRENCY: string = SYSTEM_PROGRAM_ADDRESS;

export const TOKEN_PROGRAM_ID: Address = TOKEN_PROGRAM_ADDRESS;
export const ASSOCIATED_TOKEN_PROGRAM_ID: Address = ASSOCIATED_TOKEN_PROGRAM_ADDRESS;

/**
 * The Memo program deposits use: `MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr`, deployed on every cluster for years
 * and loaded by LiteSVM. `@solana-program/memo` defaults to a newer address (`Memo4c2p…`) that LiteSVM does not load,
 * so a step built on it could not be shown to execute (docs/svm.md).
 */
export const MEMO_PROGRAM_ID: Address = LEGACY_MEMO_PROGRAM_ADDRESS_V3;

/**
 * Lamports a system account with no data must hold to exist (rent exemption at the default rent: 128 bytes of
 * account overhead × 3480 lamports per byte-year × 2 years). A SOL transfer that would leave a receiving account that
 * did not exist with less fails, so no SOL deposit below it is quoted (docs/svm.md, "Rent").
 */
export const SVM_RENT_EXEMPT_MINIMUM_LAMPORTS = 890_880n;

/** A base58 SVM address (32 bytes, written canonically); else `INVALID_ADDRESS` naming the field. */
export function svmAddress(value: string, field: string): Address {
  if (isAddress(value) && getAddressDecoder().decode(getAddressEncoder().encode(value)) === value)
    return value;
  throw new QuoteError('INVALID_ADDRESS', `${field} is not an SVM address: ${JSON.stringify(value)}`, {
    field,
  });
}

/**
 * A base58 SVM address that can sign: a point on the ed25519 curve, i.e. a wallet with a private key. A
 * program-derived address (off the curve) has none, so a transaction that needs its signature can never be sent;
 * else `INVALID_ADDRESS` naming the field.
 */
export function svmSignerAddress(value: string, field: string): Address {
  const address = svmAddress(value, field);
  if (!isOffCurveAddress(address)) return address;
  throw new QuoteError(
    'INVALID_ADDRESS',
    `${field} cannot sign on the SVM chain: ${address} is a program-derived address (off the ed25519 curve), which has no private key`,
    { field, reason: 'off-curve' },
  );
}

/**
 * The associated token account of `owner` for `mint` under the classic SPL Token program: the program-derived
 * address of seeds `[owner, token program, mint]` under the associated token program. Computed synchronously (kit's
 * `findAssociatedTokenPda` is async) so that step building stays a pure synchronous function; a unit test checks it
 * against kit's.
 */
export function associatedTokenAddress(owner: Address, mint: Address): Address {
  return findProgramAddress(
    [encode(owner), encode(TOKEN_PROGRAM_ID), encode(mint)],
    ASSOCIATED_TOKEN_PROGRAM_ID,
  );
}

const PDA_MARKER = Buffer.from('ProgramDerivedAddress', 'utf8');

/** The first off-curve `sha256(seeds ‖ bump ‖ program ‖ "ProgramDerivedAddress")`, bump from 255 down. */
function findProgramAddress(seeds: readonly Uint8Array[], program: Address): Address {
  for (let bump = 255; bump >= 0; bump--) {
    const hash = createHash('sha256');
    for (const seed of seeds) hash.update(seed);
    hash.update(Uint8Array.of(bump)).update(encode(program)).update(PDA_MARKER);
    const candidate = getAddressDecoder().decode(hash.digest());
    if (isOffCurveAddress(candidate)) return candidate;
  }
  throw new TypeError(`No program address for these seeds under ${program}`);
}

const encode = (value: Address): Uint8Array => Uint8Array.from(getAddressEncoder().encode(value));
