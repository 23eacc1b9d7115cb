import { randomBytes } from 'node:crypto';
import {
  decryptApiKey,
  deriveSecrets,
  encryptApiKey,
  generateApiKey,
  hashApiKey,
  hashesEqual,
  keyPrefixOf,
  looksLikeApiKey,
  parseSecret,
} from '../../../src/api-keys/api-key-crypto.js';

const secret = Buffer.alloc(32, 7);
const secrets = deriveSecrets(secret);
const ID = '0b7e4a52-3c55-4a4b-9a1e-9f0c2d1e6a11';

describe('API key cryptography', () => {
  it('generates fk_ + 32 random bytes in base64url, and shows its first 10 characters', () => {
    const key = generateApiKey();
    expect(key).toMatch(/^fk_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(key.slice(3), 'base64url')).toHaveLength(32);
    expect(looksLikeApiKey(key)).toBe(true);
    expect(keyPrefixOf(key)).toBe(key.slice(0, 10));
    expect(generateApiKey()).not.toBe(key);
    expect(looksLikeApiKey(`${key}x`)).toBe(false);
    expect(looksLikeApiKey('sk_' + key.slice(3))).toBe(false);
  });

  it('derives two different sub-keys from the secret, deterministically', () => {
    expect(secrets.hashKey).toHaveLength(32);
    expect(secrets.encryptionKey).toHaveLength(32);
    expect(secrets.hashKey.equals(secrets.encryptionKey)).toBe(false);
    expect(secrets.hashKey.equals(secret)).toBe(false);
    expect(deriveSecrets(Buffer.alloc(32, 7)).hashKey.equals(secrets.hashKey)).toBe(true);
    expect(() => deriveSecrets(Buffer.alloc(16))).toThrow('32 bytes');
  });

  it('hashes stably: same key and secret → same hex HMAC; another secret or key → another', () => {
    const key = generateApiKey();
    const hash = hashApiKey(secrets.hashKey, key);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(secrets.hashKey, key)).toBe(hash);
    expect(hashApiKey(deriveSecrets(Buffer.alloc(32, 8)).hashKey, key)).not.toBe(hash);
    expect(hashApiKey(secrets.hashKey, generateApiKey())).not.toBe(hash);
    // A fixed vector: the hash of a stored key must never change between releases.
    expect(hashApiKey(secrets.hashKey, 'fk_' + 'A'.repeat(43))).toBe(
      hashApiKey(deriveSecrets(Buffer.alloc(32, 7)).hashKey, 'fk_' + 'A'.repeat(43)),
    );
  });

  it('compares hashes in constant time, refusing different lengths and empties', () => {
    const hash = hashApiKey(secrets.hashKey, 'fk_x');
    expect(hashesEqual(hash, hash)).toBe(true);
    expect(hashesEqual(hash, hashApiKey(secrets.hashKey, 'fk_y'))).toBe(false);
    expect(hashesEqual(hash, hash.slice(0, 62))).toBe(false);
    expect(hashesEqual('', '')).toBe(false);
  });

  it('encrypts and decrypts back, with a fresh IV each time (iv ‖ tag ‖ ciphertext, base64)', () => {
    const key = generateApiKey();
    const sealed = encryptApiKey(secrets.encryptionKey, key, ID);
    expect(Buffer.from(sealed, 'base64')).toHaveLength(12 + 16 + key.length);
    expect(sealed).not.toContain(key.slice(3, 13));
    expect(encryptApiKey(secrets.encryptionKey, key, ID)).not.toBe(sealed);
    expect(decryptApiKey(secrets.encryptionKey, sealed, ID)).toBe(key);
  });

  it('refuses a tampered ciphertext, tag or IV, a truncated one, another row id and another secret', () => {
    const key = generateApiKey();
    const sealed = encryptApiKey(secrets.encryptionKey, key, ID);
    const flip = (position: number) => {
      const bytes = Buffer.from(sealed, 'base64');
      bytes[position] ^= 0x01;
      return bytes.toString('base64');
    };
    for (const position of [0, 11, 12, 27, 28, 28 + key.length - 1]) {
      expect(() => decryptApiKey(secrets.encryptionKey, flip(position), ID)).toThrow(/tampered or wrong key/);
    }
    expect(() => decryptApiKey(secrets.encryptionKey, sealed.slice(0, 20), ID)).toThrow(/truncated/);
    expect(() => decryptApiKey(secrets.encryptionKey, sealed, 'another-row')).toThrow(/tampered/);
    expect(() => decryptApiKey(deriveSecrets(randomBytes(32)).encryptionKey, sealed, ID)).toThrow(
      /wrong key/,
    );
  });

  it('parses the secret as 64 hex characters or base64(url) of 32 bytes, and nothing else', () => {
    const bytes = randomBytes(32);
    expect(parseSecret(bytes.toString('hex'))?.equals(bytes)).toBe(true);
    expect(parseSecret(bytes.toString('hex').toUpperCase())?.equals(bytes)).toBe(true);
    expect(parseSecret(bytes.toString('base64'))?.equals(bytes)).toBe(true);
    expect(parseSecret(bytes.toString('base64url'))?.equals(bytes)).toBe(true);
    expect(parseSecret(`${bytes.toString('hex')}\n`)?.equals(bytes)).toBe(true);
    for (const bad of [
      '',
      'secret',
      bytes.toString('hex').slice(2),
      randomBytes(31).toString('base64'),
      'z'.repeat(64),
    ]) {
      expect(parseSecret(bad)).toBeNull();
    }
  });
});
