import type { ApiKeysService } from '../../api-keys/api-keys.service.js';
import { ApiError } from '../../common/http/api-error.js';
import type { CliOutput } from '../output.js';

/**
 * `webhooks:remove <apiKeyId|prefix>`: removes an API key's endpoint (and its custom headers); no new deliveries are
 * made for the key. Exit code 0, or 1 when no key (or more than one) matches.
 */
export async function removeWebhookCommand(
  deps: { readonly apiKeys: Pick<ApiKeysService, 'removeWebhook'> },
  idOrPrefix: string,
  output: CliOutput,
): Promise<number> {
  let key;
  try {
    key = await deps.apiKeys.removeWebhook(idOrPrefix.trim());
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    output.err(error.message);
    return 1;
  }
  output.out(`Webhook endpoint of API key ${key.id} (${key.keyPrefix}…, "${key.label}") removed`);
  return 0;
}
