import { type Hex, hexToBytes, keccak256 } from 'viem';

/**
 * EIP-712 `hashStruct` for a fixed set of types, with every type hash computed once (viem's `hashStruct` re-derives
 * and re-hashes the type string of each nested struct on every call) and the encoding written straight into bytes.
 *
 * It takes only the canonical values the types call for: strings for `string`, even-length hex for `bytes`, 32 bytes
 * of hex for `bytes32`, lowercase hex for `address`, and for `uint256` a bigint, a safe non-negative integer or a
 * decimal string, within range. Anything else (a value viem would encode differently, reject or coerce) makes
 * `hash` return null, and the caller hashes with viem instead: the two never disagree on a value this one accepts
 * (property test: test/unit/quotes/steps/order-hash.spec.ts).
 */

type Field = { readonly name: string; readonly type: string };
type Types = Readonly<Record<string, readonly Field[]>>;

/** A field's encoder: writes its 32-byte word at `out[offset]`, or returns false for a value it does not take. */
type Encode = (value: unknown, out: Uint8Array, offset: number) => boolean;

const MAX_UINT256 = 2n ** 256n - 1n;
const DECIMAL = /^[0-9]{1,78}$/;
const EVEN_HEX = /^0x(?:[0-9a-fA-F]{2})*$/;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const LOWER_ADDRESS = /^0x[0-9a-f]{40}$/;

const utf8 = new TextEncoder();
const hashBytes = (bytes: Uint8Array): Uint8Array => keccak256(bytes, 'bytes');

/** Memoised hashes of short strings and byte strings (chain names, currencies, wallets, `0x`): they repeat. */
const MEMO_ENTRIES = 4_096;
const MEMO_MAX_LENGTH = 256;

function memoised(hash: (value: string) => Uint8Array): (value: string) => Uint8Array {
  const memo = new Map<string, Uint8Array>();
  return (value) => {
    if (value.length > MEMO_MAX_LENGTH) return hash(value);
    let hashed = memo.get(value);
    if (hashed === undefined) {
      if (memo.size >= MEMO_ENTRIES) memo.clear();
      hashed = hash(value);
      memo.set(value, hashed);
    }
    return hashed;
  };
}

const EMPTY_HASH = hashBytes(new Uint8Array(0));
// Never mutated: callers copy them into their own buffers.
const hashString = memoised((value) => hashBytes(utf8.encode(value)));
const hashHexBytes = memoised((value) => hashBytes(hexToBytes(value as Hex)));

/** `encodeType` of EIP-712: the primary type, then the types it references, sorted by name. */
export function encodeType(primaryType: string, types: Types): string {
  const found = new Set<string>();
  const visit = (type: string): void => {
    const name = type.replace(/(\[[0-9]*\])+$/, '');
    if (found.has(name) || types[name] === undefined) return;
    found.add(name);
    for (const field of types[name]) visit(field.type);
  };
  visit(primaryType);
  found.delete(primaryType);
  return [primaryType, ...[...found].sort()]
    .map((name) => `${name}(${types[name].map((field) => `${field.type} ${field.name}`).join(',')})`)
    .join('');
}

export class StructHasher {
  private readonly structs = new Map<string, (value: unknown) => Uint8Array | null>();

  constructor(private readonly types: Types) {
    for (const name of Object.keys(types)) this.structs.set(name, this.compileStruct(name));
  }

  /** `hashStruct(primaryType, value)` as bytes, or null when a value is not in the canonical form taken here. */
  hash(primaryType: string, value: unknown): Uint8Array | null {
    const struct = this.structs.get(primaryType);
    if (struct === undefined) throw new TypeError(`Unknown EIP-712 type ${primaryType}`);
    return struct(value);
  }

  private compileStruct(name: string): (value: unknown) => Uint8Array | null {
    const typeHash = hashBytes(utf8.encode(encodeType(name, this.types)));
    const fields = this.types[name].map((field) => ({
      name: field.name,
      encode: this.compileField(field.type),
    }));
    const size = 32 * (fields.length + 1);
    return (value) => {
      if (typeof value !== 'object' || value === null) return null;
      const record = value as Record<string, unknown>;
      const out = new Uint8Array(size);
      out.set(typeHash, 0);
      for (let index = 0; index < fields.length; index += 1) {
        const field = fields[index];
        if (!field.encode(record[field.name], out, 32 * (index + 1))) return null;
      }
      return hashBytes(out);
    };
  }

  private compileField(type: string): Encode {
    if (type.endsWith(']')) {
      if (!type.endsWith('[]')) return () => false; // fixed-size arrays: not used here, left to viem
      const element = this.compileField(type.slice(0, -2));
      return (value, out, offset) => {
        if (!Array.isArray(value)) return false;
        if (value.length === 0) {
          out.set(EMPTY_HASH, offset);
          return true;
        }
        const words = new Uint8Array(32 * value.length);
        for (let index = 0; index < value.length; index += 1) {
          if (!element(value[index], words, 32 * index)) return false;
        }
        out.set(hashBytes(words), offset);
        return true;
      };
    }
    if (this.types[type] !== undefined) {
      // Resolved on first use: a struct may reference one compiled after it.
      return (value, out, offset) => {
        const hash = this.structs.get(type)!(value);
        if (hash === null) return false;
        out.set(hash, offset);
        return true;
      };
    }
    switch (type) {
      case 'string':
        return (value, out, offset) => {
          if (typeof value !== 'string') return false;
          out.set(hashString(value), offset);
          return true;
        };
      case 'bytes':
        return (value, out, offset) => {
          if (typeof value !== 'string' || !EVEN_HEX.test(value)) return false;
          out.set(hashHexBytes(value), offset);
          return true;
        };
      case 'bytes32':
        return (value, out, offset) => {
          if (typeof value !== 'string' || !BYTES32.test(value)) return false;
          out.set(hexToBytes(value as Hex), offset);
          return true;
        };
      case 'address':
        return (value, out, offset) => {
          if (typeof value !== 'string' || !LOWER_ADDRESS.test(value)) return false;
          out.set(hexToBytes(value as Hex), offset + 12);
          return true;
        };
      case 'uint256':
        return (value, out, offset) => {
          const number = uint256(value);
          if (number === null) return false;
          out.set(hexToBytes(`0x${number.toString(16).padStart(64, '0')}`), offset);
          return true;
        };
      default:
        return () => false;
    }
  }
}

function uint256(value: unknown): bigint | null {
  let number: bigint;
  if (typeof value === 'bigint') number = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) number = BigInt(value);
  else if (typeof value === 'string' && DECIMAL.test(value)) number = BigInt(value);
  else return null;
  return number >= 0n && number <= MAX_UINT256 ? number : null;
}
