import type { ApiKeysService } from '../../api-keys/api-keys.service.js';
import { ApiError } from '../../common/http/api-error.js';
import type { CliOutput } from '../output.js';
import { formatTime } from './api-keys-list.command.js';

/**
 * `api-keys:revoke <id|prefix>`: revokes a key (by id, displayed prefix, or the full key); requests with it are
 * refused from then on. Idempotent. Returns the exit code: 0, or 1 when nothing (or more than one key) matches.
 */
export async function revokeApiKeyCommand(
  deps: { readonly apiKeys: Pick<ApiKeysService, 'revoke'> },
  idOrPrefix: string,
  output: CliOutput,
): Promise<number> {
  let result;
  try {
    result = await deps.apiKeys.revoke(idOrPrefix);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    output.err(error.message);
    return 1;
  }
  const { apiKey, alreadyRevoked } = result;
  const revokedAt = formatTime(apiKey.revokedAt!);
  output.out(
    alreadyRevoked
      ? `API key ${apiKey.id} (${apiKey.keyPrefix}…, "${apiKey.label}") was already revoked at ${revokedAt}`
      : `Revoked API key ${apiKey.id} (${apiKey.keyPrefix}…, "${apiKey.label}") at ${revokedAt}`,
  );
  return 0;
}
