import { comparePositions, type Position } from '../../event-store/event-store.js';
import {
  AppFeeAccrued,
  type AppFeeAccountEvent,
  AppFeeClaimAuthorized,
  AppFeeClaimFailed,
  AppFeeClaimOpened,
  type AppFeeClaimOpenedData,
  AppFeeClaimPaid,
  AppFeeClaimPayoutSubmitted,
  AppFeeClaimReserved,
  AppFeeSponsorshipHeld,
  AppFeeSponsorshipPaid,
  AppFeeSponsorshipReleased,
  RevenueShareAccrued,
} from './app-fee-account-events.js';

/**
 * Where a claim stands. `open` holds nothing (anyone may open a claim; only its signature reserves the balance);
 * `reserved` (for the instant between the reservation and the authorization its signature decides together),
 * `authorized` and `submitted` hold the balance; `paid` spent it; `failed` gave it back. `expired` is how an open
 * claim past its expiry is shown: it never held anything.
 */
export type ClaimStatus = 'open' | 'reserved' | 'authorized' | 'submitted' | 'paid' | 'failed' | 'expired';

export interface ClaimState {
  readonly claimId: string;
  readonly status: ClaimStatus;
  /** USDC units taken from the balance. */
  readonly amount: string;
  readonly chainId: number;
  readonly currency: string;
  readonly recipient: string;
  readonly payoutAmount: string;
  readonly fee: string;
  readonly reservedAt: string;
  readonly expiresAt: string;
  readonly txHash: string | null;
  readonly failReason: string | null;
  readonly updatedAt: string;
  /** An open claim's conversion into its payout currency, applied to what its signature reserves. */
  readonly conversion?: AppFeeClaimOpenedData['conversion'];
}

/**
 * Where a fill sits in the global log (`Position`, as decimal strings): the cause of a credit or a sponsor payment. The
 * accrual consumer reads the log in order, one batch at a time, so once an account took one kind for a fill it has
 * taken that kind for every earlier fill: "at or before the mark" is "already taken", whatever the account's age.
 */
export interface LogMark {
  readonly commit: string;
  readonly prepare: string;
}

/** The last fill each kind of entry was taken for (absent: none yet, or only entries from before marks existed). */
export interface AccountMarks {
  readonly appFee?: LogMark;
  readonly revenueShare?: LogMark;
  readonly sponsorPayment?: LogMark;
}

/**
 * One app-fee recipient's account. Amounts are USDC units as decimal strings (the state is stored as JSON by the
 * `app-fee-balances` projection and as the aggregate's snapshot); the available balance is
 * `accrued − reserved − withdrawn − sponsored − held` (the open holds' total) and never negative. Its size does not grow with the requests it
 * was credited for: what makes a credit once-only is a mark per kind (`marks`), and only holds still open are kept.
 */
export interface AppFeeAccountState {
  readonly accrued: string;
  readonly reserved: string;
  readonly withdrawn: string;
  /** Paid for requests this account sponsored (fee sponsorship from an app balance). */
  readonly sponsored: string;
  /** Open sponsorship holds by request id: USDC units kept aside until the request is paid or released. */
  readonly holds: Readonly<Record<string, string>>;
  readonly marks: AccountMarks;
  readonly claims: Readonly<Record<string, ClaimState>>;
}

export const initialAppFeeAccountState: AppFeeAccountState = {
  accrued: '0',
  reserved: '0',
  withdrawn: '0',
  sponsored: '0',
  holds: {},
  marks: {},
  claims: {},
};

export function availableBalance(state: AppFeeAccountState): bigint {
  return (
    BigInt(state.accrued) -
    BigInt(state.reserved) -
    BigInt(state.withdrawn) -
    BigInt(state.sponsored) -
    heldTotal(state)
  );
}

/** What the open holds keep aside in all (for sponsored requests being filled). */
export function heldTotal(state: AppFeeAccountState): bigint {
  return Object.values(state.holds).reduce((sum, amount) => sum + BigInt(amount), 0n);
}

/** What `requestId`'s hold still keeps aside (0 when it has none, or it was paid or released). */
export function heldFor(state: AppFeeAccountState, requestId: string): bigint {
  const hold = state.holds[requestId];
  return hold === undefined ? 0n : BigInt(hold);
}

/** True when an entry of `kind` caused by the fill at `source` was taken already (at or before the mark). */
export function taken(state: AppFeeAccountState, kind: keyof AccountMarks, source: LogMark): boolean {
  const mark = state.marks[kind];
  return mark !== undefined && comparePositions(positionOf(source), positionOf(mark)) <= 0;
}

/** The log position a mark names. */
const positionOf = (mark: LogMark): Position => ({
  commit: BigInt(mark.commit),
  prepare: BigInt(mark.prepare),
});

/** The mark of a log position (decimal strings: the state is stored as JSON). */
export const logMarkOf = (position: Position): LogMark => ({
  commit: position.commit.toString(),
  prepare: position.prepare.toString(),
});

const plus = (a: string, b: string | bigint): string => (BigInt(a) + BigInt(b)).toString();
const minus = (a: string, b: string | bigint): string => (BigInt(a) - BigInt(b)).toString();

/** The mark of `kind` moved to `source` (entries from before marks carry none and leave it). */
function marked(
  state: AppFeeAccountState,
  kind: keyof AccountMarks,
  source: LogMark | undefined,
): AccountMarks {
  return source
    ? { ...state.marks, [kind]: { commit: source.commit, prepare: source.prepare } }
    : state.marks;
}

/** The open holds without `requestId`'s. */
function withoutHold(state: AppFeeAccountState, requestId: string): Pick<AppFeeAccountState, 'holds'> {
  const { [requestId]: _paidOrReleased, ...holds } = state.holds;
  return { holds };
}

/** Pure: the account after one of its events. */
export function evolve(state: AppFeeAccountState, event: AppFeeAccountEvent): AppFeeAccountState {
  if (event instanceof AppFeeAccrued) {
    return {
      ...state,
      accrued: plus(state.accrued, event.amount),
      marks: marked(state, 'appFee', event.source),
    };
  }
  if (event instanceof RevenueShareAccrued) {
    return {
      ...state,
      accrued: plus(state.accrued, event.amount),
      marks: marked(state, 'revenueShare', event.source),
    };
  }
  if (event instanceof AppFeeSponsorshipPaid) {
    // A held request's payment comes out of its hold; one filled before holds existed, out of the balance.
    return {
      ...state,
      ...withoutHold(state, event.sponsoredRequestId),
      sponsored: plus(state.sponsored, event.amount),
      marks: marked(state, 'sponsorPayment', event.source),
    };
  }
  if (event instanceof AppFeeSponsorshipHeld) {
    if (state.holds[event.sponsoredRequestId] !== undefined) return state;
    return { ...state, holds: { ...state.holds, [event.sponsoredRequestId]: event.amount } };
  }
  if (event instanceof AppFeeSponsorshipReleased) {
    return { ...state, ...withoutHold(state, event.sponsoredRequestId) };
  }
  const claim = state.claims[event.claimId];
  const withClaim = (next: ClaimState, balances: Partial<AppFeeAccountState> = {}): AppFeeAccountState => ({
    ...state,
    ...balances,
    claims: { ...state.claims, [next.claimId]: next },
  });
  if (event instanceof AppFeeClaimOpened) {
    return withClaim({
      claimId: event.claimId,
      status: 'open',
      amount: event.amount,
      chainId: event.chainId,
      currency: event.currency,
      recipient: event.recipient,
      payoutAmount: event.payoutAmount,
      fee: event.fee,
      reservedAt: event.openedAt,
      expiresAt: event.expiresAt,
      txHash: null,
      failReason: null,
      updatedAt: event.openedAt,
      conversion: event.conversion,
    });
  }
  if (event instanceof AppFeeClaimReserved) {
    return withClaim(
      {
        claimId: event.claimId,
        status: 'reserved',
        amount: event.amount,
        chainId: event.chainId,
        currency: event.currency,
        recipient: event.recipient,
        payoutAmount: event.payoutAmount,
        fee: event.fee,
        reservedAt: event.reservedAt,
        expiresAt: event.expiresAt,
        txHash: null,
        failReason: null,
        updatedAt: event.reservedAt,
      },
      { reserved: plus(state.reserved, event.amount) },
    );
  }
  if (!claim) return state;
  if (event instanceof AppFeeClaimAuthorized)
    return withClaim({ ...claim, status: 'authorized', updatedAt: event.authorizedAt });
  if (event instanceof AppFeeClaimPayoutSubmitted) {
    return withClaim({ ...claim, status: 'submitted', txHash: event.txHash, updatedAt: event.submittedAt });
  }
  if (event instanceof AppFeeClaimPaid) {
    return withClaim(
      { ...claim, status: 'paid', txHash: event.txHash, updatedAt: event.paidAt },
      { reserved: minus(state.reserved, claim.amount), withdrawn: plus(state.withdrawn, claim.amount) },
    );
  }
  if (event instanceof AppFeeClaimFailed) {
    return withClaim(
      {
        ...claim,
        status: 'failed',
        txHash: event.txHash ?? claim.txHash,
        failReason: event.reason,
        updatedAt: event.failedAt,
      },
      { reserved: minus(state.reserved, claim.amount) },
    );
  }
  return state;
}
