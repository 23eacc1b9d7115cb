/* eslint-disable @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- each event class merges with its payload interface */
import { DomainEvent, StoredEvent } from '../../event-store/domain-event.js';
import type { LogMark } from './app-fee-account-state.js';

/**
 * The app-fee account's events (stream `app-fee-account-<lowercased address>`, docs/app-fees.md). Amounts are USDC
 * smallest units of the base currency as decimal strings; times are ISO 8601 strings taken from the command.
 */

/** A successful request's app fee for this recipient, converted to USDC. Id: `app-fee-accrued:<requestId>:<address>`. */
export interface AppFeeAccruedData {
  readonly requestId: string;
  /** USDC smallest units credited: the fee's USD value at fill time ÷ the USDC price, rounded down. */
  readonly amount: string;
  /** The fee's USD value as the fill recorded it, and the USDC price used to convert it. */
  readonly amountUsd: string;
  readonly usdcPrice: string;
  readonly accruedAt: string;
  /**
   * Where the request's `FillSucceeded` sits in the log: this account takes one app fee per fill, in log order (absent on
   * events from before marks existed).
   */
  readonly source?: LogMark;
}
export interface AppFeeAccrued extends AppFeeAccruedData {}
@StoredEvent('AppFeeAccrued')
export class AppFeeAccrued extends DomainEvent<AppFeeAccruedData> {}

/**
 * Someone asked for a claim of an account (`POST /app-fees/{address}/claim`, unauthenticated): its terms are fixed,
 * nothing is taken from the balance. Stored in the claim's own stream `app-fee-claim-<claimId>`, not the account's,
 * so however many claims anyone opens, the account neither locks nor grows. `amount` and `payoutAmount` are what the balance was worth when it was opened;
 * the amounts paid are decided when the claim address signs (`AppFeeClaimReserved`). Id: `app-fee-claim:<id>:opened`.
 */
export interface AppFeeClaimOpenedData {
  readonly claimId: string;
  /** The claim address (lowercase): whose balance and whose signature. */
  readonly address: string;
  readonly amount: string;
  readonly chainId: number;
  readonly currency: string;
  readonly recipient: string;
  readonly payoutAmount: string;
  readonly fee: string;
  /** How reserved USDC converts into the payout currency (null: the payout is the base USDC itself). */
  readonly conversion: {
    readonly usdc: { readonly decimals: number; readonly usdPrice: string };
    readonly target: { readonly decimals: number; readonly usdPrice: string };
  } | null;
  readonly openedAt: string;
  /** Signing after this is refused (`CLAIM_EXPIRED`). */
  readonly expiresAt: string;
}
export interface AppFeeClaimOpened extends AppFeeClaimOpenedData {}
@StoredEvent('AppFeeClaimOpened')
export class AppFeeClaimOpened extends DomainEvent<AppFeeClaimOpenedData> {}

/**
 * A claim took the whole available balance aside until it is paid or fails. Since anyone may open a claim, this is
 * decided only together with the claim address's signature (followed by `AppFeeClaimAuthorized`).
 */
export interface AppFeeClaimReservedData {
  readonly claimId: string;
  /** USDC units taken from the balance. */
  readonly amount: string;
  /** Where and what the payout is: chain, currency, recipient, amount in that currency and the fee kept. */
  readonly chainId: number;
  readonly currency: string;
  readonly recipient: string;
  readonly payoutAmount: string;
  /** USDC units kept as the app-balance fee (0 on the base chain in the base currency). */
  readonly fee: string;
  readonly reservedAt: string;
  /** An unsigned claim stops holding the balance after this. */
  readonly expiresAt: string;
}
export interface AppFeeClaimReserved extends AppFeeClaimReservedData {}
@StoredEvent('AppFeeClaimReserved')
export class AppFeeClaimReserved extends DomainEvent<AppFeeClaimReservedData> {}

/** The claim address signed the claim id (EIP-191 or EIP-1271): it may be paid, once. */
export interface AppFeeClaimAuthorizedData {
  readonly claimId: string;
  readonly signature: string;
  readonly authorizedAt: string;
}
export interface AppFeeClaimAuthorized extends AppFeeClaimAuthorizedData {}
@StoredEvent('AppFeeClaimAuthorized')
export class AppFeeClaimAuthorized extends DomainEvent<AppFeeClaimAuthorizedData> {}

/** The payout transaction was journaled and is being broadcast. */
export interface AppFeeClaimPayoutSubmittedData {
  readonly claimId: string;
  readonly txHash: string;
  readonly submittedAt: string;
}
export interface AppFeeClaimPayoutSubmitted extends AppFeeClaimPayoutSubmittedData {}
@StoredEvent('AppFeeClaimPayoutSubmitted')
export class AppFeeClaimPayoutSubmitted extends DomainEvent<AppFeeClaimPayoutSubmittedData> {}

/** The payout mined successfully: the reserved amount left the balance for good. */
export interface AppFeeClaimPaidData {
  readonly claimId: string;
  readonly txHash: string;
  readonly paidAt: string;
}
export interface AppFeeClaimPaid extends AppFeeClaimPaidData {}
@StoredEvent('AppFeeClaimPaid')
export class AppFeeClaimPaid extends DomainEvent<AppFeeClaimPaidData> {}

/** The payout could not be sent, reverted or was dropped: the reservation goes back to the balance. */
export interface AppFeeClaimFailedData {
  readonly claimId: string;
  readonly reason: string;
  readonly txHash: string | null;
  readonly failedAt: string;
}
export interface AppFeeClaimFailed extends AppFeeClaimFailedData {}
@StoredEvent('AppFeeClaimFailed')
export class AppFeeClaimFailed extends DomainEvent<AppFeeClaimFailedData> {}

/**
 * A request this account sponsored was filled: what its quote sponsored is paid from the balance, once. Id:
 * `app-fee-sponsored:<requestId>:<address>`. `amount` is what was debited, from the request's hold
 * (`AppFeeSponsorshipHeld`, taken before the solver paid) when it has one. Requests filled before holds existed were
 * paid from the balance as it stood, possibly less than asked (`shortfall`), since the balance never goes negative;
 * a held one has no shortfall.
 */
export interface AppFeeSponsorshipPaidData {
  readonly sponsoredRequestId: string;
  readonly amount: string;
  readonly shortfall: string;
  readonly paidAt: string;
  /**
   * Where the request's `FillSucceeded` sits in the log: this account takes one sponsor payment per fill, in log order (absent on
   * events from before marks existed).
   */
  readonly source?: LogMark;
}
export interface AppFeeSponsorshipPaid extends AppFeeSponsorshipPaidData {}
@StoredEvent('AppFeeSponsorshipPaid')
export class AppFeeSponsorshipPaid extends DomainEvent<AppFeeSponsorshipPaidData> {}

/**
 * The sponsor's balance is taken aside for one sponsored request before the solver pays it (a gasless permit's before
 * the relayer sends it): what its quote sponsored,
 * so Ferry never fronts a sponsor's money. Decided only while the available balance covers it (the expected revision
 * serialises the fills of one account); a request it cannot cover is refunded, never filled on sponsored terms. Id:
 * `app-fee-sponsorship-held:<requestId>:<address>`, so a retried fill holds once. Paid by `AppFeeSponsorshipPaid`
 * once the fill succeeded, or given back by `AppFeeSponsorshipReleased`.
 */
export interface AppFeeSponsorshipHeldData {
  readonly sponsoredRequestId: string;
  /** Base USDC units held: the quote's `sponsor.amount`. */
  readonly amount: string;
  readonly heldAt: string;
}
export interface AppFeeSponsorshipHeld extends AppFeeSponsorshipHeldData {}
@StoredEvent('AppFeeSponsorshipHeld')
export class AppFeeSponsorshipHeld extends DomainEvent<AppFeeSponsorshipHeldData> {}

/**
 * A held sponsorship goes back to the balance: its request failed or expired without a fill (it is refunded). Id:
 * `app-fee-sponsorship-released:<requestId>:<address>` (once).
 */
export interface AppFeeSponsorshipReleasedData {
  readonly sponsoredRequestId: string;
  readonly amount: string;
  /** The request's `failReason` (or what ended it). */
  readonly reason: string;
  readonly releasedAt: string;
}
export interface AppFeeSponsorshipReleased extends AppFeeSponsorshipReleasedData {}
@StoredEvent('AppFeeSponsorshipReleased')
export class AppFeeSponsorshipReleased extends DomainEvent<AppFeeSponsorshipReleasedData> {}

/**
 * A share of a successful request's platform fee, earned by the API key the request was quoted with (its payout
 * address is this account): docs/app-fees.md, "Revenue share". Id: `revenue-share:<requestId>` (once per request,
 * whatever address it went to). The end user paid the platform fee as quoted; this is Ferry's money shared.
 */
export interface RevenueShareAccruedData {
  readonly requestId: string;
  readonly apiKeyId: string;
  readonly transactionType: string;
  /** The tier (`10M-100M`, `100M-1B`), the key's trailing-30-day volume before this request, and the share. */
  readonly tier: string;
  readonly trailingVolumeUsd: string;
  readonly share: string;
  /** The request's platform fee in USD (as the fill recorded it) and the share of it, exact. */
  readonly platformFeeUsd: string;
  readonly amountUsd: string;
  readonly usdcPrice: string;
  /** USDC units credited: amountUsd ÷ usdcPrice, rounded down. */
  readonly amount: string;
  readonly accruedAt: string;
  /**
   * Where the request's `FillSucceeded` sits in the log: this account takes one revenue share per fill, in log order (absent on
   * events from before marks existed).
   */
  readonly source?: LogMark;
}
export interface RevenueShareAccrued extends RevenueShareAccruedData {}
@StoredEvent('RevenueShareAccrued')
export class RevenueShareAccrued extends DomainEvent<RevenueShareAccruedData> {}

export const APP_FEE_ACCOUNT_EVENTS = [
  AppFeeAccrued,
  AppFeeClaimOpened,
  AppFeeClaimReserved,
  AppFeeClaimAuthorized,
  AppFeeClaimPayoutSubmitted,
  AppFeeClaimPaid,
  AppFeeClaimFailed,
  AppFeeSponsorshipPaid,
  AppFeeSponsorshipHeld,
  AppFeeSponsorshipReleased,
  RevenueShareAccrued,
] as const;

export type AppFeeAccountEvent = InstanceType<(typeof APP_FEE_ACCOUNT_EVENTS)[number]>;
