import type { RecordedEvent } from '../../src/event-store/event-store.js';
import type { Projection, ProjectionIndex } from '../projection.js';
import { evolveRequestRecord } from '../requests/request-record.js';
import type { RequestRecordState } from '../requests/request-record-state.js';
import { requestRecordCodec } from '../requests/stored-record.js';
import {
  amountUsdOf,
  appFeesAmountUsdOf,
  fillTimeSecondsOf,
  hashesOf,
  normalizeHex,
  searchTermsOf,
} from './requests-v3.columns.js';

const STREAM_PREFIX = 'request-';

/**
 * Only listed requests are ever read (a quote never deposited is not history), so every index but the primary key
 * is partial on `listed`, and each keyset sort ends with `id` so that pages are total orders.
 */
const byCreatedAt = (name: string, leading: readonly string[]): ProjectionIndex => ({
  name,
  columns: [...leading, 'created_at DESC', 'id DESC'],
  where: 'listed',
});

/**
 * The v3 request records behind `GET /requests/v3`: one row per request (id = the request id, lower-cased, as in its
 * stream id), the state is the shared fold `evolveRequestRecord`, and the columns are what the query filters and
 * sorts on. Addresses, hashes and ids are stored lower-cased when they are EVM hex and exactly otherwise.
 */
export const requestsV3Projection: Projection<RequestRecordState> = {
  name: 'requests-v3',
  version: 4,
  table: 'requests_v3',
  fold: 'request-record',
  // Currencies stored once per row, referenced from each amount (`stored-record.ts`).
  codec: requestRecordCodec,
  columns: [
    { name: 'listed', type: 'boolean', value: (s) => s.listed },
    { name: 'status', type: 'text', value: (s) => s.v3.status },
    { name: 'created_at', type: 'timestamptz', value: (s) => s.v3.createdAt },
    { name: 'updated_at', type: 'timestamptz', value: (s) => s.v3.updatedAt },
    { name: 'api_key_id', type: 'text', value: (s) => s.apiKeyId },
    { name: 'user_address', type: 'text', value: (s) => normalizeHex(s.v3.user) },
    { name: 'sender', type: 'text', value: (s) => normalizeHex(s.v3.sender) },
    { name: 'recipient', type: 'text', value: (s) => normalizeHex(s.v3.recipient) },
    {
      name: 'deposit_address',
      type: 'text',
      value: (s) => (s.v3.depositAddress ? normalizeHex(s.v3.depositAddress.address) : null),
    },
    { name: 'order_id', type: 'text', value: (s) => normalizeHex(s.v3.protocol.orderId) },
    { name: 'origin_chain_id', type: 'bigint', value: (s) => s.originChainId },
    { name: 'destination_chain_id', type: 'bigint', value: (s) => s.destinationChainId },
    { name: 'request_type', type: 'text', value: (s) => s.v3.requestType },
    { name: 'fail_reason', type: 'text', value: (s) => s.v3.data.failReason },
    { name: 'refund_fail_reason', type: 'text', value: (s) => s.v3.data.refundFailReason },
    { name: 'currency_in_chain_id', type: 'bigint', value: (s) => s.currencyIn.chainId },
    { name: 'currency_in_address', type: 'text', value: (s) => normalizeHex(s.currencyIn.address) },
    { name: 'currency_in_symbol', type: 'text', value: (s) => s.currencyIn.symbol.toLowerCase() },
    { name: 'currency_out_chain_id', type: 'bigint', value: (s) => s.currencyOut.chainId },
    { name: 'currency_out_address', type: 'text', value: (s) => normalizeHex(s.currencyOut.address) },
    { name: 'currency_out_symbol', type: 'text', value: (s) => s.currencyOut.symbol.toLowerCase() },
    { name: 'amount_usd', type: 'numeric', value: amountUsdOf },
    { name: 'app_fees_amount_usd', type: 'numeric', value: appFeesAmountUsdOf },
    { name: 'fill_time_seconds', type: 'numeric', value: fillTimeSecondsOf },
    { name: 'deposit_block', type: 'bigint', value: (s) => s.depositBlock },
    { name: 'features', type: 'text[]', value: (s) => s.v3.features },
    { name: 'search_terms', type: 'text[]', value: searchTermsOf },
    { name: 'deposit_tx_hashes', type: 'text[]', value: (s) => hashesOf(s, 'deposit') },
    { name: 'fill_tx_hashes', type: 'text[]', value: (s) => hashesOf(s, 'fill') },
    { name: 'refund_tx_hashes', type: 'text[]', value: (s) => hashesOf(s, 'refund') },
  ],
  indexes: [
    // The three sorts, unfiltered or with filters too broad for their own index (time ranges use the first).
    byCreatedAt('created_idx', []),
    { name: 'updated_idx', columns: ['updated_at DESC', 'id DESC'], where: 'listed' },
    { name: 'amount_idx', columns: ['amount_usd', 'id'], where: 'listed' },
    // Equality filters a wallet or an integrator asks most, each already in the default order.
    byCreatedAt('user_idx', ['user_address']),
    byCreatedAt('recipient_idx', ['recipient']),
    byCreatedAt('origin_chain_idx', ['origin_chain_id']),
    byCreatedAt('destination_chain_idx', ['destination_chain_id']),
    byCreatedAt('status_idx', ['status']),
    byCreatedAt('api_key_idx', ['api_key_id']),
    {
      name: 'deposit_address_idx',
      columns: ['deposit_address'],
      where: 'listed AND deposit_address IS NOT NULL',
    },
    { name: 'order_id_idx', columns: ['order_id'], where: 'listed' },
    // `term` and the per-kind hash filters (the latter narrowed by this index, then checked on their own column).
    { name: 'search_terms_idx', columns: ['search_terms'], using: 'gin', where: 'listed' },
    { name: 'features_idx', columns: ['features'], using: 'gin', where: 'listed' },
  ],
  keysOf: (event: RecordedEvent): readonly string[] =>
    event.streamId.startsWith(STREAM_PREFIX) ? [event.streamId.slice(STREAM_PREFIX.length)] : [],
  evolve: (state: RequestRecordState | null, event: RecordedEvent): RequestRecordState | null =>
    evolveRequestRecord(state, event),
};
