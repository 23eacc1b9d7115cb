import {
  AppFeeAccrued,
  type AppFeeAccruedData,
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
  type RevenueShareAccruedData,
} from './app-fee-account-events.js';
import {
  type AppFeeAccountState,
  availableBalance,
  type ClaimState,
  evolve,
  heldFor,
  initialAppFeeAccountState,
  type LogMark,
  taken,
} from './app-fee-account-state.js';
import { convertUsdcUnits } from './usdc-conversion.js';

/** What the payout of a claim is: where, in what, and how to convert the reserved USDC into it. */
export interface ClaimPayoutTerms {
  readonly chainId: number;
  readonly currency: string;
  readonly recipient: string;
  /** USDC units kept as the app-balance fee (0 on the base chain in the base currency). */
  readonly fee: bigint;
  /** Null: the payout is the base USDC itself (no conversion). */
  readonly conversion: {
    readonly usdc: { readonly decimals: number; readonly usdPrice: string };
    readonly target: { readonly decimals: number; readonly usdPrice: string };
  } | null;
}

/** What the fill an entry is taken for says of it: where it sits in the log (one entry of a kind per fill). */
interface CausedByFill {
  readonly source: LogMark;
}

/** What can be asked of an app-fee account. Each carries its own time; decide() never reads the clock. */
export type AppFeeAccountCommand =
  | { readonly type: 'AccrueAppFee'; readonly data: AppFeeAccruedData & CausedByFill }
  | { readonly type: 'AccrueRevenueShare'; readonly data: RevenueShareAccruedData & CausedByFill }
  | {
      readonly type: 'AuthorizeClaim';
      readonly data: {
        readonly claimId: string;
        readonly signature: string;
        readonly at: string;
        /** The claim as opened (its own stream, `app-fee-claim-<claimId>`): the terms its signature reserves under. */
        readonly opened: AppFeeClaimOpenedData;
      };
    }
  | {
      readonly type: 'SubmitClaimPayout';
      readonly data: { readonly claimId: string; readonly txHash: string; readonly at: string };
    }
  | {
      readonly type: 'RecordClaimPaid';
      readonly data: { readonly claimId: string; readonly txHash: string; readonly at: string };
    }
  | {
      readonly type: 'RecordClaimFailure';
      readonly data: {
        readonly claimId: string;
        readonly reason: string;
        readonly txHash: string | null;
        readonly at: string;
      };
    }
  | {
      readonly type: 'HoldSponsorship';
      readonly data: { readonly requestId: string; readonly amount: string; readonly at: string };
    }
  | {
      readonly type: 'ReleaseSponsorship';
      readonly data: { readonly requestId: string; readonly reason: string; readonly at: string };
    }
  | {
      readonly type: 'PaySponsorship';
      readonly data: {
        readonly requestId: string;
        readonly amount: string;
        readonly at: string;
        readonly source: LogMark;
      };
    };

export type AppFeeErrorCode =
  | 'CLAIM_NOT_FOUND'
  | 'NOTHING_TO_CLAIM'
  | 'CLAIM_BELOW_FEE'
  | 'CLAIM_EXISTS'
  | 'CLAIM_EXPIRED'
  | 'CLAIM_ALREADY_USED'
  | 'SPONSORSHIP_NOT_COVERED'
  | 'ILLEGAL_TRANSITION';

/** A command the account's state does not allow; nothing is appended. */
export class AppFeeDomainError extends Error {
  constructor(
    readonly code: AppFeeErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'AppFeeDomainError';
  }
}

/** An event decided, with its deterministic id (each fact about an account happens once). */
export interface DecidedAppFeeEvent {
  readonly event: AppFeeAccountEvent;
  readonly id: string;
}

/**
 * Pure: the events a command leads to on `state` for `address` (lowercase), or an AppFeeDomainError. The balance
 * cannot go negative: a claim reserves exactly the available balance, and only a claim that holds an amount can
 * spend or release it.
 */
export function decide(
  state: AppFeeAccountState,
  command: AppFeeAccountCommand,
  address: string,
): DecidedAppFeeEvent[] {
  switch (command.type) {
    case 'AccrueAppFee': {
      const { requestId, amount, source } = command.data;
      if (taken(state, 'appFee', source) || BigInt(amount) <= 0n) return [];
      return [{ event: new AppFeeAccrued(command.data), id: `app-fee-accrued:${requestId}:${address}` }];
    }
    case 'AccrueRevenueShare': {
      const { requestId, amount, source } = command.data;
      if (taken(state, 'revenueShare', source) || BigInt(amount) <= 0n) return [];
      return [{ event: new RevenueShareAccrued(command.data), id: `revenue-share:${requestId}` }];
    }
    case 'AuthorizeClaim': {
      const { claimId, signature, at, opened } = command.data;
      if (state.claims[claimId]) {
        throw new AppFeeDomainError(
          'CLAIM_ALREADY_USED',
          `Claim ${claimId} is ${state.claims[claimId].status}`,
        );
      }
      // Its signature reserves the whole balance now, for the terms the claim was opened with.
      if (opened.claimId !== claimId || opened.address !== address) {
        throw new AppFeeDomainError('CLAIM_NOT_FOUND', `No claim ${claimId} on this account`);
      }
      if (at >= opened.expiresAt) {
        throw new AppFeeDomainError('CLAIM_EXPIRED', `Claim ${claimId} expired at ${opened.expiresAt}`);
      }
      const claim = evolve(initialAppFeeAccountState, new AppFeeClaimOpened(opened)).claims[claimId];
      return [
        ...reserve(state, claim, at),
        {
          event: new AppFeeClaimAuthorized({ claimId, signature, authorizedAt: at }),
          id: `app-fee-claim:${claimId}:authorized`,
        },
      ];
    }
    case 'SubmitClaimPayout': {
      const { claimId, txHash, at } = command.data;
      const claim = claimOf(state, claimId);
      if (claim.status === 'submitted' && claim.txHash === txHash) return [];
      if (claim.status !== 'authorized') throw illegal(claim, 'submit its payout');
      return [
        {
          event: new AppFeeClaimPayoutSubmitted({ claimId, txHash, submittedAt: at }),
          id: `app-fee-claim:${claimId}:submitted`,
        },
      ];
    }
    case 'RecordClaimPaid': {
      const { claimId, txHash, at } = command.data;
      const claim = claimOf(state, claimId);
      if (claim.status === 'paid') return [];
      if (claim.status !== 'authorized' && claim.status !== 'submitted')
        throw illegal(claim, 'record it paid');
      return [
        {
          event: new AppFeeClaimPaid({ claimId, txHash, paidAt: at }),
          id: `app-fee-claim:${claimId}:paid`,
        },
      ];
    }
    case 'RecordClaimFailure': {
      const { claimId, reason, txHash, at } = command.data;
      const claim = claimOf(state, claimId);
      if (claim.status === 'failed') return [];
      if (claim.status !== 'authorized' && claim.status !== 'submitted')
        throw illegal(claim, 'record it failed');
      // A submitted claim's payout is journaled and may be in flight: only that payout's own end (reverted, dropped)
      // gives the reservation back, never another attempt's (one that could not be sent while it was).
      if (claim.status === 'submitted' && txHash !== claim.txHash)
        throw illegal(claim, `record it failed while its payout ${claim.txHash} stands`);
      return [
        {
          event: new AppFeeClaimFailed({ claimId, reason, txHash, failedAt: at }),
          id: `app-fee-claim:${claimId}:failed`,
        },
      ];
    }
    case 'HoldSponsorship': {
      const { requestId, amount, at } = command.data;
      const asked = BigInt(amount);
      // Held once per request: a retried fill finds its open hold. A request already paid or released is not asked
      // again (the solver holds only for a pending request); were it, the event id is its earlier hold's, and the
      // store keeps one event per id.
      if (state.holds[requestId] !== undefined || asked <= 0n) return [];
      const available = availableBalance(state);
      if (available < asked) {
        throw new AppFeeDomainError(
          'SPONSORSHIP_NOT_COVERED',
          `The sponsor balance available (${available} USDC units) does not cover request ${requestId}'s sponsorship (${asked})`,
        );
      }
      return [
        {
          event: new AppFeeSponsorshipHeld({ sponsoredRequestId: requestId, amount, heldAt: at }),
          id: `app-fee-sponsorship-held:${requestId}:${address}`,
        },
      ];
    }
    case 'ReleaseSponsorship': {
      const { requestId, reason, at } = command.data;
      const held = heldFor(state, requestId);
      if (held === 0n) return [];
      return [
        {
          event: new AppFeeSponsorshipReleased({
            sponsoredRequestId: requestId,
            amount: held.toString(),
            reason,
            releasedAt: at,
          }),
          id: `app-fee-sponsorship-released:${requestId}:${address}`,
        },
      ];
    }
    case 'PaySponsorship': {
      const { requestId, amount, at, source } = command.data;
      const asked = BigInt(amount);
      if (taken(state, 'sponsorPayment', source) || asked <= 0n) return [];
      // A held request is paid from its hold; one filled before holds existed, from what the balance has left.
      const available = availableBalance(state) + heldFor(state, requestId);
      const paid = asked < available ? asked : available > 0n ? available : 0n;
      return [
        {
          event: new AppFeeSponsorshipPaid({
            sponsoredRequestId: requestId,
            amount: paid.toString(),
            shortfall: (asked - paid).toString(),
            paidAt: at,
            source,
          }),
          id: `app-fee-sponsored:${requestId}:${address}`,
        },
      ];
    }
  }
}

/**
 * Pure: a claim opened on `state` for `address`: its payout terms and until when it may be signed, recorded in the
 * claim's own stream (`app-fee-claim-<claimId>`), never in the account's. Nothing is taken from the balance and the
 * account's stream does not grow: anyone may open claims for any address, so an unsigned claim must neither lock the
 * owner's balance nor weigh on its account. Refused when there is nothing to claim or the balance would not cover
 * the fee, as the signature would be; `amount` and `payoutAmount` are what the balance is worth now.
 */
export function openClaim(
  state: AppFeeAccountState,
  {
    claimId,
    terms,
    at,
    expiresAt,
  }: { claimId: string; terms: ClaimPayoutTerms; at: string; expiresAt: string },
  address: string,
): DecidedAppFeeEvent & { event: AppFeeClaimOpened } {
  if (state.claims[claimId]) throw new AppFeeDomainError('CLAIM_EXISTS', `Claim ${claimId} exists already`);
  const conversion = terms.conversion;
  const { amount, payout } = claimable(state, { chainId: terms.chainId, fee: terms.fee, conversion });
  return {
    event: new AppFeeClaimOpened({
      claimId,
      address,
      amount: amount.toString(),
      chainId: terms.chainId,
      currency: terms.currency,
      recipient: terms.recipient,
      payoutAmount: payout.toString(),
      fee: terms.fee.toString(),
      conversion,
      openedAt: at,
      expiresAt,
    }),
    id: `app-fee-claim:${claimId}:opened`,
  };
}

/**
 * Takes the whole available balance aside for a signed claim. The payout is that amount less the fee, converted as
 * the claim's terms say. Two signed claims of one balance: the second finds nothing left (`NOTHING_TO_CLAIM`).
 */
function reserve(state: AppFeeAccountState, claim: ClaimState, at: string): DecidedAppFeeEvent[] {
  const { amount, payout } = claimable(state, {
    chainId: claim.chainId,
    fee: BigInt(claim.fee),
    conversion: claim.conversion ?? null,
  });
  return [
    {
      event: new AppFeeClaimReserved({
        claimId: claim.claimId,
        amount: amount.toString(),
        chainId: claim.chainId,
        currency: claim.currency,
        recipient: claim.recipient,
        payoutAmount: payout.toString(),
        fee: claim.fee,
        reservedAt: at,
        expiresAt: claim.expiresAt,
      }),
      id: `app-fee-claim:${claim.claimId}`,
    },
  ];
}

/** The whole balance a claim may take and its payout. */
function claimable(
  state: AppFeeAccountState,
  terms: Pick<ClaimPayoutTerms, 'chainId' | 'fee' | 'conversion'>,
): { amount: bigint; payout: bigint } {
  const amount = availableBalance(state);
  if (amount <= 0n) throw new AppFeeDomainError('NOTHING_TO_CLAIM', 'The app-fee balance available is 0');
  const net = amount - terms.fee;
  const payout =
    net <= 0n
      ? 0n
      : terms.conversion
        ? convertUsdcUnits(net, terms.conversion.usdc, terms.conversion.target)
        : net;
  if (payout <= 0n) {
    throw new AppFeeDomainError(
      'CLAIM_BELOW_FEE',
      `The balance (${amount} USDC units) does not cover the claim fee (${terms.fee}) on chain ${terms.chainId}`,
    );
  }
  return { amount, payout };
}

function claimOf(state: AppFeeAccountState, claimId: string): ClaimState {
  const claim = state.claims[claimId];
  if (!claim) throw new AppFeeDomainError('CLAIM_NOT_FOUND', `No claim ${claimId} on this account`);
  return claim;
}

function illegal(claim: ClaimState, what: string): AppFeeDomainError {
  return new AppFeeDomainError(
    'ILLEGAL_TRANSITION',
    `Claim ${claim.claimId} is ${claim.status}: cannot ${what}`,
  );
}
