import { type CreateApiKeyInput, validateApiKeyInput } from '../../api-keys/api-key-input.js';
import type { ApiKeysService } from '../../api-keys/api-keys.service.js';
import { ApiError } from '../../common/http/api-error.js';
import type { CliOutput } from '../output.js';

export const CREATE_API_KEY_USAGE = 'api-keys:create --label <label> [options]';
export const CREATE_API_KEY_OPTIONS =
  "Options: --rate-limit <perMinute>, --sponsorship, --sponsor-address <0x…> (the app-fee balance that pays), --webhook-url <url>, --webhook-header 'Name: value' (repeatable)";

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
  let label: string | undefined;
  let rateLimitPerMinute: number | undefined;
  let feeSponsorshipEnabled = false;
  let webhookUrl: string | undefined;
  let sponsorAddress: string | undefined;
  const webhookHeaders: Record<string, string> = {};
  for (let i = 0; i < args.length; i += 1) {
    const [flag, inline] =
      args[i].startsWith('--') && args[i].includes('=')
        ? [args[i].slice(0, args[i].indexOf('=')), args[i].slice(args[i].indexOf('=') + 1)]
        : [args[i], undefined];
    const value = (): string | undefined => {
      if (inline !== undefined) return inline;
      const next = args[i + 1];
      if (next === undefined || next.startsWith('--')) return undefined;
      i += 1;
      return next;
    };
    switch (flag) {
      case '--label': {
        const text = value();
        if (text === undefined) return '--label needs a value';
        label = text;
        break;
      }
      case '--rate-limit': {
        const text = value();
        if (text === undefined || !/^[0-9]+$/.test(text) || Number(text) < 1) {
          return `--rate-limit needs a positive whole number of requests per minute (got ${text ?? 'nothing'})`;
        }
        rateLimitPerMinute = Number(text);
        break;
      }
      case '--sponsorship':
        if (inline !== undefined) return '--sponsorship takes no value';
        feeSponsorshipEnabled = true;
        break;
      case '--sponsor-address': {
        const text = value();
        if (text === undefined) return '--sponsor-address needs an EVM address';
        sponsorAddress = text;
        break;
      }
      case '--webhook-url': {
        const text = value();
        if (text === undefined) return '--webhook-url needs a value';
        webhookUrl = text;
        break;
      }
      case '--webhook-header': {
        const text = value();
        const colon = text?.indexOf(':') ?? -1;
        if (text === undefined || colon <= 0) {
          return `--webhook-header needs "Name: value" (got ${text === undefined ? 'nothing' : JSON.stringify(text)})`;
        }
        const name = text.slice(0, colon).trim();
        if (Object.keys(webhookHeaders).some((seen) => seen.toLowerCase() === name.toLowerCase())) {
          return `--webhook-header ${name} is given twice`;
        }
        webhookHeaders[name] = text.slice(colon + 1).trim();
        break;
      }
      default:
        return flag.startsWith('-')
          ? `Unknown option ${flag}`
          : `Unexpected argument ${JSON.stringify(flag)}`;
    }
  }
  if (label === undefined) return '--label is required';
  return {
    label,
    rateLimitPerMinute,
    feeSponsorshipEnabled,
    webhookUrl,
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
    output.err(CREATE_API_KEY_OPTIONS);
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
  const headers = Object.keys(created.webhookHeaders);
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
