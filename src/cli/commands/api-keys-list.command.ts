import type { ApiKeySummary, ApiKeysService } from '../../api-keys/api-keys.service.js';
import type { RevenueShareView } from '../../revenue-share/revenue-share-view.js';
import { formatTable } from '../format.js';
import type { CliOutput } from '../output.js';

export interface ListApiKeysDeps {
  readonly apiKeys: Pick<ApiKeysService, 'list'>;
  readonly defaultRateLimitPerMinute: number;
  /** Each key's revenue share (KYB, payout address, trailing-30-day volume, tier); absent: shown as `-`. */
  readonly revenueShare?: (keys: readonly ApiKeySummary[]) => Promise<RevenueShareView[]>;
}

const HEADER = [
  'ID',
  'PREFIX',
  'LABEL',
  'RATE/MIN',
  'SPONSORSHIP',
  'WEBHOOK',
  'CREATED',
  'REVOKED',
  'KYB',
  'SHARE TO',
  '30D VOLUME USD',
  'SHARE TIER',
];

/** `api-keys:list`: one row per key, revoked ones included; never a secret. Returns the exit code (0). */
export async function listApiKeysCommand(deps: ListApiKeysDeps, output: CliOutput): Promise<number> {
  const keys = await deps.apiKeys.list();
  if (keys.length === 0) {
    output.out('No API keys. Create one with: npm run cli -- api-keys:create --label <label>');
    return 0;
  }
  const shares = new Map((await deps.revenueShare?.(keys))?.map((view) => [view.apiKeyId, view]) ?? []);
  const rows = [
    HEADER,
    ...keys.map((key) => [
      ...apiKeyRow(key, deps.defaultRateLimitPerMinute),
      ...revenueShareCells(key, shares.get(key.id)),
    ]),
  ];
  for (const line of formatTable(rows)) output.out(line);
  return 0;
}

/** Pure: the table cells of one key. */
export function apiKeyRow(key: ApiKeySummary, defaultRateLimitPerMinute: number): string[] {
  return [
    key.id,
    `${key.keyPrefix}…`,
    key.label,
    key.rateLimitPerMinute === null
      ? `${defaultRateLimitPerMinute} (default)`
      : String(key.rateLimitPerMinute),
    key.feeSponsorshipEnabled ? 'yes' : 'no',
    key.webhookUrl ?? '-',
    formatTime(key.createdAt),
    key.revokedAt ? formatTime(key.revokedAt) : '-',
  ];
}

/** Pure: the revenue-share cells of one key (volume and tier `-` when not read). */
export function revenueShareCells(key: ApiKeySummary, view: RevenueShareView | undefined): string[] {
  return [
    key.kybVerified ? 'yes' : 'no',
    key.revenueShareAddress ?? '-',
    view?.trailingVolumeUsd ?? '-',
    view ? (view.tier ?? 'none') : '-',
  ];
}

/** ISO 8601 to the second, UTC. */
export function formatTime(time: Date): string {
  return time.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
