import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from '../config/config.error.js';
import type { Env } from '../config/resolve-placeholders.js';
import { parseSecret, SECRET_BYTES } from './api-key-crypto.js';

export const API_KEY_SECRET_VARIABLE = 'API_KEY_ENCRYPTION_KEY';
/** The secret being rotated away from: read, never written (docs/operations.md, "Key rotation"). */
export const PREVIOUS_API_KEY_SECRET_VARIABLE = 'API_KEY_ENCRYPTION_KEY_PREVIOUS';
/** Where a development secret is kept when the variable is unset: `<DATA_DIR>/api-key-encryption.key`. */
export const API_KEY_SECRET_FILE = 'api-key-encryption.key';

const FORMAT = '32 bytes as 64 hex characters or base64 (e.g. `openssl rand -hex 32`)';

/** One random secret per process for `DATA_DIR=memory://…` (throwaway storage, throwaway keys). */
let inMemorySecret: Buffer | undefined;

/**
 * The secret API keys are hashed and encrypted under. `API_KEY_ENCRYPTION_KEY` when set (malformed → ConfigError);
 * unset in production → ConfigError; otherwise a secret generated once and kept in `<DATA_DIR>/api-key-encryption.key`
 * (mode 0600, reused on later starts), or in memory for `DATA_DIR=memory://…`.
 */
export function apiKeySecret(env: Env, environment: string): Buffer {
  const configured = env[API_KEY_SECRET_VARIABLE];
  if (configured !== undefined && configured !== '') {
    const secret = parseSecret(configured);
    if (!secret) throw new ConfigError(API_KEY_SECRET_VARIABLE, `must be ${FORMAT}`);
    return secret;
  }
  if (environment === 'production') {
    throw new ConfigError(
      API_KEY_SECRET_VARIABLE,
      `is required in production: ${FORMAT}; it hashes and encrypts the API keys, and every instance needs the same one`,
    );
  }
  const dataDir = env.DATA_DIR || 'data';
  if (dataDir.startsWith('memory://')) return (inMemorySecret ??= randomBytes(SECRET_BYTES));
  return loadOrCreateSecretFile(resolve(dataDir));
}

/**
 * The previous secret while `API_KEY_ENCRYPTION_KEY` is rotated, or null when unset. Malformed, or the same as the
 * current secret (a rotation that rotates nothing, most likely the two values swapped or copied): ConfigError.
 */
export function previousApiKeySecret(env: Env, current: Buffer): Buffer | null {
  const configured = env[PREVIOUS_API_KEY_SECRET_VARIABLE];
  if (configured === undefined || configured === '') return null;
  const secret = parseSecret(configured);
  if (!secret) throw new ConfigError(PREVIOUS_API_KEY_SECRET_VARIABLE, `must be ${FORMAT}`);
  if (secret.equals(current)) {
    throw new ConfigError(
      PREVIOUS_API_KEY_SECRET_VARIABLE,
      `is the same secret as ${API_KEY_SECRET_VARIABLE}: set ${API_KEY_SECRET_VARIABLE} to the new secret and this one to the old`,
    );
  }
  return secret;
}

/**
 * Reads `<dataDir>/api-key-encryption.key`, or creates it with a fresh random secret (hex, mode 0600). Creation is
 * atomic (written aside, then hard-linked into place), so processes starting together agree on one secret.
 */
export function loadOrCreateSecretFile(dataDir: string): Buffer {
  const file = join(dataDir, API_KEY_SECRET_FILE);
  const existing = readIfPresent(file);
  if (existing !== undefined) return parseSecretFile(existing, file);
  const secret = randomBytes(SECRET_BYTES);
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(temp, `${secret.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    try {
      linkSync(temp, file);
      return secret;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
        return parseSecretFile(readFileSync(file, 'utf8'), file);
      }
      // A file system without hard links: an exclusive create still never overwrites another process's secret.
      writeFileSync(file, `${secret.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
      return secret;
    }
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(
      API_KEY_SECRET_VARIABLE,
      `is unset and ${file} cannot be created (${(error as Error).message}); set the variable or fix DATA_DIR`,
    );
  } finally {
    try {
      rmSync(temp, { force: true });
    } catch {
      // Nothing was written there.
    }
  }
}

function readIfPresent(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    // Absent (or DATA_DIR is not a directory: creating it then says so).
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new ConfigError(
      API_KEY_SECRET_VARIABLE,
      `is unset and ${file} cannot be read (${(error as Error).message})`,
    );
  }
}

function parseSecretFile(text: string, file: string): Buffer {
  const secret = parseSecret(text);
  if (!secret) {
    throw new ConfigError(
      API_KEY_SECRET_VARIABLE,
      `is unset and ${file} does not hold ${FORMAT}; restore it (keys created under it stop working without it) or set the variable`,
    );
  }
  return secret;
}
