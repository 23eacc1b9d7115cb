import type { ApiKeysService } from '../../api-keys/api-keys.service.js';
import type { CliOutput } from '../output.js';

/** Exit code when some keys were left as they were (under neither secret, or changed while it ran). */
export const REENCRYPT_INCOMPLETE = 2;

/**
 * `api-keys:reencrypt`: rewrites every API key and webhook header value still under
 * `API_KEY_ENCRYPTION_KEY_PREVIOUS` under `API_KEY_ENCRYPTION_KEY` (docs/operations.md, "Key rotation"). Safe to
 * run beside serving instances and to run again. Exit 0 when every key is under the current secret, 2 when some were
 * left (each named by id, with why), so the previous secret must stay set.
 */
export async function reencryptApiKeysCommand(
  deps: { readonly apiKeys: Pick<ApiKeysService, 'reencrypt'>; readonly rotating: boolean },
  output: CliOutput,
): Promise<number> {
  if (!deps.rotating) {
    output.err(
      'API_KEY_ENCRYPTION_KEY_PREVIOUS is unset: there is no previous secret to rewrite from; only keys already under API_KEY_ENCRYPTION_KEY are readable',
    );
  }
  const result = await deps.apiKeys.reencrypt();
  output.out(
    `Rewrote ${result.rewritten} API key(s) under API_KEY_ENCRYPTION_KEY; ${result.current} already were`,
  );
  for (const { id, problem } of result.unreadable) {
    output.err(`Left API key ${id}: ${problem}`);
  }
  for (const id of result.changedMeanwhile) {
    output.err(`Left API key ${id}: it changed while this ran; run the command again`);
  }
  if (result.unreadable.length + result.changedMeanwhile.length === 0) {
    if (deps.rotating) {
      output.out(
        'Every key is under API_KEY_ENCRYPTION_KEY: API_KEY_ENCRYPTION_KEY_PREVIOUS can now be removed',
      );
    }
    return 0;
  }
  output.err('Keep API_KEY_ENCRYPTION_KEY_PREVIOUS set until a run leaves no key behind');
  return REENCRYPT_INCOMPLETE;
}
