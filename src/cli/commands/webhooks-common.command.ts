/**
 * Shared by the `webhooks:*` commands: their header options and the way they print deliveries. (Named like a command
 * file to sit beside them; it registers nothing.)
 */
import type { ApiKeySummary } from '../../api-keys/api-keys.service.js';
import type { DeliveryState, DeliverySummary } from '../../webhooks/delivery/webhook-deliveries.service.js';
import { formatTime } from './api-keys-list.command.js';

/** Pure: `'Name: value'` lines into a header object, or the problem (no colon, a name given twice). */
export function parseHeaderOptions(
  lines: readonly string[],
  flag = '--header',
): Record<string, string> | string {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) return `${flag} needs "Name: value" (got ${JSON.stringify(line)})`;
    const name = line.slice(0, colon).trim();
    if (Object.keys(headers).some((seen) => seen.toLowerCase() === name.toLowerCase())) {
      return `${flag} ${name} is given twice`;
    }
    headers[name] = line.slice(colon + 1).trim();
  }
  return headers;
}

export const DELIVERY_STATES: readonly DeliveryState[] = ['pending', 'delivered', 'failed'];

/**
 * Text from a receiver (an error, a response excerpt) made safe for a terminal: control characters (incl. escape
 * sequences, CR and LF) are shown as `\uXXXX`, so one attempt stays on one line and cannot repaint the screen.
 */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/** `text` cut to `max` characters with an ellipsis. */
export const truncate = (text: string, max: number): string =>
  [...text].length <= max ? text : `${[...text].slice(0, max - 1).join('')}…`;

/** The last attempt in a few characters: `500`, `503 timeout …`, `connect ECONNREFUSED …`, or `-`. */
export function lastOutcome(delivery: Pick<DeliverySummary, 'lastStatusCode' | 'lastError'>): string {
  const parts = [
    delivery.lastStatusCode === null ? '' : String(delivery.lastStatusCode),
    delivery.lastError === null ? '' : truncate(printable(delivery.lastError), 48),
  ].filter((part) => part !== '');
  return parts.length ? parts.join(' ') : '-';
}

export const time = (at: Date | null): string => (at ? formatTime(at) : '-');

/** Header names in a stable order (jsonb keeps none), case-insensitively. */
const sortedNames = (names: readonly string[]): string[] =>
  [...names].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));

/** The summary lines of an endpoint after `webhooks:set` / `webhooks:remove` (header names only). */
export function endpointLines(key: ApiKeySummary): string[] {
  return [
    `  url:      ${key.webhookUrl ?? '-'}`,
    `  headers:  ${key.webhookHeaderNames.length ? sortedNames(key.webhookHeaderNames).join(', ') : '-'}`,
    `  state:    ${
      key.webhookUrl === null
        ? 'no endpoint'
        : key.webhookDisabledAt
          ? `disabled since ${formatTime(key.webhookDisabledAt)}: ${key.webhookDisabledReason ?? 'by an operator'}`
          : 'enabled'
    }`,
  ];
}
