import type {
  DepositAddressFunded,
  DepositAddressTransferRefused,
  DepositConfirmed,
  DepositDetected,
  RefundSkipped,
  RequestEvent,
  RequestQuoted,
} from './request-events.js';
import { eventTypeOf } from '../../event-store/domain-event.js';
import type { RequestEventType } from './request-events.js';
import { nextStatus, type RequestStatus } from './request-status.js';

/** A transaction this request already recorded, as `<chainId>:<txHash>` (hashes compared lower-cased). */
export type TxKey = string;
export const txKey = (chainId: number, txHash: string): TxKey => `${chainId}:${txHash.toLowerCase()}`;

/**
 * A deposit's identity: `<chainId>:<txHash>:<logIndex>` (one transaction may carry several deposit logs). Events
 * recorded before the log index was kept fold to `<chainId>:<txHash>:*`, which stands for any log of that transaction.
 */
export const depositKey = (chainId: number, txHash: string, logIndex: number | undefined): TxKey =>
  `${txKey(chainId, txHash)}:${logIndex ?? '*'}`;

/** Whether two deposit keys name the same deposit (`*`, an old event's unknown log index, matches any). */
export function sameDeposit(a: TxKey | null, b: TxKey): boolean {
  if (a === null) return false;
  if (a === b) return true;
  const [chainA, txA, logA] = a.split(':');
  const [chainB, txB, logB] = b.split(':');
  return chainA === chainB && txA === txB && (logA === '*' || logB === '*');
}

/** Where the quote said the deposit goes: only a deposit matching all of it counts. */
export interface ExpectedPayment {
  readonly chainId: number;
  readonly depository: string;
  readonly currency: string;
  readonly amount: string;
}

/** What every request knows once quoted: enough to decide, not the whole record (read models fold their own). */
interface Quoted {
  readonly requestId: string;
  readonly quotedAt: string;
  readonly originChainId: number;
  readonly destinationChainId: number;
  readonly quoteExpiresAt: string;
  readonly depositConfirmationTimeoutSeconds: number;
  readonly fillDeadline: string;
  /** `strict` or `open` with a deposit address, else null. */
  readonly depositAddressType: 'strict' | 'open' | null;
  /** Transfers into the deposit address already recorded (taken or refused). */
  readonly addressTransfers: readonly TxKey[];
  /** The transfer the request took: its deposit counts as made at this time (unix seconds). */
  readonly addressFunded: { readonly tx: TxKey; readonly timestamp: number } | null;
  readonly payment: ExpectedPayment;
  /** Deposits seen onchain (final or not). */
  readonly depositsDetected: readonly TxKey[];
  readonly expired: boolean;
  readonly expiredReason: string | null;
  readonly supersededByRequestId: string | null;
  readonly refundsSubmitted: readonly TxKey[];
  /** Refund transactions recorded dead (RefundFailed with a `failedTxHash`, lowercased): each is told once. */
  readonly refundsFailed: readonly string[];
  /** When the request last changed: deadlines for in-flight steps count from here. */
  readonly updatedAt: string;
}

export interface Waiting extends Quoted {
  readonly status: 'waiting';
  readonly firstDepositDetectedAt: string | null;
}
export interface Depositing extends Quoted {
  readonly status: 'depositing';
  readonly depositSubmittedAt: string;
  readonly depositSubmittedTx: TxKey | null;
}
export interface Pending extends Quoted {
  readonly status: 'pending';
  readonly deposit: TxKey;
}
export interface Submitted extends Quoted {
  readonly status: 'submitted';
  readonly deposit: TxKey;
  readonly fill: TxKey;
}
export interface Succeeded extends Quoted {
  readonly status: 'success';
  readonly deposit: TxKey;
  readonly fill: TxKey;
}
export interface Failed extends Quoted {
  readonly status: 'failure';
  /** Null when the deposit never became final (nothing to refund). */
  readonly deposit: TxKey | null;
  readonly failReason: string;
  readonly refundFailReason: string | null;
  /** The refund was skipped as dust (RefundSkipped): no refund may follow. */
  readonly refundSkipped: boolean;
}
export interface Refunded extends Quoted {
  readonly status: 'refund';
  readonly deposit: TxKey | null;
  readonly refund: TxKey;
}

/** The Request aggregate's state: a union by status, so an impossible state (a fill without a deposit) cannot exist. */
export type RequestState =
  { readonly status: 'none' } | Waiting | Depositing | Pending | Submitted | Succeeded | Failed | Refunded;
export type QuotedState = Exclude<RequestState, { status: 'none' }>;

export const initialRequestState: RequestState = { status: 'none' };

/**
 * Pure: the state after an event. It trusts the event (decide() checked the transition when it was new); an event
 * that the table does not allow here is a corrupted stream and throws.
 */
export function evolve(state: RequestState, event: RequestEvent): RequestState {
  const type = eventTypeOf(event).type as RequestEventType;
  const to = nextStatus(state.status, type);
  if (!to) throw new Error(`Stream corrupted: ${type} cannot follow status ${state.status}`);
  if (state.status === 'none') return quoted(event as RequestQuoted);

  // An attestation is evidence about a fact already recorded: the request itself does not change.
  if (type === 'OracleAttested') return state;
  const base = { ...state, updatedAt: timeOf(event) };
  const depositOf = (s: QuotedState): TxKey | null => ('deposit' in s ? s.deposit : null);
  switch (type) {
    case 'DepositDetected': {
      const e = event as DepositDetected;
      const key = depositKey(e.chainId, e.txHash, e.logIndex);
      const depositsDetected = base.depositsDetected.includes(key)
        ? base.depositsDetected
        : [...base.depositsDetected, key];
      return state.status === 'waiting'
        ? {
            ...(base as Waiting),
            depositsDetected,
            firstDepositDetectedAt: state.firstDepositDetectedAt ?? e.detectedAt,
          }
        : { ...(base as Depositing), depositsDetected };
    }
    case 'DepositSubmitted': {
      const e = event as RequestEvent & { chainId: number; txHash: string | null; submittedAt: string };
      return {
        ...base,
        status: 'depositing',
        depositSubmittedAt: e.submittedAt,
        depositSubmittedTx: e.txHash ? txKey(e.chainId, e.txHash) : null,
      } as Depositing;
    }
    case 'DepositConfirmed': {
      const e = event as DepositConfirmed;
      const key = depositKey(e.chainId, e.txHash, e.logIndex);
      const depositsDetected = base.depositsDetected.includes(key)
        ? base.depositsDetected
        : [...base.depositsDetected, key];
      return { ...stripStepFields(base), depositsDetected, status: 'pending', deposit: key } as Pending;
    }
    case 'FillSubmitted': {
      const e = event as RequestEvent & { chainId: number; txHash: string };
      return { ...base, status: 'submitted', fill: txKey(e.chainId, e.txHash) } as Submitted;
    }
    case 'FillSucceeded':
      return { ...base, status: 'success' } as Succeeded;
    case 'FillFailed': {
      const e = event as RequestEvent & { failReason: string };
      return failed(base, depositOf(state), e.failReason, null);
    }
    case 'RefundSubmitted': {
      const e = event as RequestEvent & { chainId: number; txHash: string };
      return {
        ...base,
        refundsSubmitted: [...base.refundsSubmitted, txKey(e.chainId, e.txHash)],
      } as QuotedState;
    }
    case 'RefundSucceeded': {
      const e = event as RequestEvent & { chainId: number; txHash: string };
      return {
        ...stripStepFields(base),
        status: 'refund',
        deposit: depositOf(state),
        refund: txKey(e.chainId, e.txHash),
      } as Refunded;
    }
    case 'RefundFailed': {
      const e = event as RequestEvent & { refundFailReason: string; failedTxHash: string | null };
      const failReason = state.status === 'failure' ? state.failReason : 'REFUND_REQUIRED';
      const refundsFailed = e.failedTxHash
        ? [...base.refundsFailed, e.failedTxHash.toLowerCase()]
        : base.refundsFailed;
      return failed({ ...base, refundsFailed }, depositOf(state), failReason, e.refundFailReason);
    }
    case 'RefundSkipped': {
      const e = event as RefundSkipped;
      return {
        ...failed(base, depositOf(state), (state as Failed).failReason, e.refundFailReason),
        refundSkipped: true,
      };
    }
    case 'RequestExpired': {
      const e = event as RequestEvent & { reason: string };
      if (to === 'waiting') return { ...base, expired: true, expiredReason: e.reason } as Waiting;
      return failed({ ...base, expired: true, expiredReason: e.reason }, depositOf(state), e.reason, null);
    }
    case 'WithdrawalAuthorized':
      return { ...base } as Waiting;
    case 'DepositAddressFunded': {
      const e = event as DepositAddressFunded;
      const tx = txKey(e.chainId, e.txHash);
      return {
        ...(base as Waiting),
        addressTransfers: [...base.addressTransfers, tx],
        addressFunded: { tx, timestamp: e.timestamp },
        // The funds are in: the confirmation timeout, not the quote's expiry, bounds the sweep from now on.
        firstDepositDetectedAt: (state as Waiting).firstDepositDetectedAt ?? e.detectedAt,
      };
    }
    case 'DepositAddressTransferRefused': {
      const e = event as DepositAddressTransferRefused;
      return {
        ...base,
        addressTransfers: [...base.addressTransfers, txKey(e.chainId, e.txHash)],
      } as QuotedState;
    }
    case 'RequestSuperseded': {
      const e = event as RequestEvent & { supersededByRequestId: string };
      return { ...base, supersededByRequestId: e.supersededByRequestId } as Waiting;
    }
    default:
      throw new Error(`Unhandled request event ${type}`);
  }
}

function quoted(e: RequestQuoted): Waiting {
  return {
    status: 'waiting',
    requestId: e.requestId,
    quotedAt: e.quotedAt,
    originChainId: e.originChainId,
    destinationChainId: e.destinationChainId,
    quoteExpiresAt: e.quoteExpiresAt,
    depositConfirmationTimeoutSeconds: e.depositConfirmationTimeoutSeconds,
    fillDeadline: e.fillDeadline,
    depositAddressType: e.depositAddress?.type ?? null,
    addressTransfers: [],
    addressFunded: null,
    payment: expectedPayment(e),
    depositsDetected: [],
    expired: false,
    expiredReason: null,
    supersededByRequestId: null,
    refundsSubmitted: [],
    refundsFailed: [],
    updatedAt: e.quotedAt,
    firstDepositDetectedAt: null,
  };
}

/**
 * The quote's payment details (depository, currency, amount) on its origin chain (the details name the chain by its
 * protocol name, the quote by its id); quotes recorded without them expect the input currency.
 */
function expectedPayment(e: RequestQuoted): ExpectedPayment {
  const details = (e.protocol as { paymentDetails?: ProtocolPayment } | undefined)?.paymentDetails;
  return {
    chainId: e.originChainId,
    depository: (details?.depository ?? '').toLowerCase(),
    currency: (details?.currency ?? e.currencyIn.currency.address).toLowerCase(),
    amount: details?.amount ?? e.currencyIn.amount,
  };
}

interface ProtocolPayment {
  readonly depository: string;
  readonly currency: string;
  readonly amount: string;
}

function failed(
  base: QuotedState,
  deposit: TxKey | null,
  failReason: string,
  refundFailReason: string | null,
): Failed {
  return {
    ...stripStepFields(base),
    status: 'failure',
    deposit,
    failReason,
    refundFailReason,
    refundSkipped: false,
  } as Failed;
}

/** The fields that belong to one status only; a state moving on never carries another status's leftovers. */
type StepFields = Partial<
  Pick<Waiting, 'firstDepositDetectedAt'> &
    Pick<Depositing, 'depositSubmittedAt' | 'depositSubmittedTx'> &
    Pick<Submitted, 'deposit' | 'fill'> &
    Pick<Failed, 'failReason' | 'refundFailReason' | 'refundSkipped'> &
    Pick<Refunded, 'refund'>
>;

function stripStepFields(state: QuotedState): Quoted {
  const {
    status: _status,
    firstDepositDetectedAt: _seen,
    depositSubmittedAt: _submittedAt,
    depositSubmittedTx: _submittedTx,
    deposit: _deposit,
    fill: _fill,
    failReason: _failReason,
    refundFailReason: _refundFailReason,
    refundSkipped: _refundSkipped,
    refund: _refund,
    ...quoted
  } = state as QuotedState & StepFields;
  return quoted;
}

/** The time an event carries (each event type names its own time field). */
export function timeOf(event: RequestEvent): string {
  const e = event as unknown as Record<string, unknown>;
  for (const field of [
    'quotedAt',
    'detectedAt',
    'submittedAt',
    'confirmedAt',
    'completedAt',
    'failedAt',
    'refundedAt',
    'skippedAt',
    'expiredAt',
    'supersededAt',
    'authorizedAt',
  ]) {
    if (typeof e[field] === 'string') return e[field] as string;
  }
  throw new Error(`${eventTypeOf(event).type} carries no time`);
}

export type { RequestStatus };
