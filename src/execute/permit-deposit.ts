import { ExecuteRequestCommand } from '../requests/commands/execute-request.command.js';

/**
 * The least time a permit must have left before its `validBefore` when the relayer sends it: a relayer transaction
 * that mines after it reverts, at the relayer's cost. Half the quote's lifetime when that is shorter.
 */
export const PERMIT_VALIDITY_MARGIN_SECONDS = 60;

/**
 * The margin (`PERMIT_VALIDITY_MARGIN_SECONDS`) for quotes that live `quoteTtlSeconds`.
 *
 * @example permitMarginSeconds(600) // 60
 */
export function permitMarginSeconds(quoteTtlSeconds: number): number {
  return Math.min(PERMIT_VALIDITY_MARGIN_SECONDS, quoteTtlSeconds / 2);
}

/** A permit's `validBefore` (seconds): its quote's expiry, which the relayer's authorization ends at. */
export const permitValidBefore = (quoteExpiresAt: string): number =>
  Math.floor(Date.parse(quoteExpiresAt) / 1000);

/** The seconds a permit valid before `validBefore` has left at `now` (negative once it expired). */
export const permitSecondsLeft = (validBefore: number, now: Date): number =>
  validBefore - now.getTime() / 1000;

/** The journal job of a request's permit deposit. */
export const permitJobKey = (requestId: string): string => `permit:${requestId.toLowerCase()}`;

/** `SubmitDeposit` of a request's permit deposit `txHash` on `chainId`, as the relayer's actor records it. */
export const submitPermitDeposit = (
  requestId: string,
  chainId: number,
  txHash: string,
  submittedAt: Date,
): ExecuteRequestCommand =>
  new ExecuteRequestCommand(
    requestId,
    {
      type: 'SubmitDeposit',
      data: { via: 'permit', chainId, txHash, submittedAt: submittedAt.toISOString() },
    },
    { actor: 'execute' },
  );
