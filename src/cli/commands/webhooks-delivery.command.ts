import { ApiError } from '../../common/http/api-error.js';
import type {
  DeliveryDetails,
  WebhookDeliveriesService,
} from '../../webhooks/delivery/webhook-deliveries.service.js';
import type { CliOutput } from '../output.js';
import { printable, time } from './webhooks-common.command.js';

/** Pure: a delivery's details, then its body and every attempt (receiver text made safe for a terminal). */
export function deliveryLines(delivery: DeliveryDetails): string[] {
  const lines = [
    `Delivery ${delivery.id}`,
    `  webhook id:    ${delivery.webhookId}`,
    `  API key:       ${delivery.apiKeyId}`,
    `  request:       ${delivery.requestId}`,
    `  status:        ${delivery.status}`,
    `  state:         ${delivery.state}`,
    `  attempts:      ${delivery.attempts}`,
    `  created:       ${time(delivery.createdAt)}`,
    `  next attempt:  ${delivery.state === 'pending' ? time(delivery.nextAttemptAt) : '-'}`,
    `  last attempt:  ${time(delivery.lastAttemptAt)}`,
    `  delivered:     ${time(delivery.deliveredAt)}`,
    `  body:          ${printable(delivery.body)}`,
    '',
  ];
  if (delivery.attemptLog.length === 0) {
    lines.push('No attempts yet.');
    return lines;
  }
  lines.push(`Attempts (${delivery.attemptLog.length}):`);
  for (const attempt of delivery.attemptLog) {
    const outcome = [
      attempt.statusCode === null ? 'no answer' : `HTTP ${attempt.statusCode}`,
      `${attempt.latencyMs} ms`,
      ...(attempt.error === null ? [] : [`error: ${printable(attempt.error)}`]),
    ];
    lines.push(`  #${attempt.attempt}  ${time(attempt.attemptedAt)}  ${outcome.join('  ')}`);
    if (attempt.responseExcerpt !== null && attempt.responseExcerpt !== '') {
      lines.push(`      response: ${printable(attempt.responseExcerpt)}`);
    }
  }
  return lines;
}

/**
 * `webhooks:delivery <id|whk_…>`: one delivery (by its id or its X-Webhook-Id) with its body and attempt log: time,
 * status code, latency, error and response excerpt of each attempt. Exit code 0, or 1 when there is no such delivery.
 */
export async function showDeliveryCommand(
  deps: { readonly deliveries: Pick<WebhookDeliveriesService, 'get'> },
  id: string,
  output: CliOutput,
): Promise<number> {
  let delivery;
  try {
    delivery = await deps.deliveries.get(id.trim());
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    output.err(error.message);
    return 1;
  }
  for (const line of deliveryLines(delivery)) output.out(line);
  return 0;
}
