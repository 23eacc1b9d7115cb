import { toStatusBody } from '../../projections/request-status/status-body.js';
import type { RequestRecordState } from '../../projections/requests/request-record-state.js';
import type { RequestStatus } from '../requests/domain/request-status.js';

/** The one event kind the spec defines. */
export const STATUS_UPDATED_EVENT = 'request.status.updated';
/** What the webhook says where v3 has null (spec: Errors, item 6). */
export const NOT_APPLICABLE = 'N/A';
/** `failReason` on a failed or refunded request that recorded no reason. */
export const UNKNOWN_REASON = 'UNKNOWN';

/** Statuses on which `failReason` carries the recorded reason (`fallback` is in the spec's rule, not in our set). */
const FAILURE_STATUSES: readonly string[] = ['failure', 'fallback', 'refund'];

export interface WebhookDepositAddress {
  readonly address: string;
  readonly depositAddressType: 'open' | 'strict';
  readonly depositor: string | null;
  readonly depositTxHash: string | null;
}

/** `request.status.updated` exactly as the spec's payload table has it (field order as there). */
export interface StatusUpdatedPayload {
  readonly event: typeof STATUS_UPDATED_EVENT;
  /** Unix ms: when Ferry recorded the status change (the event's append time). */
  readonly timestamp: number;
  readonly data: {
    readonly status: RequestStatus;
    readonly inTxHashes: readonly string[];
    readonly txHashes: readonly string[];
    /** Unix ms: the request's last change, the time the fact itself carries (as `GET /intents/status/v3`). */
    readonly updatedAt: number;
    readonly originChainId: number;
    readonly destinationChainId: number;
    readonly depositAddress: WebhookDepositAddress | null;
    readonly requestId: string;
    readonly referrer: string | null;
    readonly details: string | null;
    readonly failReason: string;
    readonly refundFailReason: string;
  };
}

export interface StatusPayloadOptions {
  /**
   * Unix ms of the status-change event: when it was recorded in the event store (`RecordedEvent.createdAt`). It is
   * part of the body, so it must be the event's time, never the send time (retries send the same body).
   */
  readonly eventTimestampMs: number;
  /**
   * `FillFailed.details` (e.g. decoded revert data) when the request failed, which the shared record does not keep
   * (`RequestStatusState.failureDetails`). Expiry and supersession context is derived from the record itself.
   */
  readonly failureDetails?: string | null;
}

/**
 * Pure: the `request.status.updated` payload for a request's record right after a status change.
 *
 * - `inTxHashes`: the deposit transactions (`v3.data.inTxs`); `txHashes`: fills then refunds (`v3.data.outTxs`).
 * - `timestamp` is the event's recorded time (`options.eventTimestampMs`); `data.updatedAt` is `v3.updatedAt`, the
 *   time the fact carries (the chain watcher's or solver's report), so it matches `GET /intents/status/v3`.
 * - `details`: the same text as `GET /intents/status/v3` (expired quote, superseded request, failure details).
 * - `failReason`: `N/A` except on `failure` and `refund`, where it is the recorded reason or `UNKNOWN`.
 * - `refundFailReason`: the recorded refund-leg failure, else `N/A`.
 */
export function buildStatusPayload(
  state: RequestRecordState,
  options: StatusPayloadOptions,
): StatusUpdatedPayload {
  const { eventTimestampMs } = options;
  if (!Number.isSafeInteger(eventTimestampMs) || eventTimestampMs < 0) {
    throw new RangeError(`eventTimestampMs must be unix milliseconds (got ${eventTimestampMs})`);
  }
  const { v3 } = state;
  const updatedAt = Date.parse(v3.updatedAt);
  if (!Number.isFinite(updatedAt)) throw new RangeError(`request ${v3.id} has no valid updatedAt`);
  const deposit = v3.depositAddress;
  return {
    event: STATUS_UPDATED_EVENT,
    timestamp: eventTimestampMs,
    data: {
      status: v3.status,
      inTxHashes: v3.data.inTxs.map((tx) => tx.txHash),
      txHashes: v3.data.outTxs.map((tx) => tx.txHash),
      updatedAt,
      originChainId: state.originChainId,
      destinationChainId: state.destinationChainId,
      depositAddress: deposit
        ? {
            address: deposit.address,
            depositAddressType: deposit.type,
            depositor: deposit.depositor ?? null,
            depositTxHash: deposit.depositTxHash ?? null,
          }
        : null,
      requestId: v3.id,
      referrer: state.referrer ?? null,
      details: toStatusBody({ record: state, failureDetails: options.failureDetails ?? null }).details,
      failReason: FAILURE_STATUSES.includes(v3.status)
        ? (v3.data.failReason ?? UNKNOWN_REASON)
        : NOT_APPLICABLE,
      refundFailReason: v3.data.refundFailReason ?? NOT_APPLICABLE,
    },
  };
}

/**
 * The body string, serialised once per event and stored with the delivery: every attempt sends (and signs) these
 * exact bytes. Keys are written in the spec's order whatever the input object's order (e.g. a payload read back from
 * a `jsonb` column, which reorders keys), so the same payload always gives the same string. No whitespace.
 */
export function serializePayload(payload: StatusUpdatedPayload): string {
  const { data } = payload;
  const deposit = data.depositAddress;
  return JSON.stringify({
    event: payload.event,
    timestamp: payload.timestamp,
    data: {
      status: data.status,
      inTxHashes: [...data.inTxHashes],
      txHashes: [...data.txHashes],
      updatedAt: data.updatedAt,
      originChainId: data.originChainId,
      destinationChainId: data.destinationChainId,
      depositAddress: deposit
        ? {
            address: deposit.address,
            depositAddressType: deposit.depositAddressType,
            depositor: deposit.depositor,
            depositTxHash: deposit.depositTxHash,
          }
        : null,
      requestId: data.requestId,
      referrer: data.referrer,
      details: data.details,
      failReason: data.failReason,
      refundFailReason: data.refundFailReason,
    },
  });
}
