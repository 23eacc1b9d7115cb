import {
  type Address,
  type Hex,
  isAddressEqual,
  numberToHex,
  recoverAddress,
  serializeSignature,
} from 'viem';

/** The order n of secp256k1's group. */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/**
 * Why `signature` would not count in FerryOracleVerifier (its `_recover`), or null when it is canonical: 65 bytes
 * `r ‖ s ‖ v`, `v` 27 or 28, `s` at most n/2. viem's `recoverAddress` also accepts a `v` of 0 or 1 and a high `s`
 * (the malleated copy anyone can make of a signature), so every off-chain count of signers checks this first, or
 * it would count signatures the contract skips.
 */
export function nonCanonical(signature: unknown): string | null {
  if (typeof signature !== 'string' || !/^0x[0-9a-fA-F]{130}$/.test(signature)) {
    return 'not 65 bytes of hex (r ‖ s ‖ v)';
  }
  const v = Number.parseInt(signature.slice(130), 16);
  if (v !== 27 && v !== 28) return `v is ${v}, not 27 or 28`;
  if (BigInt(`0x${signature.slice(66, 130)}`) > SECP256K1_N / 2n)
    return 's is in the upper half of the curve order';
  return null;
}

/**
 * EIP-2's rule: of the two valid `s` for one signature (`s` and `n − s`), only the one ≤ n/2 is accepted. A generic
 * ECDSA signer such as a KMS returns either, so the high one is flipped; that also flips which `v` recovers the key.
 */
export function lowS(s: bigint): bigint {
  return s > SECP256K1_N / 2n ? SECP256K1_N - s : s;
}

/**
 * Turns a plain ECDSA signature `{r, s}` of `digest` by `signer` into Ethereum's 65-byte `r ‖ s ‖ v`: `s` made low,
 * then `v` (27 or 28) found by recovering with each parity and keeping the one that gives the signer's address — a
 * KMS does not say which of the two candidate public keys its signature belongs to.
 * Throws when neither recovers to `signer` (a signature by another key, or of another digest).
 */
export async function toEthereumSignature(
  signature: { r: bigint; s: bigint },
  digest: Hex,
  signer: Address,
): Promise<Hex> {
  const { r } = signature;
  if (r <= 0n || r >= SECP256K1_N || signature.s <= 0n || signature.s >= SECP256K1_N) {
    throw new Error('The ECDSA signature is out of range: r and s must be in [1, n − 1] of secp256k1');
  }
  const s = lowS(signature.s);
  for (const yParity of [0, 1]) {
    const candidate = serializeSignature({
      r: numberToHex(r, { size: 32 }),
      s: numberToHex(s, { size: 32 }),
      yParity,
    });
    const recovered = await recoverAddress({ hash: digest, signature: candidate }).catch(() => null);
    if (recovered && isAddressEqual(recovered, signer)) return candidate;
  }
  throw new Error(
    `The ECDSA signature of ${digest} does not recover to the signer ${signer} with either v (27 or 28): ` +
      'the key-management service signed with another key, or another digest',
  );
}
