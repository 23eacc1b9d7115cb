import { generateKeyPairSync } from 'node:crypto';
import { bytesToHex } from 'viem';
import { DerError, parseDerSignature, parseSecp256k1PublicKey } from '../../../../src/oracle/signer/der.js';

const bytes = (hex: string): Uint8Array => new Uint8Array(Buffer.from(hex.replace(/\s/g, ''), 'hex'));
const R33 = '00' + 'ff'.repeat(32);
const S31 = '7f' + '01'.repeat(30);

describe(parseDerSignature.name, () => {
  it('reads 33-byte integers whose 0x00 keeps a top-bit value positive', () => {
    const der = bytes(`3046 0221 ${R33} 0221 00${'80'.repeat(32)}`);

    expect(parseDerSignature(der)).toEqual({ r: 2n ** 256n - 1n, s: BigInt(`0x${'80'.repeat(32)}`) });
  });

  it('reads short integers (a value with leading zero bytes dropped)', () => {
    const der = bytes(`3024 0201 01 021f ${S31}`);

    expect(parseDerSignature(der)).toEqual({ r: 1n, s: BigInt(`0x${S31}`) });
  });

  it('reads plain 32-byte integers', () => {
    const r = '11'.repeat(32);
    const s = '22'.repeat(32);

    expect(parseDerSignature(bytes(`3044 0220 ${r} 0220 ${s}`))).toEqual({
      r: BigInt(`0x${r}`),
      s: BigInt(`0x${s}`),
    });
  });

  it('reads a sequence with a long-form length', () => {
    expect(parseDerSignature(bytes(`3081 06 0201 05 0201 07`))).toEqual({ r: 5n, s: 7n });
  });

  it.each([
    ['another outer tag', `3106 0201 05 0201 07`, /expected signature SEQUENCE/],
    ['a BIT STRING instead of r', `3006 0301 05 0201 07`, /expected INTEGER r/],
    ['a missing s', `3003 0201 05`, /truncated element header/],
    ['bytes after the sequence', `3006 0201 05 0201 07 00`, /1 bytes after the signature SEQUENCE/],
    ['a third integer', `3009 0201 05 0201 07 0201 09`, /extra elements after INTEGER s/],
    ['a length past the end', `3008 0201 05 0201 07`, /element longer than its input/],
    ['a negative r', `3006 0201 85 0201 07`, /r is negative/],
    ['an empty s', `3005 0201 05 0200`, /s is empty/],
    ['an indefinite length', `3080 0201 05 0201 07 0000`, /unsupported length form/],
  ])('refuses %s', (_case, hex, message) => {
    expect(() => parseDerSignature(bytes(hex))).toThrow(DerError);
    expect(() => parseDerSignature(bytes(hex))).toThrow(message);
  });
});

describe(parseSecp256k1PublicKey.name, () => {
  it('gives the uncompressed point of a secp256k1 key encoded by OpenSSL (node:crypto)', () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
    const jwk = publicKey.export({ format: 'jwk' });
    const spki = new Uint8Array(publicKey.export({ type: 'spki', format: 'der' }));

    const sut = parseSecp256k1PublicKey(spki);

    const x = bytesToHex(Buffer.from(jwk.x as string, 'base64url')).slice(2);
    const y = bytesToHex(Buffer.from(jwk.y as string, 'base64url')).slice(2);
    expect(sut).toBe(`0x04${x}${y}`);
  });

  it('refuses a key on another curve (P-256, the usual KMS ECC key)', () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });

    expect(() =>
      parseSecp256k1PublicKey(new Uint8Array(publicKey.export({ type: 'spki', format: 'der' }))),
    ).toThrow('the curve is not secp256k1');
  });

  it('refuses a key that is not an elliptic-curve key', () => {
    const { publicKey } = generateKeyPairSync('ed25519');

    expect(() =>
      parseSecp256k1PublicKey(new Uint8Array(publicKey.export({ type: 'spki', format: 'der' }))),
    ).toThrow(DerError);
  });

  it('refuses a compressed point', () => {
    const algorithm = '3010 06072a8648ce3d0201 06052b8104000a';
    const compressed = bytes(`3036 ${algorithm} 032200 02${'ab'.repeat(32)}`);

    expect(() => parseSecp256k1PublicKey(compressed)).toThrow('not an uncompressed point');
  });
});
