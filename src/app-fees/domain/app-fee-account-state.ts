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

/** A sponsored request's hold: taken before its fill, then paid (the fill succeeded) or released (it did not). */
export interface SponsorHold {
  readonly amount: string;
  readonly status: 'held' | 'paid' | 'released';
}

/**
 * One app-fee recipient's account. Amounts are USDC units as decimal strings (the state is stored as JSON by the
 * `app-fee-balances` projection); the available balance is `accrued − reserved − withdrawn − sponsored − held` and never negative.
 */
export interface AppFeeAccountState {
  readonly accrued: string;
  readonly reserved: string;
  readonly withdrawn: string;
  /** Paid for requests this account sponsored (fee sponsorship from an app balance). */
  readonly sponsored: string;
  /** Requests already credited: an accrual is taken once per request. */
  readonly requestIds: readonly string[];
  /** Sponsored requests already paid: a sponsorship is paid once per request. */
  readonly sponsoredRequestIds: readonly string[];
  /** The requests revenue share was credited for (once each; the amounts are in `accrued`). */
  readonly revenueShareRequestIds?: readonly string[];
  /** Held for sponsored requests being filled (absent on states folded before holds existed: 0). */
  readonly held?: string;
  /** Every request this account held a sponsorship for, by request id: a request is held once. */
  readonly sponsorHolds?: Readonly<Record<string, SponsorHold>>;
  readonly claims: Readonly<Record<string, ClaimState>>;
}

export const initialAppFeeAccountState: AppFeeAccountState = {
  accrued: '0',
  reserved: '0',
  withdrawn: '0',
  sponsored: '0',
  requestIds: [],
  sponsoredRequestIds: [],
  claims: {},
};

export function availableBalance(state: AppFeeAccountState): bigint {
  return (
    BigInt(state.accrued) -
    BigInt(state.reserved) -
    BigInt(state.withdrawn) -
    BigInt(state.sponsored) -
    BigInt(state.held ?? '0')
  );
}

/** What `requestId`'s hold still keeps aside (0 when it has none, or it was paid or released). */
export function heldFor(state: AppFeeAccountState, requestId: string): bigint {
  const hold = state.sponsorHolds?.[requestId];
  return hold?.status === 'held' ? BigInt(hold.amount) : 0n;
}

const plus = (a: string, b: string | bigint): string => (BigInt(a) + BigInt(b)).toString();
const minus = (a: string, b: string | bigint): string => (BigInt(a) - BigInt(b)).toString();

/** The hold of `requestId` in `status`, and the total held moved by `delta`. */
function withHold(
  state: AppFeeAccountState,
  requestId: string,
  status: SponsorHold['status'],
  delta: bigint,
  amount = state.sponsorHolds?.[requestId]?.amount ?? '0',
): Pick<AppFeeAccountState, 'held' | 'sponsorHolds'> {
  return {
    held: plus(state.held ?? '0', delta),
    sponsorHolds: { ...state.sponsorHolds, [requestId]: { amount, status } },
  };
}

/** Pure: the account after one of its events. */
export function evolve(state: AppFeeAccountState, event: AppFeeAccountEvent): AppFeeAccountState {
  if (event instanceof AppFeeAccrued) {
    return {
      ...state,
      accrued: plus(state.accrued, event.amount),
      requestIds: [...state.requestIds, event.requestId],
    };
  }
  if (event instanceof RevenueShareAccrued) {
    return {
      ...state,
      accrued: plus(state.accrued, event.amount),
      revenueShareRequestIds: [...(state.revenueShareRequestIds ?? []), event.requestId],
    };
  }
  if (event instanceof AppFeeSponsorshipPaid) {
    // A held request's payment comes out of its hold; one filled before holds existed, out of the balance.
    const hold = heldFor(state, event.sponsoredRequestId);
    return {
      ...state,
      sponsored: plus(state.sponsored, event.amount),
      sponsoredRequestIds: [...state.sponsoredRequestIds, event.sponsoredRequestId],
      ...(hold > 0n ? withHold(state, event.sponsoredRequestId, 'paid', -hold) : {}),
    };
  }
  if (event instanceof AppFeeSponsorshipHeld) {
    return {
      ...state,
      ...withHold(state, event.sponsoredRequestId, 'held', BigInt(event.amount), event.amount),
    };
  }
  if (event instanceof AppFeeSponsorshipReleased) {
    const hold = heldFor(state, event.sponsoredRequestId);
    return { ...state, ...withHold(state, event.sponsoredRequestId, 'released', -hold) };
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
