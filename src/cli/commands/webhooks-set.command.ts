import type { ApiKeysService } from '../../api-keys/api-keys.service.js';
import { ApiError } from '../../common/http/api-error.js';
import {
  normalizeWebhookEndpoint,
  webhookEndpointCheck,
  type WebhookEndpointPolicy,
} from '../../webhooks/webhook-endpoint-check.js';
import type { HostResolver } from '../../webhooks/webhook-target.js';
import type { CliOutput } from '../output.js';
import {
  type OptionSpecs,
  optionsSummary,
  parseCommandLine,
  stringOption,
  stringOptions,
} from '../command-line.js';
import { endpointLines, parseHeaderOptions } from './webhooks-common.command.js';

export const SET_WEBHOOK_USAGE = 'webhooks:set <apiKeyId|prefix> --url <url> [options]';
export const SET_WEBHOOK_OPTIONS: OptionSpecs = {
  url: {
    type: 'string',
    value: '<url>',
    description: 'the endpoint (HTTPS, public targets only) (required)',
  },
  header: {
    type: 'string',
    multiple: true,
    value: "'Name: value'",
    description: 'a header sent with every delivery (repeatable)',
  },
};

export interface SetWebhookDeps {
  readonly apiKeys: Pick<ApiKeysService, 'setWebhook'>;
  /** `config.webhooks`: whether the development allowance (loopback targets) applies. */
  readonly policy: WebhookEndpointPolicy;
  /** Tests resolve host names from a table; the system resolver otherwise. */
  readonly resolve?: HostResolver;
}

export interface SetWebhookArgs {
  readonly key: string;
  readonly url: string;
  readonly headers: Record<string, string>;
}

/** Pure: the arguments of `webhooks:set`, or the problem with them (checked before the database is opened). */
export function parseSetWebhookArgs(args: readonly string[]): SetWebhookArgs | string {
  const parsed = parseCommandLine(SET_WEBHOOK_OPTIONS, args);
  if (typeof parsed === 'string') return parsed;
  if (parsed.positionals.length !== 1) return 'Name one API key (its id or fk_… prefix)';
  const url = stringOption(parsed, 'url');
  if (url === undefined) return '--url is required';
  const headers = parseHeaderOptions(stringOptions(parsed, 'header'));
  if (typeof headers === 'string') return headers;
  return { key: parsed.positionals[0], url, headers };
}

/**
 * `webhooks:set`: sets (or replaces) an API key's endpoint and custom headers after the target policy has accepted
 * them, re-enabling an endpoint that was disabled. Prints the header names only. Exit code 0, or 1 when the key is
 * unknown or the endpoint refused (with the reason).
 */
export async function setWebhookCommand(
  deps: SetWebhookDeps,
  args: readonly string[],
  output: CliOutput,
): Promise<number> {
  const input = parseSetWebhookArgs(args);
  if (typeof input === 'string') {
    output.err(input);
    output.err(`Usage: npm run cli -- ${SET_WEBHOOK_USAGE}`);
    output.err(optionsSummary(SET_WEBHOOK_OPTIONS));
    return 1;
  }
  const endpoint = normalizeWebhookEndpoint(input.url, input.headers);
  let key;
  try {
    key = await deps.apiKeys.setWebhook(
      input.key.trim(),
      endpoint,
      webhookEndpointCheck(deps.policy, deps.resolve),
    );
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    output.err(error.message);
    return 1;
  }
  output.out(`Webhook endpoint of API key ${key.id} (${key.keyPrefix}…, "${key.label}") set`);
  for (const line of endpointLines(key)) output.out(line);
  return 0;
}
