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
  AppFeeSponsorshipPaid,
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
 * One app-fee recipient's account. Amounts are USDC units as decimal strings (the state is stored as JSON by the
 * `app-fee-balances` projection); the available balance is `accrued − reserved − withdrawn` and never negative.
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
  return BigInt(state.accrued) - BigInt(state.reserved) - BigInt(state.withdrawn) - BigInt(state.sponsored);
}

const plus = (a: string, b: string | bigint): string => (BigInt(a) + BigInt(b)).toString();
const minus = (a: string, b: string | bigint): string => (BigInt(a) - BigInt(b)).toString();

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
    return {
      ...state,
      sponsored: plus(state.sponsored, event.amount),
      sponsoredRequestIds: [...state.sponsoredRequestIds, event.sponsoredRequestId],
    };
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
