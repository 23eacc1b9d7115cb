import type { QuotedState, RequestState } from './request-state.js';

/**
 * The deadline that has passed at `at`, as the reason recorded when the sweeper expires the request, or null.
 * A quote with nothing deposited expires at `quoteExpiresAt`; a deposit seen or submitted but never final times out
 * `depositConfirmationTimeoutSeconds` after it appeared; funds in flight fail at `fillDeadline`.
 */
export function expiryDue(state: QuotedState, at: string): string | null {
  const now = Date.parse(at);
  const after = (iso: string, seconds = 0) => now >= Date.parse(iso) + seconds * 1000;
  switch (state.status) {
    case 'waiting':
      if (state.expired) return null;
      if (state.firstDepositDetectedAt) {
        return after(state.firstDepositDetectedAt, state.depositConfirmationTimeoutSeconds)
          ? 'DEPOSIT_CONFIRMATION_TIMEOUT'
          : null;
      }
      return after(state.quoteExpiresAt) ? 'QUOTE_EXPIRED' : null;
    case 'depositing':
      return after(state.depositSubmittedAt, state.depositConfirmationTimeoutSeconds)
        ? 'DEPOSIT_CONFIRMATION_TIMEOUT'
        : null;
    case 'pending':
      return after(state.fillDeadline) ? 'FILL_DEADLINE_EXPIRED' : null;
    default:
      return null;
  }
}

/**
 * When the request's next deadline falls (ISO), or null when none applies: what the sweeper waits for. Consistent
 * with expiryDue(): at that instant expiryDue() names the reason.
 */
export function nextDeadline(state: RequestState): string | null {
  const plus = (iso: string, seconds: number) => new Date(Date.parse(iso) + seconds * 1000).toISOString();
  switch (state.status) {
    case 'waiting':
      if (state.expired) return null;
      return state.firstDepositDetectedAt
        ? plus(state.firstDepositDetectedAt, state.depositConfirmationTimeoutSeconds)
        : state.quoteExpiresAt;
    case 'depositing':
      return plus(state.depositSubmittedAt, state.depositConfirmationTimeoutSeconds);
    case 'pending':
      return state.fillDeadline;
    default:
      return null;
  }
}
