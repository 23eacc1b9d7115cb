import type { Projection } from '../projection.js';
import { requestIdOfStream } from '../request-status/request-status.projection.js';
import { normalizeHex } from '../requests-v3/requests-v3.columns.js';
import { transactionHashes } from '../requests/record-derived.js';
import { evolveRequestRecord } from '../requests/request-record.js';
import type { RequestRecordState } from '../requests/request-record-state.js';
import { requestRecordCodec } from '../requests/stored-record.js';

/**
 * The deprecated `GET /requests/v2` read model: one row per request, folded by the same `evolveRequestRecord` as v3
 * and the status endpoint. The row keeps the fold's state; the v2 record is rendered from it at read time
 * (`toV2Record`), because `delayed` depends on the time of the read. Columns hold what v2's filters and its keyset
 * order need; only `listed` rows (a deposit was seen) are served.
 */
export const requestsV2Projection: Projection<RequestRecordState> = {
  name: 'requests-v2',
  version: 4,
  table: 'requests_v2',
  fold: 'request-record',
  // Currencies stored once per row, referenced from each amount (`stored-record.ts`).
  codec: requestRecordCodec,
  columns: [
    { name: 'listed', type: 'boolean', value: (state) => state.listed },
    { name: 'created_at', type: 'timestamptz', value: (state) => state.v3.createdAt },
    // As in v3: EVM addresses lower-cased (checksums vary in case), others (SVM) kept exactly.
    { name: 'user_address', type: 'text', value: (state) => normalizeHex(state.v3.user) },
    { name: 'origin_chain_id', type: 'bigint', value: (state) => state.originChainId },
    { name: 'destination_chain_id', type: 'bigint', value: (state) => state.destinationChainId },
    { name: 'status', type: 'text', value: (state) => state.v3.status },
    { name: 'tx_hashes', type: 'text[]', value: (state) => transactionHashes(state) },
    { name: 'referrer', type: 'text', value: (state) => state.referrer },
  ],
  indexes: [
    { name: 'created_idx', columns: ['created_at DESC', 'id DESC'], where: 'listed' },
    { name: 'user_idx', columns: ['user_address', 'created_at DESC', 'id DESC'], where: 'listed' },
    { name: 'referrer_idx', columns: ['referrer', 'created_at DESC', 'id DESC'], where: 'listed' },
    { name: 'tx_hashes_idx', columns: ['tx_hashes'], using: 'gin' },
  ],
  keysOf: (event) => {
    const id = requestIdOfStream(event.streamId);
    return id ? [id] : [];
  },
  evolve: (state, event) => evolveRequestRecord(state, event),
};
