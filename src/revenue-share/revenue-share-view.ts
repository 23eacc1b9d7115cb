import type { ApiKeySummary } from '../api-keys/api-keys.service.js';
import type { Database } from '../database/database.js';
import { Decimal, formatUsd } from '../quotes/domain/pricing/decimal.js';
import { REVENUE_SHARE_WINDOW_DAYS, tierOf } from './revenue-share-tiers.js';
import { trailingVolumesUsd } from './trailing-volume.js';
import { isUndefinedTable } from '../database/undefined-table.js';

const DAY_MS = 86_400_000;

/** A key's revenue share as operators see it (`api-keys:list`, `GET /admin/api-keys/…/revenue-share`). */
export interface RevenueShareView {
  readonly apiKeyId: string;
  readonly keyPrefix: string;
  readonly label: string;
  readonly kybVerified: boolean;
  readonly payoutAddress: string | null;
  /** USD of the key's requests that succeeded in the last 30 days; null while the volume projection is first built. */
  readonly trailingVolumeUsd: string | null;
  /** The tier that volume reaches (`10M-100M`, `100M-1B`), or null below 10M USD. */
  readonly tier: string | null;
  /** KYB verified, a payout address, and a tier: the key's next successful requests earn a share. */
  readonly earning: boolean;
}

/** The revenue-share view of each key, its trailing volume read as of `now`. */
export async function revenueShareViews(
  db: Pick<Database, 'query'>,
  keys: readonly ApiKeySummary[],
  now: Date,
): Promise<RevenueShareView[]> {
  const window = { from: new Date(now.getTime() - REVENUE_SHARE_WINDOW_DAYS * DAY_MS), before: now };
  let volumes: Map<string, string> | null;
  try {
    volumes = await trailingVolumesUsd(
      db,
      keys.map((key) => key.id),
      window,
    );
  } catch (error) {
    if (!isUndefinedTable(error)) throw error;
    volumes = null;
  }
  const views = keys.map((key): RevenueShareView => {
    const raw = volumes?.get(key.id);
    const volume = raw === undefined ? null : formatUsd(Decimal.parse(raw, 'floor'));
    const tier = volume === null ? null : (tierOf(volume)?.name ?? null);
    return {
      apiKeyId: key.id,
      keyPrefix: key.keyPrefix,
      label: key.label,
      kybVerified: key.kybVerified,
      payoutAddress: key.revenueShareAddress,
      trailingVolumeUsd: volume,
      tier,
      earning: key.kybVerified && key.revenueShareAddress !== null && tier !== null,
    };
  });
  return views;
}
