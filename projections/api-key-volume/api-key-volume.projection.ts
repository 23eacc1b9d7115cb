import type { RecordedEvent } from '../../src/event-store/event-store.js';
import type { FillSucceededData, RequestQuotedData } from '../../src/requests/domain/request-events.js';
import type { Projection } from '../projection.js';

/** One request quoted with an API key: whose, its USD volume, and when it succeeded (null until it does). */
export interface ApiKeyVolumeRow {
  readonly apiKeyId: string;
  /** The quote's input value in USD (`currencyIn.amountUsd`): the volume the request adds to its key. */
  readonly volumeUsd: string;
  readonly completedAt: string | null;
}

const REQUEST_PREFIX = 'request-';

/**
 * Each API key's volume, one row per request quoted with a key (docs/api-keys.md, "Revenue share"). A request counts
 * once it succeeded (`completed_at`), by its quoted input value in USD; the trailing-30-day volume of a key, and of
 * each day, is a sum over `(api_key_id, completed_at)`. Rows of requests that never succeed keep `completed_at` null.
 */
export const apiKeyVolumeProjection: Projection<ApiKeyVolumeRow> = {
  name: 'api-key-volume',
  version: 1,
  table: 'api_key_volume',
  columns: [
    { name: 'api_key_id', type: 'text', value: (state) => state.apiKeyId },
    { name: 'volume_usd', type: 'numeric', value: (state) => state.volumeUsd },
    { name: 'completed_at', type: 'timestamptz', value: (state) => state.completedAt },
  ],
  indexes: [{ name: 'key_completed_idx', columns: ['api_key_id', 'completed_at'] }],
  keysOf: (event: RecordedEvent) => {
    if (!event.streamId.startsWith(REQUEST_PREFIX)) return [];
    if (event.type === 'RequestQuoted' && (event.data as RequestQuotedData).apiKeyId) {
      return [event.streamId.slice(REQUEST_PREFIX.length)];
    }
    return event.type === 'FillSucceeded' ? [event.streamId.slice(REQUEST_PREFIX.length)] : [];
  },
  evolve: (state, event) => {
    if (event.type === 'RequestQuoted') {
      const quote = event.data as RequestQuotedData;
      return { apiKeyId: quote.apiKeyId!, volumeUsd: quote.currencyIn.amountUsd, completedAt: null };
    }
    // A success of a request quoted without a key has no row.
    if (!state) return null;
    return { ...state, completedAt: (event.data as FillSucceededData).completedAt };
  },
};
