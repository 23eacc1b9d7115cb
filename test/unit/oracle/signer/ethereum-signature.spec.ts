import { createHash, generateKeyPairSync, sign as opensslSign } from 'node:crypto';
import { bytesToHex, type Hex, hexToBigInt, keccak256, parseSignature, recoverAddress, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, sign } from 'viem/accounts';
import { parseDerSignature } from '../../../../src/oracle/signer/der.js';
import {
  lowS,
  nonCanonical,
  SECP256K1_N,
  toEthereumSignature,
} from '../../../../src/oracle/signer/ethereum-signature.js';

const HALF_N = SECP256K1_N / 2n;

describe(lowS.name, () => {
  it.each([
    ['1', 1n, 1n],
    ['n/2 (the largest low s)', HALF_N, HALF_N],
    ['n/2 + 1', HALF_N + 1n, SECP256K1_N - HALF_N - 1n],
    ['n − 1', SECP256K1_N - 1n, 1n],
  ])('maps s = %s to its low form', (_name, s, expected) => {
    expect(lowS(s)).toBe(expected);
    expect(lowS(s) <= HALF_N).toBe(true);
  });
});

describe(nonCanonical.name, () => {
  const r = 'ab'.repeat(32);
  const withS = (s: bigint, v = '1b') => `0x${r}${s.toString(16).padStart(64, '0')}${v}`;

  it('accepts what FerryOracleVerifier counts: 65 bytes, v 27 or 28, s up to n/2 included', () => {
    expect(nonCanonical(withS(HALF_N))).toBeNull();
    expect(nonCanonical(withS(1n, '1c'))).toBeNull();
  });

  it.each([
    ['s = n/2 + 1', withS(HALF_N + 1n), 's is in the upper half of the curve order'],
    ['v = 0', withS(1n, '00'), 'v is 0, not 27 or 28'],
    ['v = 1', withS(1n, '01'), 'v is 1, not 27 or 28'],
    ['64 bytes (EIP-2098 compact)', withS(1n).slice(0, 130), 'not 65 bytes of hex (r ‖ s ‖ v)'],
    ['66 bytes', `${withS(1n)}00`, 'not 65 bytes of hex (r ‖ s ‖ v)'],
    ['not a string', 42, 'not 65 bytes of hex (r ‖ s ‖ v)'],
  ])('refuses %s', (_name, signature, reason) => {
    expect(nonCanonical(signature)).toBe(reason);
  });
});

describe(toEthereumSignature.name, () => {
  // A fixed key and fixed digests: viem signs deterministically (RFC 6979), so which v each needs is fixed too.
  const privateKey: Hex = `0x${'5e'.repeat(32)}`;
  const signer = privateKeyToAccount(privateKey).address;
  const digests = Array.from({ length: 8 }, (_, index) => keccak256(toHex(`ferry oracle digest ${index}`)));

  it('turns a high-s signature into the low-s one with the v that recovers the signer, as viem signs', async () => {
    const vs = new Set<number>();
    for (const digest of digests) {
      const reference = await sign({ hash: digest, privateKey });
      const high = { r: hexToBigInt(reference.r), s: SECP256K1_N - hexToBigInt(reference.s) };

      const sut = await toEthereumSignature(high, digest, signer);

      expect(sut).toBe(await sign({ hash: digest, privateKey, to: 'hex' }));
      vs.add(Number(parseSignature(sut).v));
    }
    // These eight digests need both recovery parities, so each branch of the search is taken.
    expect([...vs].sort()).toEqual([27, 28]);
  });

  it('keeps an already low s', async () => {
    const reference = await sign({ hash: digests[0], privateKey });

    const sut = await toEthereumSignature(
      { r: hexToBigInt(reference.r), s: hexToBigInt(reference.s) },
      digests[0],
      signer,
    );

    expect(hexToBigInt(parseSignature(sut).s)).toBe(hexToBigInt(reference.s));
  });

  it('makes signatures that recover from OpenSSL DER signatures (node:crypto), whatever their s and length', async () => {
    const { privateKey: key } = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
    const d = Buffer.from(key.export({ format: 'jwk' }).d as string, 'base64url');
    const address = privateKeyToAccount(bytesToHex(d, { size: 32 })).address;
    for (let index = 0; index < 16; index++) {
      const message = Buffer.from(`message ${index}`);
      const digest = bytesToHex(createHash('sha256').update(message).digest()) as Hex;
      const der = new Uint8Array(opensslSign('sha256', message, key));

      const sut = await toEthereumSignature(parseDerSignature(der), digest, address);

      expect(await recoverAddress({ hash: digest, signature: sut })).toBe(address);
      expect(hexToBigInt(parseSignature(sut).s) <= HALF_N).toBe(true);
    }
  });

  it('refuses a signature by another key', async () => {
    const other = await sign({ hash: digests[0], privateKey: generatePrivateKey() });

    await expect(
      toEthereumSignature({ r: hexToBigInt(other.r), s: hexToBigInt(other.s) }, digests[0], signer),
    ).rejects.toThrow(/does not recover to the signer .* with either v/);
  });

  it('refuses a signature of another digest', async () => {
    const reference = await sign({ hash: digests[0], privateKey });

    await expect(
      toEthereumSignature({ r: hexToBigInt(reference.r), s: hexToBigInt(reference.s) }, digests[1], signer),
    ).rejects.toThrow(/does not recover/);
  });

  it.each([
    ['r = 0', 0n, 1n],
    ['s = 0', 1n, 0n],
    ['r = n', SECP256K1_N, 1n],
    ['s = n', 1n, SECP256K1_N],
  ])('refuses an out-of-range %s', async (_name, r, s) => {
    await expect(toEthereumSignature({ r, s }, digests[0], signer)).rejects.toThrow(/out of range/);
  });
});
