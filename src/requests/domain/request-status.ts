import type { RequestEventType } from './request-events.js';

/** The spec's request statuses (v3 and webhooks). */
export const REQUEST_STATUSES = [
  'waiting',
  'depositing',
  'pending',
  'submitted',
  'success',
  'failure',
  'refund',
] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];

/**
 * Every legal (status, event) pair and the status it leads to; anything absent is a domain error. `null` is the
 * state before the quote. Matches ARCHITECTURE §4: waiting → depositing | pending; depositing → pending | failure;
 * pending → submitted | failure | refund; submitted → success | failure (never by a deadline); failure → refund. Events that record a fact
 * without moving the request (a detected deposit, a submitted refund, an expired quote) keep the status.
 */
export const TRANSITIONS: Readonly<
  Record<RequestEventType, Partial<Record<RequestStatus | 'none', RequestStatus>>>
> = {
  RequestQuoted: { none: 'waiting' },
  DepositDetected: { waiting: 'waiting', depositing: 'depositing' },
  DepositSubmitted: { waiting: 'depositing' },
  DepositConfirmed: { waiting: 'pending', depositing: 'pending' },
  FillSubmitted: { pending: 'submitted' },
  FillSucceeded: { submitted: 'success' },
  FillFailed: { depositing: 'failure', pending: 'failure', submitted: 'failure' },
  RefundSubmitted: { pending: 'pending', failure: 'failure' },
  RefundSucceeded: { pending: 'refund', failure: 'refund' },
  RefundFailed: { pending: 'failure', failure: 'failure' },
  // Only a failed request is refunded, so only a failed one can skip its refund (dust); it stays failed.
  RefundSkipped: { failure: 'failure' },
  // Not from `submitted`: a fill that was sent may still mine. The solver cancels it past the deadline (its nonce
  // reused), and only a fill proven dead fails the request (FillFailed) and opens its refund.
  RequestExpired: { waiting: 'waiting', depositing: 'failure', pending: 'failure' },
  RequestSuperseded: { waiting: 'waiting' },
  WithdrawalAuthorized: { waiting: 'waiting' },
  // Facts about the deposit address that move nothing: the sweep's deposit does. A transfer is refused (and given
  // back) in any status, since funds can arrive at the address at any time.
  DepositAddressFunded: { waiting: 'waiting' },
  DepositAddressTransferRefused: {
    waiting: 'waiting',
    depositing: 'depositing',
    pending: 'pending',
    submitted: 'submitted',
    success: 'success',
    failure: 'failure',
    refund: 'refund',
  },
  // The oracle's attestation of a deposit, fill or refund already recorded: a fact about it that moves nothing.
  OracleAttested: {
    pending: 'pending',
    submitted: 'submitted',
    success: 'success',
    failure: 'failure',
    refund: 'refund',
  },
};

export const TERMINAL_STATUSES: readonly RequestStatus[] = ['success', 'refund'];

/** The status an event leads to from `from`, or undefined when the transition is illegal. */
export function nextStatus(from: RequestStatus | 'none', event: RequestEventType): RequestStatus | undefined {
  return TRANSITIONS[event][from];
}
