import { bytesToHex, type Hex } from 'viem';

/**
 * The two DER structures a key-management service hands back for a secp256k1 key: the public key as an X.509
 * SubjectPublicKeyInfo and an ECDSA signature as `SEQUENCE { INTEGER r, INTEGER s }`. A reader this small keeps an
 * ASN.1 dependency out and refuses anything but these exact shapes.
 */

const SEQUENCE = 0x30;
const INTEGER = 0x02;
const BIT_STRING = 0x03;
const OBJECT_IDENTIFIER = 0x06;

/** 1.2.840.10045.2.1 (id-ecPublicKey) and 1.3.132.0.10 (secp256k1), as DER contents. */
const EC_PUBLIC_KEY_OID = '2a8648ce3d0201';
const SECP256K1_OID = '2b8104000a';

/** A DER input that is not the structure expected; the message says which part. */
export class DerError extends Error {
  constructor(problem: string) {
    super(`Malformed DER: ${problem}`);
    this.name = 'DerError';
  }
}

interface Element {
  readonly tag: number;
  readonly value: Uint8Array;
  /** Where the next element starts. */
  readonly end: number;
}

/** One tag-length-value at `offset`: single-byte tags, short or long (up to 4-byte) definite lengths. */
function readElement(bytes: Uint8Array, offset: number): Element {
  if (offset + 2 > bytes.length) throw new DerError('truncated element header');
  const tag = bytes[offset];
  let length = bytes[offset + 1];
  let start = offset + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4) throw new DerError(`unsupported length form (0x${length.toString(16)})`);
    if (start + count > bytes.length) throw new DerError('truncated length');
    length = 0;
    for (let index = 0; index < count; index++) length = length * 256 + bytes[start + index];
    start += count;
  }
  const end = start + length;
  if (end > bytes.length) throw new DerError('element longer than its input');
  return { tag, value: bytes.subarray(start, end), end };
}

function readTagged(bytes: Uint8Array, offset: number, tag: number, what: string): Element {
  const element = readElement(bytes, offset);
  if (element.tag !== tag) {
    throw new DerError(
      `expected ${what} (tag 0x${tag.toString(16)}), found tag 0x${element.tag.toString(16)}`,
    );
  }
  return element;
}

/** A whole input that is exactly one SEQUENCE, nothing after it. */
function sequence(bytes: Uint8Array, what: string): Uint8Array {
  const outer = readTagged(bytes, 0, SEQUENCE, what);
  if (outer.end !== bytes.length) throw new DerError(`${bytes.length - outer.end} bytes after the ${what}`);
  return outer.value;
}

/**
 * A non-negative INTEGER. Extra leading zeros (not minimal DER) are read rather than refused: the value is checked
 * against the curve order and the signature by recovery afterwards, so leniency here cannot let a bad one through.
 */
function unsignedInteger(element: Element, what: string): bigint {
  const { value } = element;
  if (value.length === 0) throw new DerError(`${what} is empty`);
  if (value[0] & 0x80) throw new DerError(`${what} is negative`);
  return BigInt(bytesToHex(value));
}

/**
 * `SEQUENCE { INTEGER r, INTEGER s }` → `{r, s}`. Each integer is 1 to 33 bytes: 33 with the 0x00 that keeps a value
 * with its top bit set positive, fewer when the value happens to be small (its leading zero bytes are dropped).
 */
export function parseDerSignature(der: Uint8Array): { r: bigint; s: bigint } {
  const body = sequence(der, 'signature SEQUENCE');
  const r = readTagged(body, 0, INTEGER, 'INTEGER r');
  const s = readTagged(body, r.end, INTEGER, 'INTEGER s');
  if (s.end !== body.length) throw new DerError('extra elements after INTEGER s');
  return { r: unsignedInteger(r, 'r'), s: unsignedInteger(s, 's') };
}

/**
 * An X.509 SubjectPublicKeyInfo of a secp256k1 key → the uncompressed point `0x04 ‖ x ‖ y` (65 bytes) that viem's
 * `publicKeyToAddress` takes. Refuses other algorithms, other curves and compressed points.
 */
export function parseSecp256k1PublicKey(spki: Uint8Array): Hex {
  const body = sequence(spki, 'SubjectPublicKeyInfo SEQUENCE');
  const algorithm = readTagged(body, 0, SEQUENCE, 'AlgorithmIdentifier SEQUENCE');
  const keyType = readTagged(algorithm.value, 0, OBJECT_IDENTIFIER, 'algorithm OBJECT IDENTIFIER');
  if (bytesToHex(keyType.value).slice(2) !== EC_PUBLIC_KEY_OID) {
    throw new DerError('the key is not an elliptic-curve key (id-ecPublicKey)');
  }
  const curve = readTagged(algorithm.value, keyType.end, OBJECT_IDENTIFIER, 'curve OBJECT IDENTIFIER');
  if (bytesToHex(curve.value).slice(2) !== SECP256K1_OID) throw new DerError('the curve is not secp256k1');
  if (curve.end !== algorithm.value.length) throw new DerError('extra parameters in AlgorithmIdentifier');
  const bits = readTagged(body, algorithm.end, BIT_STRING, 'subjectPublicKey BIT STRING');
  if (bits.end !== body.length) throw new DerError('extra elements after the public key');
  const point = bits.value;
  if (point.length !== 66 || point[0] !== 0 || point[1] !== 0x04) {
    throw new DerError('the public key is not an uncompressed point (0x04 ‖ x ‖ y)');
  }
  return bytesToHex(point.subarray(1));
}
