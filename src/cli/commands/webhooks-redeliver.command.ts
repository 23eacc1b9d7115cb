import { ApiError } from '../../common/http/api-error.js';
import { ISO_INSTANT_HINT, parseIsoInstant } from '../../webhooks/admin/iso-instant.js';
import type { WebhookDeliveriesService } from '../../webhooks/delivery/webhook-deliveries.service.js';
import type { CliOutput } from '../output.js';
import {
  flagOption,
  type OptionSpecs,
  optionsSummary,
  parseCommandLine,
  stringOption,
} from '../command-line.js';

export const REDELIVER_USAGE = 'webhooks:redeliver <id|whk_…> | --failed --since <iso>';
export const REDELIVER_OPTIONS: OptionSpecs = {
  failed: { type: 'boolean', description: 'every failed delivery created since --since, instead of one' },
  since: { type: 'string', value: '<iso>', description: 'with --failed: created at or after this time' },
  key: { type: 'string', value: '<apiKeyId>', description: 'with --failed: only those of this API key' },
};

export type RedeliverArgs =
  | { readonly kind: 'one'; readonly id: string }
  | { readonly kind: 'failed'; readonly since: Date; readonly apiKeyId?: string };

/** Pure: one delivery, or every failed one since a time; or the problem (checked before the database is opened). */
export function parseRedeliverArgs(args: readonly string[]): RedeliverArgs | string {
  const parsed = parseCommandLine(REDELIVER_OPTIONS, args);
  if (typeof parsed === 'string') return parsed;
  const sinceText = stringOption(parsed, 'since');
  const apiKeyId = stringOption(parsed, 'key');
  if (!flagOption(parsed, 'failed')) {
    if (sinceText !== undefined || apiKeyId !== undefined) return '--since and --key go with --failed';
    if (parsed.positionals.length !== 1)
      return 'Name one delivery (its id or whk_… webhook id), or use --failed --since';
    return { kind: 'one', id: parsed.positionals[0].trim() };
  }
  if (parsed.positionals.length > 0) return 'Give a delivery id or --failed, not both';
  if (sinceText === undefined)
    return '--failed needs --since <iso> (redelivering every failure ever is not offered)';
  const since = parseIsoInstant(sinceText);
  if (since === null) return `--since must be ${ISO_INSTANT_HINT} (got ${JSON.stringify(sinceText)})`;
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
    output.err(optionsSummary(REDELIVER_OPTIONS));
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
