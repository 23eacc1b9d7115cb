import {
  type ApiKeySecrets,
  decryptApiKey,
  decryptWebhookHeaderValue,
  deriveSecrets,
  encryptApiKey,
  encryptWebhookHeaderValue,
  hashApiKey,
  hashesEqual,
} from './api-key-crypto.js';

/** Which configured secret a stored value was written under. */
export type SecretGeneration = 'current' | 'previous';

/**
 * The secrets API keys are read and written under: `API_KEY_ENCRYPTION_KEY` (everything is written under it) and,
 * while it is being rotated, `API_KEY_ENCRYPTION_KEY_PREVIOUS` (still read, never written; docs/operations.md, "Key
 * rotation"). A value that opens under neither is an error naming the row, never its content.
 */
export class ApiKeyRing {
  private readonly current: ApiKeySecrets;
  private readonly previous: ApiKeySecrets | undefined;
  /** The secrets a stored value may be under, the current one first. */
  private readonly generations: readonly (readonly [SecretGeneration, ApiKeySecrets])[];

  constructor(current: Buffer, previous?: Buffer | null) {
    this.current = deriveSecrets(current);
    this.previous = previous ? deriveSecrets(previous) : undefined;
    this.generations = this.previous
      ? [
          ['current', this.current],
          ['previous', this.previous],
        ]
      : [['current', this.current]];
  }

  /** Whether a previous secret is configured (a rotation is under way). */
  get rotating(): boolean {
    return this.previous !== undefined;
  }

  /** The lookup hash of `key` under the current secret (what is written). */
  hash(key: string): string {
    return hashApiKey(this.current.hashKey, key);
  }

  /** The hashes `key` may be stored under: the current secret's, then the previous one's (the same twice without). */
  lookupHashes(key: string): readonly [string, string] {
    const current = this.hash(key);
    return [current, this.previous ? hashApiKey(this.previous.hashKey, key) : current];
  }

  sealKey(key: string, apiKeyId: string): string {
    return encryptApiKey(this.current.encryptionKey, key, apiKeyId);
  }

  /**
   * The plaintext key of a row and the secret it is stored under: the ciphertext must open and the result must match
   * the row's lookup hash under the same secret (constant time). Throws when it does under neither.
   */
  openKey(row: { readonly id: string; readonly keyHash: string; readonly keyCiphertext: string }): {
    readonly key: string;
    readonly under: SecretGeneration;
  } {
    let failure: Error | undefined;
    for (const [under, secrets] of this.generations) {
      let key: string;
      try {
        key = decryptApiKey(secrets.encryptionKey, row.keyCiphertext, row.id);
      } catch (error) {
        failure ??= error as Error;
        continue;
      }
      if (hashesEqual(hashApiKey(secrets.hashKey, key), row.keyHash)) return { key, under };
      failure ??= new Error(`API key ${row.id} does not match its lookup hash under the configured secret`);
    }
    throw failure!;
  }

  sealHeader(value: string, apiKeyId: string, headerName: string): string {
    return encryptWebhookHeaderValue(this.current.encryptionKey, value, apiKeyId, headerName);
  }

  /** A webhook header value and the secret it is sealed under; throws (naming the header, not its value). */
  openHeader(
    sealed: string,
    apiKeyId: string,
    headerName: string,
  ): { readonly value: string; readonly under: SecretGeneration } {
    const open = (secrets: ApiKeySecrets) =>
      decryptWebhookHeaderValue(secrets.encryptionKey, sealed, apiKeyId, headerName);
    try {
      return { value: open(this.current), under: 'current' };
    } catch (error) {
      if (!this.previous) throw error;
      return { value: open(this.previous), under: 'previous' };
    }
  }
}
