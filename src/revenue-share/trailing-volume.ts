import type { Database } from '../database/database.js';

export interface VolumeWindow {
  readonly from: Date;
  readonly before: Date;
}

/**
 * An API key's volume in USD (a decimal string) of requests that succeeded in `[from, before)`, from the
 * `api-key-volume` projection.
 */
export async function trailingVolumeUsd(
  db: Pick<Database, 'query'>,
  apiKeyId: string,
  window: VolumeWindow,
): Promise<string> {
  return (await trailingVolumesUsd(db, [apiKeyId], window)).get(apiKeyId) ?? '0';
}

/**
 * The same for many keys in one statement (operators list thousands of keys): each key's volume, '0' for a key with
 * none in the window.
 */
export async function trailingVolumesUsd(
  db: Pick<Database, 'query'>,
  apiKeyIds: readonly string[],
  window: VolumeWindow,
): Promise<Map<string, string>> {
  const volumes = new Map(apiKeyIds.map((id) => [id, '0']));
  if (apiKeyIds.length === 0) return volumes;
  const { rows } = await db.query<{ api_key_id: string; volume: string }>(
    `SELECT api_key_id, sum(volume_usd)::text AS volume FROM api_key_volume
      WHERE api_key_id = ANY($1::text[]) AND completed_at >= $2 AND completed_at < $3
      GROUP BY api_key_id`,
    [apiKeyIds, window.from.toISOString(), window.before.toISOString()],
  );
  for (const row of rows) volumes.set(row.api_key_id, row.volume);
  return volumes;
}
