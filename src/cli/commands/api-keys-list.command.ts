import type { ApiKeySummary, ApiKeysService } from '../../api-keys/api-keys.service.js';
import type { RevenueShareView } from '../../revenue-share/revenue-share-view.js';
import { formatTable, toJson } from '../format.js';
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

/**
 * `api-keys:list`: one row per key, revoked ones included; never a secret. With `json`, the keys as a JSON array
 * (header names, not values). Returns the exit code (0).
 */
export async function listApiKeysCommand(
  deps: ListApiKeysDeps,
  output: CliOutput,
  options: { readonly json?: boolean } = {},
): Promise<number> {
  const keys = await deps.apiKeys.list();
  if (options.json) {
    const shares = new Map((await deps.revenueShare?.(keys))?.map((view) => [view.apiKeyId, view]) ?? []);
    output.out(
      toJson(
        keys.map((key) => apiKeyJson(key, shares.get(key.id))),
        2,
      ),
    );
    return 0;
  }
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

/** Pure: one key as `--json` prints it (the summary has no secret: header names only). */
export function apiKeyJson(key: ApiKeySummary, view: RevenueShareView | undefined) {
  return {
    id: key.id,
    keyPrefix: key.keyPrefix,
    label: key.label,
    rateLimitPerMinute: key.rateLimitPerMinute,
    feeSponsorshipEnabled: key.feeSponsorshipEnabled,
    sponsorAddress: key.sponsorAddress,
    webhookUrl: key.webhookUrl,
    webhookHeaderNames: key.webhookHeaderNames,
    webhookDisabledAt: key.webhookDisabledAt,
    webhookDisabledReason: key.webhookDisabledReason,
    createdAt: key.createdAt,
    revokedAt: key.revokedAt,
    kybVerified: key.kybVerified,
    revenueShareAddress: key.revenueShareAddress,
    trailingVolumeUsd: view?.trailingVolumeUsd ?? null,
    revenueShareTier: view ? (view.tier ?? null) : null,
  };
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
