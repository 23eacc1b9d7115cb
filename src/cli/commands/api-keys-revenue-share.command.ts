import type { ApiKeysService, RevenueShareSettings } from '../../api-keys/api-keys.service.js';
import { ApiError } from '../../common/http/api-error.js';
import { flagOption, type OptionSpecs, parseCommandLine, stringOption } from '../command-line.js';
import type { CliOutput } from '../output.js';

export const REVENUE_SHARE_USAGE =
  'api-keys:revenue-share <id|prefix> [--kyb-verified | --no-kyb-verified] [--payout-address <0x…|none>]';

export const REVENUE_SHARE_OPTIONS: OptionSpecs = {
  'kyb-verified': { type: 'boolean', description: "record that the key's KYB verification is complete" },
  'no-kyb-verified': { type: 'boolean', description: 'record that it is not (any longer)' },
  'payout-address': {
    type: 'string',
    value: '<0x…|none>',
    needs: 'an EVM address or none',
    description: 'the address whose app-fee balance receives the share; none clears it',
  },
};

/** Pure: the key and settings of `api-keys:revenue-share`, or the problem with them. */
export function parseRevenueShareArgs(
  args: readonly string[],
): { idOrPrefix: string; settings: RevenueShareSettings } | string {
  const parsed = parseCommandLine(REVENUE_SHARE_OPTIONS, args);
  if (typeof parsed === 'string') return parsed;
  const [idOrPrefix, extra] = parsed.positionals;
  if (extra !== undefined) return `Unexpected argument ${JSON.stringify(extra)}`;
  if (flagOption(parsed, 'kyb-verified') && flagOption(parsed, 'no-kyb-verified')) {
    return 'give --kyb-verified or --no-kyb-verified once';
  }
  const kybVerified = flagOption(parsed, 'kyb-verified')
    ? true
    : flagOption(parsed, 'no-kyb-verified')
      ? false
      : undefined;
  const address = stringOption(parsed, 'payout-address');
  const payoutAddress = address === 'none' ? null : address;
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
