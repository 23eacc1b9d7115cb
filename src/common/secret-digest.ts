import { createHash, timingSafeEqual } from 'node:crypto';

/** SHA-256 of a secret: both sides are hashed before comparing, so the comparison runs on equal lengths. */
export const secretDigest = (secret: string): Buffer => createHash('sha256').update(secret, 'utf8').digest();

/**
 * Whether `presented` is the secret whose digest is `expected`, in constant time: neither its length nor a matching
 * prefix shows in the timing. Anything but a string (a repeated header arrives as an array) never matches.
 */
export function matchesSecret(expected: Buffer, presented: unknown): boolean {
  return typeof presented === 'string' && timingSafeEqual(secretDigest(presented), expected);
}
