import { ApiError } from '../../common/http/api-error.js';
import type {
  DeliveryState,
  DeliverySummary,
  ListDeliveriesQuery,
  WebhookDeliveriesService,
} from '../../webhooks/delivery/webhook-deliveries.service.js';
import { ISO_INSTANT_HINT, parseIsoInstant } from '../../webhooks/admin/iso-instant.js';
import { formatTable, toJson } from '../format.js';
import type { CliOutput } from '../output.js';
import {
  flagOption,
  JSON_OPTION,
  type OptionSpecs,
  optionsSummary,
  parseCommandLine,
  stringOption,
} from '../command-line.js';
import { DELIVERY_STATES, lastOutcome, time } from './webhooks-common.command.js';

export const LIST_DELIVERIES_USAGE = 'webhooks:deliveries [filters]';

const MAX_LIMIT = 1000;
const HEADER = ['ID', 'WEBHOOK ID', 'KEY', 'REQUEST', 'STATUS', 'STATE', 'ATTEMPTS', 'LAST', 'CREATED'];

export const LIST_DELIVERIES_OPTIONS: OptionSpecs = {
  failed: { type: 'boolean', description: 'only failed deliveries (as --state failed)' },
  state: {
    type: 'string',
    value: '<pending|delivered|failed>',
    description: 'only deliveries in this state',
  },
  key: { type: 'string', value: '<apiKeyId>', description: 'only deliveries of this API key (its id)' },
  request: { type: 'string', value: '<requestId>', description: 'only deliveries about this request' },
  since: { type: 'string', value: '<iso>', description: 'only deliveries created at or after this time' },
  limit: {
    type: 'string',
    value: '<n>',
    description: `at most n deliveries (default 50, at most ${MAX_LIMIT})`,
  },
  json: JSON_OPTION,
};

/** What `webhooks:deliveries` was asked for: the query and whether to print JSON. */
export interface ListDeliveriesArgs extends ListDeliveriesQuery {
  readonly json?: boolean;
}

/** Pure: the filters of `webhooks:deliveries`, or the problem with them (checked before the database is opened). */
export function parseListDeliveriesArgs(args: readonly string[]): ListDeliveriesArgs | string {
  const parsed = parseCommandLine(LIST_DELIVERIES_OPTIONS, args);
  if (typeof parsed === 'string') return parsed;
  if (parsed.positionals.length > 0) return `Unexpected argument ${JSON.stringify(parsed.positionals[0])}`;
  const failed = flagOption(parsed, 'failed');
  const stateText = stringOption(parsed, 'state');
  if (failed && stateText !== undefined) return 'Give --failed or --state, not both';
  if (stateText !== undefined && !DELIVERY_STATES.includes(stateText as DeliveryState)) {
    return `--state must be one of ${DELIVERY_STATES.join(', ')} (got ${JSON.stringify(stateText)})`;
  }
  const state = failed ? 'failed' : (stateText as DeliveryState | undefined);
  const sinceText = stringOption(parsed, 'since');
  const since = sinceText === undefined ? undefined : parseIsoInstant(sinceText);
  if (since === null) return `--since must be ${ISO_INSTANT_HINT} (got ${JSON.stringify(sinceText)})`;
  const limitText = stringOption(parsed, 'limit');
  if (
    limitText !== undefined &&
    (!/^[0-9]+$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > MAX_LIMIT)
  ) {
    return `--limit must be a whole number from 1 to ${MAX_LIMIT} (got ${JSON.stringify(limitText)})`;
  }
  return {
    state,
    apiKeyId: stringOption(parsed, 'key'),
    requestId: stringOption(parsed, 'request'),
    since,
    limit: limitText === undefined ? undefined : Number(limitText),
    json: flagOption(parsed, 'json'),
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
 * request, status, state, attempts, last status code or error, created; with `--json`, the same deliveries as a JSON
 * array. Exit code 0, or 1 for a bad filter.
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
    output.err(optionsSummary(LIST_DELIVERIES_OPTIONS));
    return 1;
  }
  const { json, ...filters } = query;
  let deliveries;
  try {
    deliveries = await deps.deliveries.list(filters);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    output.err(error.message);
    return 1;
  }
  if (json) {
    output.out(toJson(deliveries, 2));
    return 0;
  }
  if (deliveries.length === 0) {
    output.out('No webhook deliveries match.');
    return 0;
  }
  for (const line of formatTable([HEADER, ...deliveries.map(deliveryRow)])) output.out(line);
  return 0;
}
