import { timingSafeEqual } from 'node:crypto';
import { secretDigest } from '../../common/secret-digest.js';
import { ConfigError } from '../../config/config.error.js';
import type { Env } from '../../config/resolve-placeholders.js';

export interface OracleApiKey {
  /** SHA-256 of the key: what requests are compared against (the key itself is not kept). */
  readonly digest: Buffer;
  /** The operator's name for the key, logged instead of it. */
  readonly label: string;
}

/**
 * The oracle's keys (`API_KEYS`), or null: its routes are open. The contract allows an open oracle, but in production
 * it would sign for anyone who reaches the port (the API's own port when mounted), so production refuses to start
 * without `API_KEYS` unless `ORACLE_ALLOW_OPEN=true` says it is open on purpose. Development and test stay open.
 * Used by the standalone oracle and by the one mounted in the API process (`mounted`, named in the error).
 */
export function oracleApiKeys(env: Env, environment: string, mounted = false): OracleApiKey[] | null {
  const allowOpen = env.ORACLE_ALLOW_OPEN;
  if (allowOpen !== undefined && allowOpen !== '' && allowOpen !== 'true' && allowOpen !== 'false') {
    throw new ConfigError('ORACLE_ALLOW_OPEN', `must be true or false (got "${allowOpen}")`);
  }
  if (env.API_KEYS) return parseApiKeys(env.API_KEYS);
  if (environment === 'production' && allowOpen !== 'true') {
    throw new ConfigError(
      'API_KEYS',
      `is required in production${mounted ? ' when the oracle is mounted (ORACLE_MOUNT)' : ''}: without it every ` +
        'attestation route answers anyone. Set <key>:<label>;… or, to serve the oracle open on purpose, ' +
        'ORACLE_ALLOW_OPEN=true',
    );
  }
  return null;
}

/**
 * `API_KEYS`: `<key>:<label>` entries separated by `;` (a trailing `;` and spaces around entries are fine). A
 * malformed entry, or a key listed twice, stops start-up; the error names the entry by position, never its key.
 */
export function parseApiKeys(text: string): OracleApiKey[] {
  const entries = text.split(';').map((entry) => entry.trim());
  if (entries.at(-1) === '') entries.pop();
  const keys = entries.map((entry, index) => {
    const colon = entry.indexOf(':');
    const key = colon > 0 ? entry.slice(0, colon) : '';
    const label = colon > 0 ? entry.slice(colon + 1).trim() : '';
    if (!key || !label || /\s/.test(key)) {
      throw new ConfigError(
        'API_KEYS',
        `entry ${index + 1} must be <key>:<label> (a key without spaces, a label)`,
      );
    }
    return { digest: secretDigest(key), label };
  });
  if (keys.length === 0) throw new ConfigError('API_KEYS', 'holds no <key>:<label> entry');
  const seen = new Set<string>();
  for (const [index, key] of keys.entries()) {
    const hex = key.digest.toString('hex');
    if (seen.has(hex)) throw new ConfigError('API_KEYS', `entry ${index + 1} repeats an earlier key`);
    seen.add(hex);
  }
  return keys;
}

/**
 * The label of the key `presented`, or null. Every configured key is compared, each in constant time over fixed-size
 * digests, so neither the answer's timing nor the key's length tells an attacker how close a guess came.
 */
export function labelOf(keys: readonly OracleApiKey[], presented: string): string | null {
  const digest = secretDigest(presented);
  let label: string | null = null;
  for (const key of keys) {
    if (timingSafeEqual(key.digest, digest) && label === null) label = key.label;
  }
  return label;
}
