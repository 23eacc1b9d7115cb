import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

/**
 * The pure cryptography of API keys (and of the webhook header values stored with them). No I/O, no logging: the
 * plaintext key only passes through here.
 *
 * One configured secret (`API_KEY_ENCRYPTION_KEY`, 32 bytes) is never used directly: two sub-keys are derived from
 * it with HKDF-SHA256, one for the lookup hash (HMAC-SHA256) and one for the recoverable copy (AES-256-GCM), so
 * the two uses never share key material.
 */

/** Every key starts with this; it tells a Ferry key apart from other secrets (and scanners can look for it). */
export const API_KEY_PREFIX = 'fk_';
/** How many characters of the key are stored in clear for display (`fk_` + 7). */
export const KEY_PREFIX_LENGTH = 10;
/** The configured secret's size. */
export const SECRET_BYTES = 32;

const KEY_RANDOM_BYTES = 32;
/** `fk_` + 32 random bytes in base64url (43 characters, no padding). */
const API_KEY_SHAPE = /^fk_[A-Za-z0-9_-]{43}$/;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The two sub-keys derived from the configured secret. */
export interface ApiKeySecrets {
  readonly hashKey: Buffer;
  readonly encryptionKey: Buffer;
}

export function deriveSecrets(secret: Buffer): ApiKeySecrets {
  if (secret.length !== SECRET_BYTES) throw new Error(`The API key secret must be ${SECRET_BYTES} bytes`);
  const derive = (info: string) =>
    Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `ferry api-keys v1 ${info}`, 32));
  return { hashKey: derive('lookup-hash'), encryptionKey: derive('encryption') };
}

/** A new API key: `fk_` + 32 random bytes, base64url. */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(KEY_RANDOM_BYTES).toString('base64url');
}

/** Whether a string has the shape of a Ferry API key (cheap check before any lookup). */
export function looksLikeApiKey(value: string): boolean {
  return API_KEY_SHAPE.test(value);
}

/** The part of a key stored in clear, for display. */
export function keyPrefixOf(key: string): string {
  return key.slice(0, KEY_PREFIX_LENGTH);
}

/** The lookup hash: hex HMAC-SHA256 of the key. Deterministic, so it can be looked up with an index. */
export function hashApiKey(hashKey: Buffer, key: string): string {
  return createHmac('sha256', hashKey).update(key, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex hashes (false when their lengths differ). */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

/**
 * AES-256-GCM under a fresh random IV; returns base64 of `iv (12) ‖ tag (16) ‖ ciphertext`. `associatedData` (the
 * key's row id) binds the ciphertext to its row: copied onto another row it no longer decrypts.
 */
export function encryptApiKey(encryptionKey: Buffer, key: string, associatedData: string): string {
  return seal(encryptionKey, key, associatedData);
}

/** The inverse of `encryptApiKey`; throws when the ciphertext, the associated data or the secret is wrong. */
export function decryptApiKey(encryptionKey: Buffer, sealed: string, associatedData: string): string {
  return open(encryptionKey, sealed, associatedData, 'The encrypted API key');
}

/**
 * The value of a webhook custom header (often the integrator's own receiver credential), sealed as the API key is
 * (same sub-key, same format). The associated data names the key's row and the header, so a sealed value moved to
 * another key, another header, or into `key_ciphertext` no longer decrypts.
 */
export function encryptWebhookHeaderValue(
  encryptionKey: Buffer,
  value: string,
  apiKeyId: string,
  headerName: string,
): string {
  return seal(encryptionKey, value, webhookHeaderContext(apiKeyId, headerName));
}

/** The inverse of `encryptWebhookHeaderValue`; throws (without the value) when anything is wrong. */
export function decryptWebhookHeaderValue(
  encryptionKey: Buffer,
  sealed: string,
  apiKeyId: string,
  headerName: string,
): string {
  return open(
    encryptionKey,
    sealed,
    webhookHeaderContext(apiKeyId, headerName),
    `The encrypted value of webhook header ${headerName} of API key ${apiKeyId}`,
  );
}

/** A row id is a UUID (no newline), so this never equals the API key's associated data (the bare id). */
const webhookHeaderContext = (apiKeyId: string, headerName: string): string =>
  `${apiKeyId}\nwebhook-header\n${headerName}`;

function seal(encryptionKey: Buffer, plaintext: string, associatedData: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', encryptionKey, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
}

function open(encryptionKey: Buffer, sealed: string, associatedData: string, what: string): string {
  const bytes = Buffer.from(sealed, 'base64');
  if (bytes.length < IV_BYTES + TAG_BYTES) throw new Error(`${what} is truncated`);
  const decipher = createDecipheriv('aes-256-gcm', encryptionKey, bytes.subarray(0, IV_BYTES), {
    authTagLength: TAG_BYTES,
  });
  decipher.setAAD(Buffer.from(associatedData, 'utf8'));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    throw new Error(`${what} does not decrypt under the configured secret (tampered or wrong key)`);
  }
}

/**
 * Parses the configured secret: 64 hex characters, or base64/base64url of 32 bytes. Returns null when malformed
 * (the caller names the variable; the value itself is never echoed).
 */
export function parseSecret(text: string): Buffer | null {
  const value = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  if (/^[A-Za-z0-9+/]{43}=?$/.test(value) || /^[A-Za-z0-9_-]{43}=?$/.test(value)) {
    const bytes = Buffer.from(value, value.includes('-') || value.includes('_') ? 'base64url' : 'base64');
    return bytes.length === SECRET_BYTES ? bytes : null;
  }
  return null;
}
