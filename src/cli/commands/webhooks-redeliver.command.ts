import { ApiError } from '../../common/http/api-error.js';
import { ISO_INSTANT_HINT, parseIsoInstant } from '../../webhooks/admin/iso-instant.js';
import type { WebhookDeliveriesService } from '../../webhooks/delivery/webhook-deliveries.service.js';
import type { CliOutput } from '../output.js';
import { optionValue, parseOptions } from './webhooks-common.command.js';

export const REDELIVER_USAGE = 'webhooks:redeliver <id|whk_…> | --failed --since <iso>';
export const REDELIVER_OPTIONS =
  'Options: --failed --since <iso> [--key <apiKeyId>] (every failed delivery since then)';

export type RedeliverArgs =
  | { readonly kind: 'one'; readonly id: string }
  | { readonly kind: 'failed'; readonly since: Date; readonly apiKeyId?: string };

/** Pure: one delivery, or every failed one since a time; or the problem (checked before the database is opened). */
export function parseRedeliverArgs(args: readonly string[]): RedeliverArgs | string {
  const parsed = parseOptions(args, { '--failed': 'flag', '--since': 'value', '--key': 'value' });
  if (typeof parsed === 'string') return parsed;
  if (!parsed.options.has('--failed')) {
    if (parsed.options.size > 0) return '--since and --key go with --failed';
    if (parsed.positional.length !== 1)
      return 'Name one delivery (its id or whk_… webhook id), or use --failed --since';
    return { kind: 'one', id: parsed.positional[0].trim() };
  }
  if (parsed.positional.length > 0) return 'Give a delivery id or --failed, not both';
  const sinceText = optionValue(parsed, '--since');
  if (sinceText === undefined)
    return '--failed needs --since <iso> (redelivering every failure ever is not offered)';
  const since = parseIsoInstant(sinceText);
  if (since === null) return `--since must be ${ISO_INSTANT_HINT} (got ${JSON.stringify(sinceText)})`;
  const apiKeyId = optionValue(parsed, '--key');
  return apiKeyId === undefined ? { kind: 'failed', since } : { kind: 'failed', since, apiKeyId };
}

/**
 * `webhooks:redeliver`: queues one failed (or delivered) delivery again — same X-Webhook-Id and body, a fresh
 * signature and retry budget — or every failed delivery created since a time (optionally of one key). Exit code 0;
 * 1 for bad arguments, an unknown delivery or one still pending.
 */
export async function redeliverCommand(
  deps: { readonly deliveries: Pick<WebhookDeliveriesService, 'redeliver' | 'redeliverFailed'> },
  args: readonly string[],
  output: CliOutput,
): Promise<number> {
  const input = parseRedeliverArgs(args);
  if (typeof input === 'string') {
    output.err(input);
    output.err(`Usage: npm run cli -- ${REDELIVER_USAGE}`);
    output.err(REDELIVER_OPTIONS);
    return 1;
  }
  try {
    if (input.kind === 'one') {
      const delivery = await deps.deliveries.redeliver(input.id);
      output.out(
        `Queued delivery ${delivery.id} (${delivery.webhookId}, ${delivery.status} of ${delivery.requestId}) again`,
      );
      return 0;
    }
    const count = await deps.deliveries.redeliverFailed(input.since, input.apiKeyId);
    const scope = input.apiKeyId === undefined ? '' : ` of API key ${input.apiKeyId}`;
    output.out(
      `Queued ${count} failed deliver${count === 1 ? 'y' : 'ies'}${scope} created since ${input.since.toISOString()} again`,
    );
    return 0;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    output.err(error.message);
    return 1;
  }
}
