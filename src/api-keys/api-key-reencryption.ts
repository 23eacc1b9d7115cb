import type { Database } from '../database/database.js';
import type { ApiKeyRing } from './api-key-ring.js';
import type { StoredHeaders } from './api-keys.service.js';

/** What `reencryptApiKeys` did. */
export interface ReencryptionResult {
  /** Keys rewritten under the current secret (with their webhook header values). */
  readonly rewritten: number;
  /** Keys already wholly under the current secret. */
  readonly current: number;
  /** Keys whose key or a header value opens under neither secret: left as they are, named by id (never content). */
  readonly unreadable: readonly { readonly id: string; readonly problem: string }[];
  /** Keys changed by someone else while this ran, and left for the next run. */
  readonly changedMeanwhile: readonly string[];
}

interface Row {
  id: string;
  key_hash: string;
  key_ciphertext: string;
  webhook_headers: StoredHeaders;
}

const PAGE = 500;

/**
 * Rewrites every API key, and every webhook header value stored with it, that is still under the previous secret
 * (`API_KEY_ENCRYPTION_KEY_PREVIOUS`) under the current one. Each row is rewritten only if it is still what was
 * read (compare and set on the hash, the ciphertext and the headers), so instances serving meanwhile, or a second run,
 * lose nothing; a run again after it changes nothing. Revocation, labels and limits are never touched. Values in
 * clear (written before header values were encrypted) are sealed too.
 */
export async function reencryptApiKeys(db: Database, ring: ApiKeyRing): Promise<ReencryptionResult> {
  let rewritten = 0;
  let current = 0;
  const unreadable: { id: string; problem: string }[] = [];
  const changedMeanwhile: string[] = [];
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const { rows } = await db.query<Row>(
      `SELECT id, key_hash, key_ciphertext, webhook_headers FROM api_keys
        WHERE id > $1::uuid ORDER BY id LIMIT ${PAGE}`,
      [after],
    );
    if (rows.length === 0) break;
    after = rows[rows.length - 1].id;
    for (const row of rows) {
      let rewrite: { keyHash: string; keyCiphertext: string; headers: StoredHeaders } | null;
      try {
        rewrite = rewriteOf(ring, row);
      } catch (error) {
        unreadable.push({ id: row.id, problem: (error as Error).message });
        continue;
      }
      if (rewrite === null) {
        current += 1;
        continue;
      }
      const result = await db.query(
        `UPDATE api_keys SET key_hash = $2, key_ciphertext = $3, webhook_headers = $4::jsonb
          WHERE id = $1 AND key_hash = $5 AND key_ciphertext = $6 AND webhook_headers = $7::jsonb`,
        [
          row.id,
          rewrite.keyHash,
          rewrite.keyCiphertext,
          JSON.stringify(rewrite.headers),
          row.key_hash,
          row.key_ciphertext,
          JSON.stringify(row.webhook_headers ?? {}),
        ],
      );
      if (result.rowCount === 1) rewritten += 1;
      else changedMeanwhile.push(row.id);
    }
  }
  return { rewritten, current, unreadable, changedMeanwhile };
}

/** The row's values under the current secret, or null when they all are already. Throws when one opens under neither. */
function rewriteOf(
  ring: ApiKeyRing,
  row: Row,
): { keyHash: string; keyCiphertext: string; headers: StoredHeaders } | null {
  const { key, under } = ring.openKey({
    id: row.id,
    keyHash: row.key_hash,
    keyCiphertext: row.key_ciphertext,
  });
  let stale = under === 'previous';
  const headers: StoredHeaders = {};
  for (const [name, stored] of Object.entries(row.webhook_headers ?? {})) {
    if (typeof stored !== 'string') {
      const opened = ring.openHeader(stored.sealed, row.id, name);
      if (opened.under === 'current') {
        headers[name] = stored;
        continue;
      }
      headers[name] = { sealed: ring.sealHeader(opened.value, row.id, name) };
    } else {
      headers[name] = { sealed: ring.sealHeader(stored, row.id, name) };
    }
    stale = true;
  }
  if (!stale) return null;
  return {
    keyHash: ring.hash(key),
    keyCiphertext: under === 'current' ? row.key_ciphertext : ring.sealKey(key, row.id),
    headers,
  };
}
