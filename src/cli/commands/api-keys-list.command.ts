import type { ApiKeySummary, ApiKeysService } from '../../api-keys/api-keys.service.js';
import { formatTable } from '../format.js';
import type { CliOutput } from '../output.js';

export interface ListApiKeysDeps {
  readonly apiKeys: Pick<ApiKeysService, 'list'>;
  readonly defaultRateLimitPerMinute: number;
}

const HEADER = ['ID', 'PREFIX', 'LABEL', 'RATE/MIN', 'SPONSORSHIP', 'WEBHOOK', 'CREATED', 'REVOKED'];

/** `api-keys:list`: one row per key, revoked ones included; never a secret. Returns the exit code (0). */
export async function listApiKeysCommand(deps: ListApiKeysDeps, output: CliOutput): Promise<number> {
  const keys = await deps.apiKeys.list();
  if (keys.length === 0) {
    output.out('No API keys. Create one with: npm run cli -- api-keys:create --label <label>');
    return 0;
  }
  const rows = [HEADER, ...keys.map((key) => apiKeyRow(key, deps.defaultRateLimitPerMinute))];
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

/** ISO 8601 to the second, UTC. */
export function formatTime(time: Date): string {
  return time.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
