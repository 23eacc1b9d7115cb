import { ApiError } from '../../common/http/api-error.js';
import type {
  DeliveryState,
  DeliverySummary,
  ListDeliveriesQuery,
  WebhookDeliveriesService,
} from '../../webhooks/delivery/webhook-deliveries.service.js';
import { ISO_INSTANT_HINT, parseIsoInstant } from '../../webhooks/admin/iso-instant.js';
import { formatTable } from '../format.js';
import type { CliOutput } from '../output.js';
import { DELIVERY_STATES, lastOutcome, optionValue, parseOptions, time } from './webhooks-common.command.js';

export const LIST_DELIVERIES_USAGE = 'webhooks:deliveries [filters]';
export const LIST_DELIVERIES_OPTIONS =
  'Filters: --failed | --state <pending|delivered|failed>, --key <apiKeyId>, --request <requestId>, --since <iso>, --limit <n> (default 50)';

const MAX_LIMIT = 1000;
const HEADER = ['ID', 'WEBHOOK ID', 'KEY', 'REQUEST', 'STATUS', 'STATE', 'ATTEMPTS', 'LAST', 'CREATED'];

/** Pure: the filters of `webhooks:deliveries`, or the problem with them (checked before the database is opened). */
export function parseListDeliveriesArgs(args: readonly string[]): ListDeliveriesQuery | string {
  const parsed = parseOptions(args, {
    '--failed': 'flag',
    '--state': 'value',
    '--key': 'value',
    '--request': 'value',
    '--since': 'value',
    '--limit': 'value',
  });
  if (typeof parsed === 'string') return parsed;
  if (parsed.positional.length > 0) return `Unexpected argument ${JSON.stringify(parsed.positional[0])}`;
  const failed = parsed.options.has('--failed');
  const stateText = optionValue(parsed, '--state');
  if (failed && stateText !== undefined) return 'Give --failed or --state, not both';
  if (stateText !== undefined && !DELIVERY_STATES.includes(stateText as DeliveryState)) {
    return `--state must be one of ${DELIVERY_STATES.join(', ')} (got ${JSON.stringify(stateText)})`;
  }
  const state = failed ? 'failed' : (stateText as DeliveryState | undefined);
  const sinceText = optionValue(parsed, '--since');
  const since = sinceText === undefined ? undefined : parseIsoInstant(sinceText);
  if (since === null) return `--since must be ${ISO_INSTANT_HINT} (got ${JSON.stringify(sinceText)})`;
  const limitText = optionValue(parsed, '--limit');
  if (
    limitText !== undefined &&
    (!/^[0-9]+$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > MAX_LIMIT)
  ) {
    return `--limit must be a whole number from 1 to ${MAX_LIMIT} (got ${JSON.stringify(limitText)})`;
  }
  return {
    state,
    apiKeyId: optionValue(parsed, '--key'),
    requestId: optionValue(parsed, '--request'),
    since,
    limit: limitText === undefined ? undefined : Number(limitText),
  };
}

/** Pure: the table cells of one delivery. */
export function deliveryRow(delivery: DeliverySummary): string[] {
  return [
    delivery.id,
    delivery.webhookId,
    delivery.apiKeyId,
    delivery.requestId,
    delivery.status,
    delivery.state,
    String(delivery.attempts),
    lastOutcome(delivery),
    time(delivery.createdAt),
  ];
}

/**
 * `webhooks:deliveries`: the delivery log, newest first (50 unless `--limit`), as a table: id, webhook id, key,
 * request, status, state, attempts, last status code or error, created. Exit code 0, or 1 for a bad filter.
 */
export async function listDeliveriesCommand(
  deps: { readonly deliveries: Pick<WebhookDeliveriesService, 'list'> },
  args: readonly string[],
  output: CliOutput,
): Promise<number> {
  const query = parseListDeliveriesArgs(args);
  if (typeof query === 'string') {
    output.err(query);
    output.err(`Usage: npm run cli -- ${LIST_DELIVERIES_USAGE}`);
    output.err(LIST_DELIVERIES_OPTIONS);
    return 1;
  }
  let deliveries;
  try {
    deliveries = await deps.deliveries.list(query);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    output.err(error.message);
    return 1;
  }
  if (deliveries.length === 0) {
    output.out('No webhook deliveries match.');
    return 0;
  }
  for (const line of formatTable([HEADER, ...deliveries.map(deliveryRow)])) output.out(line);
  return 0;
}
