import { type CreateApiKeyInput, validateApiKeyInput } from '../../api-keys/api-key-input.js';
import type { ApiKeysService } from '../../api-keys/api-keys.service.js';
import { ApiError } from '../../common/http/api-error.js';
import {
  flagOption,
  type OptionSpecs,
  optionsSummary,
  parseCommandLine,
  stringOption,
  stringOptions,
} from '../command-line.js';
import type { CliOutput } from '../output.js';
import { parseHeaderOptions } from './webhooks-common.command.js';

export const CREATE_API_KEY_USAGE = 'api-keys:create --label <label> [options]';

export const CREATE_API_KEY_OPTIONS: OptionSpecs = {
  label: { type: 'string', value: '<label>', description: "the key's name in listings (required)" },
  'rate-limit': {
    type: 'string',
    value: '<perMinute>',
    needs: 'a positive whole number of requests per minute',
    description: 'requests per minute for this key (default: the configured default)',
  },
  sponsorship: { type: 'boolean', description: "the key's quotes may have their fees sponsored" },
  'sponsor-address': {
    type: 'string',
    value: '<0x…>',
    needs: 'an EVM address',
    description: 'the app-fee balance that pays what the key sponsors',
  },
  'webhook-url': {
    type: 'string',
    value: '<url>',
    description: "the key's webhook endpoint (the target policy of webhooks:set applies)",
  },
  'webhook-header': {
    type: 'string',
    multiple: true,
    value: "'Name: value'",
    needs: '"Name: value"',
    description: 'a header sent with every delivery (repeatable)',
  },
};

export interface CreateApiKeyDeps {
  readonly apiKeys: Pick<ApiKeysService, 'create'>;
  /** Shown when the key has no limit of its own (`apiKeys.defaultRateLimitPerMinute`). */
  readonly defaultRateLimitPerMinute: number;
  /**
   * The webhook target policy (`webhookEndpointCheck(config.webhooks)`, as `webhooks:set` applies): a `--webhook-url`
   * it refuses is rejected with the reason before the key is created.
   */
  readonly checkWebhook?: (url: string, headers: Readonly<Record<string, string>>) => Promise<string | null>;
}

/**
 * Pure: the options of `api-keys:create` (`--name value` or `--name=value`), or the problem with them. Checked
 * before the database is opened; the service validates the values themselves.
 */
export function parseCreateApiKeyArgs(args: readonly string[]): CreateApiKeyInput | string {
  const parsed = parseCommandLine(CREATE_API_KEY_OPTIONS, args);
  if (typeof parsed === 'string') return parsed;
  if (parsed.positionals.length > 0) return `Unexpected argument ${JSON.stringify(parsed.positionals[0])}`;
  const rateLimit = stringOption(parsed, 'rate-limit');
  if (rateLimit !== undefined && (!/^[0-9]+$/.test(rateLimit) || Number(rateLimit) < 1)) {
    return `--rate-limit needs a positive whole number of requests per minute (got ${rateLimit})`;
  }
  const webhookHeaders = parseHeaderOptions(stringOptions(parsed, 'webhook-header'), '--webhook-header');
  if (typeof webhookHeaders === 'string') return webhookHeaders;
  const label = stringOption(parsed, 'label');
  if (label === undefined) return '--label is required';
  const sponsorAddress = stringOption(parsed, 'sponsor-address');
  return {
    label,
    rateLimitPerMinute: rateLimit === undefined ? undefined : Number(rateLimit),
    feeSponsorshipEnabled: flagOption(parsed, 'sponsorship'),
    webhookUrl: stringOption(parsed, 'webhook-url'),
    webhookHeaders,
    ...(sponsorAddress === undefined ? {} : { sponsorAddress }),
  };
}

/**
 * `api-keys:create`: creates a key and prints it once, with a warning that it cannot be shown again. Returns the
 * exit code: 0, or 1 for bad options or settings.
 */
export async function createApiKeyCommand(
  deps: CreateApiKeyDeps,
  args: readonly string[],
  output: CliOutput,
): Promise<number> {
  const input = parseCreateApiKeyArgs(args);
  if (typeof input === 'string') {
    output.err(input);
    output.err(`Usage: npm run cli -- ${CREATE_API_KEY_USAGE}`);
    output.err(optionsSummary(CREATE_API_KEY_OPTIONS));
    return 1;
  }
  let created;
  try {
    const valid = validateApiKeyInput(input);
    const problem =
      valid.webhookUrl === null ? null : await deps.checkWebhook?.(valid.webhookUrl, valid.webhookHeaders);
    if (problem) throw new ApiError('INVALID_INPUT', problem);
    created = await deps.apiKeys.create(input);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    output.err(`Cannot create the API key: ${error.message}`);
    return 1;
  }
  const headers = created.webhookHeaderNames;
  output.out(`Created API key ${created.id} "${created.label}"`);
  output.out(`  key:             ${created.key}`);
  output.out(`  prefix:          ${created.keyPrefix}`);
  output.out(
    `  rate limit:      ${
      created.rateLimitPerMinute === null
        ? `${deps.defaultRateLimitPerMinute}/min (the default)`
        : `${created.rateLimitPerMinute}/min`
    }`,
  );
  output.out(
    `  fee sponsorship: ${created.feeSponsorshipEnabled ? 'enabled' : 'disabled'}${
      created.sponsorAddress ? ` (paid from the app-fee balance of ${created.sponsorAddress})` : ''
    }`,
  );
  output.out(
    `  webhook:         ${created.webhookUrl ?? '-'}${headers.length ? ` (headers: ${headers.join(', ')})` : ''}`,
  );
  output.out('');
  output.out(
    'Store the key now: it cannot be shown again (Ferry keeps only its hash and an encrypted copy).',
  );
  return 0;
}
