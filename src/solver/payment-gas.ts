import type { TxPurpose } from './transaction-journal.js';

/**
 * Payments to an address a user chose (a refund's `refundTo` or depositor, an unmatched deposit's depositor, a claim's
 * recipient) are plain transfers: a few tens of thousands of gas, whatever the recipient. One whose estimate needs more
 * than this is refused before it is signed: a recipient contract that burns gas on receipt would otherwise make the
 * solver pay up to a block's gas for each of them (a refund costs its user nothing).
 */
export const PAYMENT_GAS_CAP = 150_000n;

/**
 * A deposit-address give-back deploys the address's receiver (about 200,000 gas) and pays an address a user chose
 * (`refundTo`, or the transfer's sender): its recipient may burn what a payment's may, and no more.
 */
export const GIVE_BACK_GAS_CAP = 400_000n;

/**
 * The gas limit a transaction estimated at `estimate` is signed with: a fifth more, for state that changes before it
 * mines. What the transaction may burn, and so what it may cost (a recipient contract can burn all of it).
 */
export const gasLimitOf = (estimate: bigint): bigint => (estimate * 12n) / 10n;

const GAS_CAPS: ReadonlyMap<TxPurpose, bigint> = new Map([
  ['refund', PAYMENT_GAS_CAP],
  ['return', PAYMENT_GAS_CAP],
  ['claim', PAYMENT_GAS_CAP],
  ['give-back', GIVE_BACK_GAS_CAP],
]);

/** The most gas a transaction of `purpose` may be signed with, or null when the journal caps none. */
export const gasCapOf = (purpose: TxPurpose): bigint | null => GAS_CAPS.get(purpose) ?? null;

/** A payment to a user's address needs more gas than its cap (`PAYMENT_GAS_CAP`): nothing was signed or stored. */
export class PaymentGasTooHigh extends Error {
  constructor(
    readonly purpose: TxPurpose,
    readonly to: string,
    readonly gas: bigint,
    cap: bigint = PAYMENT_GAS_CAP,
  ) {
    super(
      `the ${purpose} to ${to} needs ${gas} gas, more than the ${cap} a payment to a user's address may use`,
    );
    this.name = 'PaymentGasTooHigh';
  }
}
