import type { ApiKeysService, RevenueShareSettings } from '../../api-keys/api-keys.service.js';
import { ApiError } from '../../common/http/api-error.js';
import type { CliOutput } from '../output.js';

export const REVENUE_SHARE_USAGE =
  'api-keys:revenue-share <id|prefix> [--kyb-verified | --no-kyb-verified] [--payout-address <0x…|none>]';

/** Pure: the key and settings of `api-keys:revenue-share`, or the problem with them. */
export function parseRevenueShareArgs(
  args: readonly string[],
): { idOrPrefix: string; settings: RevenueShareSettings } | string {
  let idOrPrefix: string | undefined;
  let kybVerified: boolean | undefined;
  let payoutAddress: string | null | undefined;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    if (arg === '--kyb-verified' || arg === '--no-kyb-verified') {
      if (kybVerified !== undefined) return 'give --kyb-verified or --no-kyb-verified once';
      kybVerified = arg === '--kyb-verified';
    } else if (arg === '--payout-address' || arg.startsWith('--payout-address=')) {
      const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[++i];
      if (value === undefined || value.startsWith('--'))
        return '--payout-address needs an EVM address or none';
      payoutAddress = value === 'none' ? null : value;
    } else if (arg.startsWith('-')) {
      return `Unknown option ${arg}`;
    } else if (idOrPrefix === undefined) {
      idOrPrefix = arg;
    } else {
      return `Unexpected argument ${JSON.stringify(arg)}`;
    }
  }
  if (idOrPrefix === undefined) return 'the key (its id or fk_… prefix) is required';
  if (kybVerified === undefined && payoutAddress === undefined) {
    return 'give --kyb-verified, --no-kyb-verified or --payout-address';
  }
  return {
    idOrPrefix,
    settings: {
      ...(kybVerified === undefined ? {} : { kybVerified }),
      ...(payoutAddress === undefined ? {} : { payoutAddress }),
    },
  };
}

/**
 * `api-keys:revenue-share`: records a key's KYB verification and the address its revenue share is paid to (its
 * app-fee balance). Returns the exit code: 0, or 1 for bad options, an unknown key or a malformed address.
 */
export async function revenueShareCommand(
  deps: { readonly apiKeys: Pick<ApiKeysService, 'setRevenueShare'> },
  args: readonly string[],
  output: CliOutput,
): Promise<number> {
  const parsed = parseRevenueShareArgs(args);
  if (typeof parsed === 'string') {
    output.err(parsed);
    output.err(`Usage: npm run cli -- ${REVENUE_SHARE_USAGE}`);
    return 1;
  }
  try {
    const key = await deps.apiKeys.setRevenueShare(parsed.idOrPrefix, parsed.settings);
    output.out(`API key ${key.id} (${key.keyPrefix}…, "${key.label}")`);
    output.out(`  KYB verified:   ${key.kybVerified ? 'yes' : 'no'}`);
    output.out(`  share paid to:  ${key.revenueShareAddress ?? '- (none: the key earns no share)'}`);
    return 0;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    output.err(`Cannot set the revenue share: ${error.message}`);
    return 1;
  }
}
