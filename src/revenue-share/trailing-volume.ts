import type { Database } from '../database/database.js';

/**
 * An API key's volume in USD (a decimal string) of requests that succeeded in `[from, before)`, from the
 * `api-key-volume` projection.
 */
export async function trailingVolumeUsd(
  db: Pick<Database, 'query'>,
  apiKeyId: string,
  window: { readonly from: Date; readonly before: Date },
): Promise<string> {
  const { rows } = await db.query<{ volume: string }>(
    `SELECT coalesce(sum(volume_usd), 0)::text AS volume FROM api_key_volume
      WHERE api_key_id = $1 AND completed_at >= $2 AND completed_at < $3`,
    [apiKeyId, window.from.toISOString(), window.before.toISOString()],
  );
  return rows[0].volume;
}
