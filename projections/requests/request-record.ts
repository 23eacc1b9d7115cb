import type { RecordedEvent } from '../../src/event-store/event-store.js';
import type {
  DepositConfirmedData,
  DepositAddressFundedData,
  DepositDetectedData,
  DepositSubmittedData,
  FillFailedData,
  FillSubmittedData,
  FillSucceededData,
  RefundFailedData,
  RefundSkippedData,
  RefundSubmittedData,
  RefundSucceededData,
  RequestExpiredData,
  RequestQuotedData,
  RequestSupersededData,
} from '../../src/requests/domain/request-events.js';
import { nextStatus } from '../../src/requests/domain/request-status.js';
import { amountOf } from './record-amounts.js';
import { recordFromQuote } from './record-from-quote.js';
import type { RecordTx, RequestRecordState, RequestV3 } from './request-record-state.js';

const txRecord = (
  chainId: number,
  txHash: string,
  kind: RecordTx['data']['kind'],
  status: RecordTx['status'],
  onchain?: { block: number; timestamp: number; fee: string },
): RecordTx => ({
  txHash,
  fee: onchain?.fee ?? null,
  block: onchain?.block ?? null,
  type: 'onchain',
  chainId,
  timestamp: onchain?.timestamp ?? null,
  status,
  data: { kind },
  stateChanges: [],
});
const sameTx = (a: { chainId: number; txHash: string }, chainId: number, txHash: string) =>
  a.chainId === chainId && a.txHash.toLowerCase() === txHash.toLowerCase();

/** Puts `tx` in place of the same transaction, or appends it. */
function upsertTx(list: readonly RecordTx[], tx: RecordTx): RecordTx[] {
  const index = list.findIndex((item) => sameTx(item, tx.chainId, tx.txHash));
  return index < 0 ? [...list, tx] : list.map((item, i) => (i === index ? tx : item));
}

/**
 * Pure: the request's read-side record after one of its events. Shared by the v3, v2 and status projections, so the
 * three never disagree on what happened.
 */
export function evolveRequestRecord(
  state: RequestRecordState | null,
  event: RecordedEvent,
): RequestRecordState | null {
  if (event.type === 'RequestQuoted') return recordFromQuote(event.data as RequestQuotedData);
  if (!state) return null;
  const to = nextStatus(state.v3.status, event.type as never) ?? state.v3.status;
  const touch = (v3: RequestV3, at: string, listed = state.listed): RequestRecordState => ({
    ...state,
    listed,
    v3: { ...v3, status: to, updatedAt: at },
  });
  const { v3 } = state;
  switch (event.type) {
    case 'DepositDetected': {
      const e = event.data as DepositDetectedData;
      const next = touch(
        {
          ...v3,
          depositAddress:
            v3.depositAddress && !state.depositAddressFundedByBalance
              ? { ...v3.depositAddress, depositTxHash: v3.depositAddress.depositTxHash ?? e.txHash }
              : v3.depositAddress,
          data: {
            ...v3.data,
            inTxs: upsertTx(v3.data.inTxs, txRecord(e.chainId, e.txHash, 'deposit', 'pending', e)),
          },
        },
        e.detectedAt,
        true,
      );
      return {
        ...next,
        depositBlock: state.depositBlock ?? e.block,
        depositSeenAtMs: state.depositSeenAtMs ?? Date.parse(e.detectedAt),
      };
    }
    case 'DepositSubmitted': {
      const e = event.data as DepositSubmittedData;
      const inTxs = e.txHash
        ? upsertTx(v3.data.inTxs, txRecord(e.chainId, e.txHash, 'deposit', 'pending'))
        : v3.data.inTxs;
      return {
        ...touch({ ...v3, data: { ...v3.data, inTxs } }, e.submittedAt, true),
        depositSubmittedVia: e.via,
      };
    }
    case 'DepositConfirmed': {
      const e = event.data as DepositConfirmedData;
      const origin = v3.protocol.deposit.origin;
      const depositedAmount = amountOf(v3.data.route.quoted.origin.inputCurrency, e.amount);
      const next = touch(
        {
          ...v3,
          depositAddress:
            v3.depositAddress && !state.depositAddressFundedByBalance
              ? {
                  ...v3.depositAddress,
                  // A deposit address's own transfer (DepositAddressFunded) names them first; the sweep does not.
                  depositTxHash: v3.depositAddress.depositTxHash ?? e.txHash,
                  depositor: v3.depositAddress.depositor ?? e.depositor,
                }
              : v3.depositAddress,
          protocol: {
            ...v3.protocol,
            deposit: {
              origin: { ...origin, amount: e.amount, depositor: e.depositor, transactionId: e.txHash },
            },
          },
          data: {
            ...v3.data,
            inTxs: upsertTx(v3.data.inTxs, txRecord(e.chainId, e.txHash, 'deposit', 'success', e)),
            route: {
              ...v3.data.route,
              actual: {
                ...v3.data.route.actual,
                origin: { ...v3.data.route.actual.origin, inputCurrency: depositedAmount },
              },
            },
          },
        },
        e.confirmedAt,
        true,
      );
      return {
        ...next,
        depositBlock: e.block,
        depositSeenAtMs: state.depositSeenAtMs ?? Date.parse(e.confirmedAt),
      };
    }
    case 'FillSubmitted': {
      const e = event.data as FillSubmittedData;
      return touch(
        {
          ...v3,
          data: {
            ...v3.data,
            outTxs: upsertTx(v3.data.outTxs, txRecord(e.chainId, e.txHash, 'fill', 'pending')),
          },
        },
        e.submittedAt,
      );
    }
    case 'FillSucceeded': {
      const e = event.data as FillSucceededData;
      const actual = v3.data.route.actual;
      const received = e.currencyOut;
      const route = actual.destination
        ? { ...actual, destination: { ...actual.destination, outputCurrency: received }, rate: e.rate }
        : { ...actual, origin: { ...actual.origin, outputCurrency: received }, rate: e.rate };
      const next = touch(
        {
          ...v3,
          protocol: settled(v3.protocol, 'fills', e),
          data: {
            ...v3.data,
            outTxs: upsertTx(v3.data.outTxs, txRecord(e.chainId, e.txHash, 'fill', 'success', e)),
            fees: { ...v3.data.fees, actual: e.fees },
            appFees: { ...v3.data.appFees, actual: e.appFees },
            feeSponsorship: v3.data.feeSponsorship
              ? { ...v3.data.feeSponsorship, actual: e.feeSponsorship }
              : null,
            route: { ...v3.data.route, actual: route },
            // Destination calls that failed after the payment (undone; the output went to the recipient).
            failedCallData: e.failedCallData ?? v3.data.failedCallData,
          },
        },
        e.completedAt,
      );
      return { ...next, filledAtMs: Date.parse(e.completedAt) };
    }
    case 'FillFailed': {
      const e = event.data as FillFailedData;
      const outTxs = e.failedTxHash
        ? v3.data.outTxs.map((tx) =>
            tx.txHash.toLowerCase() === e.failedTxHash!.toLowerCase()
              ? { ...tx, status: 'failure' as const }
              : tx,
          )
        : v3.data.outTxs;
      return touch(
        {
          ...v3,
          data: {
            ...v3.data,
            outTxs,
            failReason: e.failReason,
            failedTxHash: e.failedTxHash,
            failedTxBlockNumber: e.failedTxBlockNumber,
            failedCallData: e.failedCallData,
          },
        },
        e.failedAt,
      );
    }
    case 'RefundSubmitted': {
      const e = event.data as RefundSubmittedData;
      return touch(
        {
          ...v3,
          data: {
            ...v3.data,
            failReason: v3.data.failReason ?? e.reason,
            outTxs: upsertTx(v3.data.outTxs, txRecord(e.chainId, e.txHash, 'refund', 'pending')),
            refundCurrencyData: amountOf(v3.data.route.quoted.origin.inputCurrency, e.amount),
          },
        },
        e.submittedAt,
      );
    }
    case 'RefundSucceeded': {
      const e = event.data as RefundSucceededData;
      return touch(
        {
          ...v3,
          protocol: settled(v3.protocol, 'refunds', e),
          data: {
            ...v3.data,
            outTxs: upsertTx(v3.data.outTxs, txRecord(e.chainId, e.txHash, 'refund', 'success', e)),
            refundCurrencyData: amountOf(v3.data.route.quoted.origin.inputCurrency, e.amount),
          },
        },
        e.refundedAt,
      );
    }
    case 'RefundFailed': {
      const e = event.data as RefundFailedData;
      const outTxs = e.failedTxHash
        ? v3.data.outTxs.map((tx) =>
            tx.txHash.toLowerCase() === e.failedTxHash!.toLowerCase()
              ? { ...tx, status: 'failure' as const }
              : tx,
          )
        : v3.data.outTxs;
      return touch(
        {
          ...v3,
          data: {
            ...v3.data,
            outTxs,
            failReason: v3.data.failReason ?? 'REFUND_REQUIRED',
            refundFailReason: e.refundFailReason,
          },
        },
        e.failedAt,
      );
    }
    case 'RefundSkipped': {
      // No refund transaction: the deposit stays in the depository, worth less than a refund's gas.
      const e = event.data as RefundSkippedData;
      return touch({ ...v3, data: { ...v3.data, refundFailReason: e.refundFailReason } }, e.skippedAt);
    }
    case 'RequestExpired': {
      const e = event.data as RequestExpiredData;
      const failing = to === 'failure';
      return {
        ...touch(
          { ...v3, data: { ...v3.data, failReason: failing ? e.reason : v3.data.failReason } },
          e.expiredAt,
        ),
        expired: true,
        expiredReason: e.reason,
      };
    }
    case 'DepositAddressFunded': {
      // The user's transfer into the deposit address: its sender and hash are the record's depositor and
      // depositTxHash (the spec's "origin-chain hash of the depositor transfer"), and it lists the request.
      const e = event.data as DepositAddressFundedData;
      if (e.observedBy === 'balance') {
        // Found by the address's balance: no sender or transaction is known, and none is made up (the spec's
        // depositor and depositTxHash are nullable); the sweep's deposit must not stand in for them either.
        return { ...touch(v3, e.detectedAt, true), depositAddressFundedByBalance: true };
      }
      return touch(
        {
          ...v3,
          depositAddress: v3.depositAddress
            ? { ...v3.depositAddress, depositor: e.depositor, depositTxHash: e.txHash }
            : null,
          data: {
            ...v3.data,
            inTxs: upsertTx(v3.data.inTxs, txRecord(e.chainId, e.txHash, 'deposit', 'success', e)),
          },
        },
        e.detectedAt,
        true,
      );
    }
    case 'RequestSuperseded': {
      const e = event.data as RequestSupersededData;
      return touch({ ...v3, supersededByRequestId: e.supersededByRequestId }, e.supersededAt);
    }
    default:
      return state;
  }
}

/** The protocol block with one more fill or refund in `settlement.destination`. */
function settled(
  protocol: RequestV3['protocol'],
  kind: 'fills' | 'refunds',
  tx: { chainId: number; txHash: string },
): RequestV3['protocol'] {
  const destination = protocol.settlement.destination;
  return {
    ...protocol,
    settlement: {
      destination: {
        ...destination,
        [kind]: [...destination[kind], { chainId: tx.chainId, transactionId: tx.txHash }],
      },
    },
  };
}
