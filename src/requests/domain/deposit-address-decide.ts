import {
  DepositAddressFunded,
  type DepositAddressTransferData,
  DepositAddressTransferRefused,
} from './request-events.js';
import { type QuotedState, txKey } from './request-state.js';
import { RequestDomainError } from './request-errors.js';

/**
 * Pure: what a native transfer into the request's deposit address means (docs/deposit-addresses.md).
 *
 * - The first transfer made before the quote expired (by its block time), while the request still waits for its
 *   deposit, is taken when
 *   its amount fits the address's type: `strict` exactly the quoted amount, `open` at least the quoted amount (the
 *   quoted amount is swept and filled as quoted, the surplus given back). Taken → `DepositAddressFunded`.
 * - Anything else is refused and given back (`DepositAddressTransferRefused` with the reason): another currency
 *   (a token), a wrong amount, a
 *   transfer after the quote expired, a second transfer after one was taken, or one arriving once the request moved
 *   on (settled, failed, expired).
 *
 * The same transfer reported again produces nothing.
 */
export function decideDepositAddressTransfer(
  state: QuotedState,
  transfer: DepositAddressTransferData,
): (DepositAddressFunded | DepositAddressTransferRefused)[] {
  if (state.depositAddressType === null) {
    throw new RequestDomainError(
      'ILLEGAL_TRANSITION',
      `Request ${state.requestId} has no deposit address; transfer ${transfer.txHash} is not its`,
    );
  }
  if (state.addressTransfers.includes(txKey(transfer.chainId, transfer.txHash))) return [];
  if (transfer.chainId !== state.payment.chainId) {
    throw new RequestDomainError(
      'DEPOSIT_MISMATCH',
      `Request ${state.requestId} takes deposits on chain ${state.payment.chainId}, not ${transfer.chainId}`,
      'WRONG_CHAIN',
    );
  }
  const refuse = (reason: string) => [new DepositAddressTransferRefused({ ...transfer, reason })];
  if (transfer.currency !== undefined && BigInt(transfer.currency) !== 0n) return refuse('WRONG_CURRENCY');
  if (state.status !== 'waiting' || state.addressFunded !== null)
    return refuse('REQUEST_CANNOT_TAKE_DEPOSIT');
  // The transfer's block time decides, not when the watcher got to it: with deep finality a transfer made just
  // before the expiry is recorded after the sweeper flagged the quote expired, and is still the user's payment.
  const lateTransfer = transfer.timestamp * 1000 > Date.parse(state.quoteExpiresAt);
  if (lateTransfer || (state.expired && state.expiredReason !== 'QUOTE_EXPIRED')) {
    return refuse('DEPOSIT_AFTER_EXPIRY');
  }
  const amount = BigInt(transfer.amount);
  const quoted = BigInt(state.payment.amount);
  if (state.depositAddressType === 'strict' && amount !== quoted) return refuse('DEPOSIT_AMOUNT_MISMATCH');
  if (amount < quoted) return refuse('DEPOSIT_AMOUNT_TOO_LOW');
  return [
    new DepositAddressFunded({
      ...transfer,
      sweepAmount: quoted.toString(),
      surplus: (amount - quoted).toString(),
    }),
  ];
}
