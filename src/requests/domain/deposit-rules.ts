import type { QuotedState } from './request-state.js';
import { type DepositMismatch, RequestDomainError } from './request-errors.js';

/**
 * Refuses a deposit submitted through the execute path (the relayer's permit) on a request that already saw one made
 * directly, even not final. Recorded before the relayer broadcasts, so a deposit seen while the permit was prepared
 * makes the relayer abandon it unsent rather than send a second deposit (its gas, then Ferry's return).
 */
export function refuseSecondDeposit(state: QuotedState): void {
  if (state.depositsDetected.length === 0) return;
  throw new RequestDomainError(
    'DEPOSIT_ALREADY_MADE',
    `Request ${state.requestId} already has a deposit (${state.depositsDetected[0]}); another would be returned`,
  );
}

/**
 * Refuses a deposit submitted through the execute path once the quote expired (the sweeper recorded it): the permit
 * could only revert or arrive late, and the request's sponsorship hold may have been given back on that expiry
 * (docs/app-fees.md, "Sponsorship money"), so no fill may follow from it. A permit recorded first keeps its request
 * `depositing`, and that request then times out instead.
 */
export function refuseAfterQuoteExpiry(state: QuotedState): void {
  if (!('expired' in state) || !state.expired) return;
  throw new RequestDomainError(
    'DEADLINE_PASSED',
    `Request ${state.requestId}'s quote expired at ${state.quoteExpiresAt}; no deposit may be submitted`,
  );
}

/**
 * Refuses a deposit that is not this request's: made on another chain than the quote's origin, into another
 * contract than that chain's depository, or in another currency. Every EVM chain shares the depository address and
 * the native currency's zero address, so all three are checked; such a deposit is returned where it was made.
 */
export function refuseMismatch(
  state: QuotedState,
  deposit: { readonly chainId: number; readonly depository: string; readonly currency: string },
): void {
  const expected = state.payment;
  const refuse = (mismatch: DepositMismatch, what: string) => {
    throw new RequestDomainError(
      'DEPOSIT_MISMATCH',
      `Request ${state.requestId} takes deposits ${what}`,
      mismatch,
    );
  };
  if (deposit.chainId !== expected.chainId) {
    refuse('WRONG_CHAIN', `on chain ${expected.chainId}, not ${deposit.chainId}`);
  }
  if (expected.depository !== '' && deposit.depository.toLowerCase() !== expected.depository) {
    refuse('WRONG_DEPOSITORY', `into ${expected.depository}, not ${deposit.depository}`);
  }
  if (deposit.currency.toLowerCase() !== expected.currency) {
    refuse('WRONG_CURRENCY', `in ${expected.currency}, not ${deposit.currency}`);
  }
}

/** Why a deposit that is the request's cannot be filled as quoted (short, or after the quote expired), or null. */
export function unfillableDeposit(
  state: QuotedState,
  deposit: { readonly amount: string; readonly timestamp: number; readonly sweptFromDepositAddress?: true },
): { reason: string; details: string } | null {
  // A deposit-address request's sweep moves a transfer it took before the quote expired: that transfer's time is
  // when the user paid, the sweep's is when Ferry moved it. Any other deposit (made straight into the depository,
  // e.g. after the taken transfer was recovered) is judged by its own time.
  const sweep = state.addressFunded !== null && deposit.sweptFromDepositAddress === true;
  const paidAt = sweep ? state.addressFunded!.timestamp : deposit.timestamp;
  const expiredFirst =
    !sweep && state.status === 'waiting' && state.expired && state.expiredReason === 'QUOTE_EXPIRED';
  if (expiredFirst || paidAt * 1000 > Date.parse(state.quoteExpiresAt)) {
    return {
      reason: 'DEPOSIT_AFTER_EXPIRY',
      details: `deposited at ${new Date(deposit.timestamp * 1000).toISOString()}, quote expired at ${state.quoteExpiresAt}`,
    };
  }
  if (BigInt(deposit.amount) < BigInt(state.payment.amount)) {
    return {
      reason: 'DEPOSIT_AMOUNT_TOO_LOW',
      details: `deposited ${deposit.amount}, quoted ${state.payment.amount}`,
    };
  }
  return null;
}
