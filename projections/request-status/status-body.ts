import type { RequestStatus } from '../../src/requests/domain/request-status.js';
import type { RequestStatusState } from './request-status.projection.js';

/**
 * The body of `GET /intents/status/v3` (and of the older `GET /intents/status`). Times are unix milliseconds;
 * `failReason` and `refundFailReason` follow v3 (null when absent).
 */
export interface RequestStatusBody {
  readonly status: RequestStatus;
  /** Extra context: why a quote expired, which request superseded this one, decoded revert data; else null. */
  readonly details: string | null;
  /** Origin-chain deposit transactions. */
  readonly inTxHashes: readonly string[];
  /** Destination-chain fills and origin-chain refunds. */
  readonly txHashes: readonly string[];
  readonly updatedAt: number;
  readonly originChainId: number;
  readonly destinationChainId: number;
  readonly quoteCreatedAt: number;
  readonly failReason: string | null;
  readonly refundFailReason: string | null;
}

/**
 * Pure: the status answer for a request. An expired quote keeps `waiting` (nothing was deposited, so nothing moves)
 * and says so in `details`.
 */
export function toStatusBody({ record, failureDetails }: RequestStatusState): RequestStatusBody {
  const { v3 } = record;
  return {
    status: v3.status,
    details: detailsOf({ record, failureDetails }),
    inTxHashes: v3.data.inTxs.map((tx) => tx.txHash),
    txHashes: v3.data.outTxs.map((tx) => tx.txHash),
    updatedAt: Date.parse(v3.updatedAt),
    originChainId: record.originChainId,
    destinationChainId: record.destinationChainId,
    quoteCreatedAt: Date.parse(record.quotedAt),
    failReason: v3.data.failReason,
    refundFailReason: v3.data.refundFailReason,
  };
}

function detailsOf({ record, failureDetails }: RequestStatusState): string | null {
  const { v3 } = record;
  if (v3.status === 'waiting' && record.expired) {
    return `Quote expired (${record.expiredReason ?? 'QUOTE_EXPIRED'}): it no longer accepts a deposit; request a new quote`;
  }
  if (v3.supersededByRequestId) {
    return `Superseded by request ${v3.supersededByRequestId}, which owns the sweep and the fill`;
  }
  return failureDetails;
}
