import { eventTypeOf } from '../../event-store/domain-event.js';
import { decideDepositAddressTransfer } from './deposit-address-decide.js';
import {
  type DepositAddressTransferData,
  DepositConfirmed,
  type DepositConfirmedData,
  DepositDetected,
  type DepositDetectedData,
  DepositSubmitted,
  type DepositSubmittedData,
  FillFailed,
  type FillFailedData,
  FillSubmitted,
  type FillSubmittedData,
  FillSucceeded,
  type FillSucceededData,
  OracleAttested,
  type OracleAttestedData,
  RefundFailed,
  type RefundFailedData,
  RefundSkipped,
  type RefundSkippedData,
  RefundSubmitted,
  type RefundSubmittedData,
  RefundSucceeded,
  type RefundSucceededData,
  type RequestEvent,
  type RequestEventType,
  RequestExpired,
  RequestQuoted,
  type RequestQuotedData,
  RequestSuperseded,
  type RequestSupersededData,
  WithdrawalAuthorized,
  type WithdrawalAuthorizedData,
} from './request-events.js';
import {
  depositKey,
  type QuotedState,
  type RequestState,
  sameDeposit,
  type TxKey,
  txKey,
} from './request-state.js';
import { nextStatus } from './request-status.js';
import {
  refuseAfterQuoteExpiry,
  refuseMismatch,
  refuseSecondDeposit,
  unfillableDeposit,
} from './deposit-rules.js';
import { expiryDue } from './request-deadlines.js';
import { RequestDomainError } from './request-errors.js';

export { expiryDue, nextDeadline } from './request-deadlines.js';
export { type DepositMismatch, RequestDomainError, type RequestErrorCode } from './request-errors.js';

/** What can be asked of a request. Each carries its own time; decide() never reads the clock. */
export type RequestCommand =
  | { readonly type: 'RecordQuote'; readonly data: RequestQuotedData }
  | { readonly type: 'DetectDeposit'; readonly data: DepositDetectedData }
  | { readonly type: 'SubmitDeposit'; readonly data: DepositSubmittedData }
  | { readonly type: 'ConfirmDeposit'; readonly data: DepositConfirmedData }
  | { readonly type: 'SubmitFill'; readonly data: FillSubmittedData }
  | { readonly type: 'RecordFillSuccess'; readonly data: FillSucceededData }
  | { readonly type: 'RecordFillFailure'; readonly data: FillFailedData }
  | { readonly type: 'SubmitRefund'; readonly data: RefundSubmittedData }
  | { readonly type: 'RecordRefundSuccess'; readonly data: RefundSucceededData }
  | { readonly type: 'RecordRefundFailure'; readonly data: RefundFailedData }
  | { readonly type: 'SkipRefund'; readonly data: RefundSkippedData }
  | { readonly type: 'ExpireRequest'; readonly data: { readonly at: string } }
  | { readonly type: 'SupersedeRequest'; readonly data: RequestSupersededData }
  | { readonly type: 'AuthorizeWithdrawal'; readonly data: WithdrawalAuthorizedData }
  | { readonly type: 'RecordDepositAddressTransfer'; readonly data: DepositAddressTransferData }
  | { readonly type: 'RecordAttestation'; readonly data: OracleAttestedData };

/** An event decided, with its id when the cause is an outside fact (so the same fact is stored once). */
export interface Decided {
  readonly event: RequestEvent;
  readonly id?: string;
}

/**
 * Pure: the events a command produces from a state, or a RequestDomainError. Facts already recorded (the same
 * deposit, fill or refund reported again) produce no events.
 */
export function decide(state: RequestState, command: RequestCommand): Decided[] {
  if (command.type === 'RecordQuote') {
    if (state.status !== 'none') {
      throw new RequestDomainError(
        'REQUEST_ALREADY_EXISTS',
        `Request ${command.data.requestId} already exists`,
      );
    }
    return [{ event: new RequestQuoted(command.data), id: `${command.data.requestId}:quoted` }];
  }
  if (state.status === 'none')
    throw new RequestDomainError('REQUEST_NOT_FOUND', 'No quote issued this request');

  const id = (kind: string, chainId: number, txHash: string) =>
    `${state.requestId}:${kind}:${txKey(chainId, txHash)}`;
  switch (command.type) {
    case 'DetectDeposit': {
      const data = command.data;
      const key = depositKey(data.chainId, data.txHash, data.logIndex);
      if (state.depositsDetected.some((seen) => sameDeposit(seen, key)) || sameDeposit(depositOf(state), key))
        return [];
      refuseMismatch(state, data);
      return allow(state, new DepositDetected(data), depositId(state, 'deposit-detected', key));
    }
    case 'SubmitDeposit': {
      const tx = command.data.txHash ? txKey(command.data.chainId, command.data.txHash) : null;
      if (state.status === 'depositing' && state.depositSubmittedTx === tx) return [];
      // The table takes it from `waiting` only (not after a confirmed or another submitted deposit); waiting
      // requests may already have seen one.
      const submitted = allow(state, new DepositSubmitted(command.data));
      refuseSecondDeposit(state);
      refuseAfterQuoteExpiry(state);
      return submitted;
    }
    case 'ConfirmDeposit': {
      const data = command.data;
      const key = depositKey(data.chainId, data.txHash, data.logIndex);
      if (sameDeposit(depositOf(state), key)) return [];
      refuseMismatch(state, data);
      const confirmed = allow(state, new DepositConfirmed(data), depositId(state, 'deposit', key));
      // A deposit on the right chain, into the right depository, in the right currency is the request's, but one
      // that is short or came after the quote expired cannot be filled as quoted: it fails now, and is refunded.
      const unfillable = unfillableDeposit(state, data);
      if (!unfillable) return confirmed;
      return [
        ...confirmed,
        {
          event: new FillFailed({
            failReason: unfillable.reason,
            failedTxHash: null,
            failedTxBlockNumber: null,
            failedCallData: null,
            details: unfillable.details,
            failedAt: data.confirmedAt,
          }),
        },
      ];
    }
    case 'SubmitFill': {
      if ('fill' in state && state.fill === txKey(command.data.chainId, command.data.txHash)) return [];
      // The deadline is checked in the same append that reserves the fill: an expiry and a fill cannot both win.
      if (Date.parse(command.data.submittedAt) >= Date.parse(state.fillDeadline)) {
        throw new RequestDomainError(
          'DEADLINE_PASSED',
          `Request ${state.requestId} passed its fill deadline ${state.fillDeadline}; no fill may be submitted`,
        );
      }
      return allow(
        state,
        new FillSubmitted(command.data),
        id('fill-submitted', command.data.chainId, command.data.txHash),
      );
    }
    case 'RecordFillSuccess': {
      const key = txKey(command.data.chainId, command.data.txHash);
      if (state.status === 'success' && state.fill === key) return [];
      if (state.status === 'submitted' && state.fill !== key) {
        throw new RequestDomainError('FILL_MISMATCH', `Fill ${key} is not the submitted fill ${state.fill}`);
      }
      return allow(
        state,
        new FillSucceeded(command.data),
        id('fill', command.data.chainId, command.data.txHash),
      );
    }
    case 'RecordFillFailure':
      if (state.status === 'failure' && state.failReason === command.data.failReason) return [];
      return allow(state, new FillFailed(command.data));
    case 'SubmitRefund': {
      if (state.refundsSubmitted.includes(txKey(command.data.chainId, command.data.txHash))) return [];
      refuseAfterSkip(state, 'SubmitRefund');
      return allow(
        state,
        new RefundSubmitted(command.data),
        id('refund-submitted', command.data.chainId, command.data.txHash),
      );
    }
    case 'RecordRefundSuccess': {
      if (state.status === 'refund' && state.refund === txKey(command.data.chainId, command.data.txHash))
        return [];
      refuseAfterSkip(state, 'RecordRefundSuccess');
      return allow(
        state,
        new RefundSucceeded(command.data),
        id('refund', command.data.chainId, command.data.txHash),
      );
    }
    case 'RecordRefundFailure': {
      // A skipped refund is decided: a late failure of an attempt from before the skip changes nothing.
      if (state.status === 'failure' && state.refundSkipped) return [];
      // A dead refund transaction is told once; so is a refund that could not be sent, however many of its retries
      // fail the same way. A transaction of it found dead later (reverted, dropped, or voided unsent when its job
      // gave up) is still told, so the record shows that refund failed rather than in flight for ever.
      const failedTx = command.data.failedTxHash?.toLowerCase() ?? null;
      if (failedTx !== null && state.refundsFailed.includes(failedTx)) return [];
      const notSent = command.data.refundFailReason === 'REFUND_NOT_SENT';
      const toldNotSent = state.status === 'failure' && state.refundFailReason === 'REFUND_NOT_SENT';
      if (notSent && toldNotSent && failedTx === null) return [];
      return allow(
        state,
        new RefundFailed(command.data),
        failedTx === null ? undefined : `${state.requestId}:refund-failed:${failedTx}`,
      );
    }
    case 'SkipRefund': {
      if (state.status === 'failure' && state.refundSkipped) return [];
      // A refund already submitted may still land: it is followed to its end, never declared skipped under it.
      if (state.refundsSubmitted.length > 0) {
        throw new RequestDomainError(
          'ILLEGAL_TRANSITION',
          `Request ${state.requestId} already submitted a refund; it cannot be skipped`,
        );
      }
      return allow(state, new RefundSkipped(command.data), `${state.requestId}:refund-skipped`);
    }
    case 'ExpireRequest': {
      if (state.status === 'waiting' && state.expired) return [];
      if (!nextStatus(state.status, 'RequestExpired'))
        return allow(state, new RequestExpired({ reason: '', expiredAt: command.data.at }));
      const reason = expiryDue(state, command.data.at);
      if (!reason) {
        throw new RequestDomainError(
          'DEADLINE_NOT_REACHED',
          `Request ${state.requestId} has no deadline passed at ${command.data.at}`,
        );
      }
      return allow(state, new RequestExpired({ reason, expiredAt: command.data.at }));
    }
    case 'SupersedeRequest':
      if (state.supersededByRequestId === command.data.supersededByRequestId) return [];
      return allow(state, new RequestSuperseded(command.data));
    case 'RecordDepositAddressTransfer':
      return decideDepositAddressTransfer(state, command.data).map((event) => ({
        event,
        id: id('address-transfer', command.data.chainId, command.data.txHash),
      }));
    case 'RecordAttestation':
      // One attestation per fact: a second one of the same deposit, fill or refund restates it.
      return allow(
        state,
        new OracleAttested(command.data),
        `${state.requestId}:attested:${command.data.subject}`,
      );
    case 'AuthorizeWithdrawal':
      // The same nonce signed again (a client retrying) restates the fact: one event per nonce.
      return allow(
        state,
        new WithdrawalAuthorized(command.data),
        `${state.requestId}:authorized:${command.data.nonce}`,
      );
  }
}

function allow(state: QuotedState, event: RequestEvent, id?: string): Decided[] {
  const type = eventTypeOf(event).type as RequestEventType;
  if (!nextStatus(state.status, type)) {
    throw new RequestDomainError(
      'ILLEGAL_TRANSITION',
      `${type} is not allowed when request ${state.requestId} is ${state.status}`,
    );
  }
  return [{ event, ...(id ? { id } : {}) }];
}

/**
 * Refuses a refund on a request that skipped its refund as dust (RefundSkipped): the skip and a sent refund exclude
 * each other through this stream, as a fill and its deadline do, so a worker that journaled a refund before another
 * recorded the skip abandons it unsent.
 */
function refuseAfterSkip(state: QuotedState, what: string): void {
  if (state.status === 'failure' && state.refundSkipped) {
    throw new RequestDomainError(
      'ILLEGAL_TRANSITION',
      `${what} is not allowed: request ${state.requestId} skipped its refund (AMOUNT_TOO_LOW_TO_REFUND)`,
    );
  }
}

function depositOf(state: QuotedState): TxKey | null {
  return 'deposit' in state ? state.deposit : null;
}

/** Deposit event ids: `<requestId>:<kind>:<chainId>:<txHash>:<logIndex>`. */
function depositId(state: QuotedState, kind: string, key: TxKey): string {
  return `${state.requestId}:${kind}:${key}`;
}
