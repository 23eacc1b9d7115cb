/* eslint-disable @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- each event class merges with its payload interface */
import { DomainEvent, StoredEvent } from '../../event-store/domain-event.js';
import type {
  ActualSponsorshipPhase,
  Amount,
  CallData,
  ChainTransaction,
  Currency,
  DepositAddress,
  FeePhase,
  Operation,
  PaidAppFee,
  ProtocolQuote,
  QuotedAppFee,
  QuotedRoute,
  QuoteOraclePrice,
  RequestType,
  SponsorshipPhase,
} from './records.js';
import type { TransactionType } from '../../quotes/domain/pricing/fee-schedule.js';

/**
 * The Request aggregate's events (stream `request-<requestId>`). Each is stored by its explicit type name;
 * `docs/events.md` lists their payloads and the status each leads to. Times are ISO 8601 strings taken from the
 * command (pure code never reads the clock).
 */

/** The quote as issued: everything the records show about what was promised. The request starts `waiting`. */
export interface RequestQuotedData {
  readonly requestId: string;
  readonly quotedAt: string;
  /** The API key the quote was made with (its id, never the key), or null. */
  readonly apiKeyId: string | null;
  readonly referrer: string | null;
  readonly user: string;
  readonly sender: string;
  readonly recipient: string;
  readonly refundTo: string | null;
  readonly requestType: RequestType;
  readonly operation: Operation;
  readonly features: readonly string[];
  readonly originChainId: number;
  readonly destinationChainId: number;
  readonly currencyIn: Amount;
  readonly currencyOut: Amount;
  readonly currencyGasTopup: Amount | null;
  readonly refundCurrency: Amount | null;
  readonly rate: string;
  /** Basis points, as a string (`"50"` = 0.5%). */
  readonly slippageTolerance: string;
  readonly timeEstimate: number;
  readonly usesExternalLiquidity: boolean;
  readonly fees: FeePhase;
  readonly feeCurrency: Currency;
  readonly appFees: readonly QuotedAppFee[];
  readonly appFeeCurrency: Currency;
  readonly feeSponsorship: SponsorshipPhase | null;
  readonly sponsorshipCurrency: Currency | null;
  readonly route: QuotedRoute;
  readonly protocol: ProtocolQuote;
  readonly depositAddress: DepositAddress | null;
  readonly quoteOraclePrice: QuoteOraclePrice | null;
  readonly externalMetadata: { readonly moonpayId: string | null };
  /** After this a quote with no deposit expires. */
  readonly quoteExpiresAt: string;
  /** How long a detected or submitted deposit may take to confirm. */
  readonly depositConfirmationTimeoutSeconds: number;
  /** After this an unfilled request fails (`FILL_DEADLINE_EXPIRED`) and is refunded. */
  readonly fillDeadline: string;
  /**
   * Who pays what the quote sponsors, from an app-fee balance (an API key with a sponsor address): the account, the
   * base chain of app-fee balances and the amount in its USDC units. Absent when no app balance pays (docs/app-fees.md).
   */
  readonly sponsor?: { readonly address: string; readonly chainId: number; readonly amount: string } | null;
  /**
   * The platform fee class the quote was priced as (docs/fees.md): what a key's revenue share is decided by. Absent
   * on quotes recorded before it existed (they earn no revenue share).
   */
  readonly transactionType?: TransactionType;
  /**
   * Withdrawals from perps exchange A: the nonce mapping the `authorize` step asks the wallet to sign, checked by
   * `POST /authorize`. Absent on other quotes (and on quotes recorded before it existed).
   */
  readonly authorization?: {
    readonly kind: 'nonce-mapping';
    readonly nonce: number;
    readonly wallet: string;
    readonly depositor: string;
  };
}
export interface RequestQuoted extends RequestQuotedData {}
@StoredEvent('RequestQuoted')
export class RequestQuoted extends DomainEvent<RequestQuotedData> {}

/** A deposit transaction for this order seen onchain, not yet final. Status stays `waiting`; history lists it. */
export interface DepositDetectedData extends ChainTransaction {
  /** The deposit log's index in its transaction (absent on events recorded before it was kept). */
  readonly logIndex?: number;
  readonly amount: string;
  readonly currency: string;
  readonly depositor: string;
  readonly depository: string;
  /**
   * Set when the deposit's transaction was sent to the origin's deposit-address factory: the solver's sweep of a
   * transfer the request took. Only such a deposit counts as paid at that transfer's time (absent: a deposit).
   */
  readonly sweptFromDepositAddress?: true;
  readonly detectedAt: string;
}
export interface DepositDetected extends DepositDetectedData {}
@StoredEvent('DepositDetected')
export class DepositDetected extends DomainEvent<DepositDetectedData> {}

/** The deposit was handed in through the execute API (a permit or an authorization): `depositing`. */
export interface DepositSubmittedData {
  readonly via: 'permit' | 'authorization';
  readonly chainId: number;
  readonly txHash: string | null;
  readonly submittedAt: string;
}
export interface DepositSubmitted extends DepositSubmittedData {}
@StoredEvent('DepositSubmitted')
export class DepositSubmitted extends DomainEvent<DepositSubmittedData> {}

/** The deposit is final on the origin chain: `pending` (fill pending submission). */
export interface DepositConfirmedData extends ChainTransaction {
  /** The deposit log's index in its transaction (absent on events recorded before it was kept). */
  readonly logIndex?: number;
  readonly amount: string;
  readonly currency: string;
  readonly depositor: string;
  readonly depository: string;
  /**
   * Set when the deposit's transaction was sent to the origin's deposit-address factory: the solver's sweep of a
   * transfer the request took. Only such a deposit counts as paid at that transfer's time (absent: a deposit).
   */
  readonly sweptFromDepositAddress?: true;
  readonly confirmedAt: string;
}
export interface DepositConfirmed extends DepositConfirmedData {}
@StoredEvent('DepositConfirmed')
export class DepositConfirmed extends DomainEvent<DepositConfirmedData> {}

/** The fill transaction was sent on the destination chain: `submitted`. */
export interface FillSubmittedData {
  readonly chainId: number;
  readonly txHash: string;
  readonly submittedAt: string;
}
export interface FillSubmitted extends FillSubmittedData {}
@StoredEvent('FillSubmitted')
export class FillSubmitted extends DomainEvent<FillSubmittedData> {}

/** The fill succeeded, with what actually happened: `success`. */
export interface FillSucceededData extends ChainTransaction {
  readonly currencyOut: Amount;
  readonly rate: string;
  readonly fees: FeePhase;
  readonly appFees: readonly PaidAppFee[];
  readonly feeSponsorship: ActualSponsorshipPhase | null;
  /** A destination call that failed after the payment (the calls were undone; the output went to the recipient). */
  readonly failedCallData?: CallData | null;
  readonly completedAt: string;
}
export interface FillSucceeded extends FillSucceededData {}
@StoredEvent('FillSucceeded')
export class FillSucceeded extends DomainEvent<FillSucceededData> {}

/** The request cannot be filled: `failure`; a refund follows where one is possible. */
export interface FillFailedData {
  readonly failReason: string;
  readonly failedTxHash: string | null;
  readonly failedTxBlockNumber: number | null;
  readonly failedCallData: CallData | null;
  /** Extra context, e.g. decoded revert data. */
  readonly details: string | null;
  readonly failedAt: string;
}
export interface FillFailed extends FillFailedData {}
@StoredEvent('FillFailed')
export class FillFailed extends DomainEvent<FillFailedData> {}

/** A refund transaction was sent on the origin chain. The status is unchanged until it lands. */
export interface RefundSubmittedData {
  readonly chainId: number;
  readonly txHash: string;
  readonly amount: string;
  readonly currency: string;
  readonly recipient: string;
  /** Why the request is refunded when it was not filled first (e.g. a wrong deposit); null after a failure. */
  readonly reason: string | null;
  readonly submittedAt: string;
}
export interface RefundSubmitted extends RefundSubmittedData {}
@StoredEvent('RefundSubmitted')
export class RefundSubmitted extends DomainEvent<RefundSubmittedData> {}

/** The refund landed: `refund` (terminal). */
export interface RefundSucceededData extends ChainTransaction {
  readonly amount: string;
  readonly currency: string;
  readonly recipient: string;
  readonly refundedAt: string;
}
export interface RefundSucceeded extends RefundSucceededData {}
@StoredEvent('RefundSucceeded')
export class RefundSucceeded extends DomainEvent<RefundSucceededData> {}

/** The refund leg failed: `failure`, final unless another refund is tried. */
export interface RefundFailedData {
  readonly refundFailReason: string;
  readonly failedTxHash: string | null;
  readonly failedAt: string;
}
export interface RefundFailed extends RefundFailedData {}
@StoredEvent('RefundFailed')
export class RefundFailed extends DomainEvent<RefundFailedData> {}

/**
 * The refund is not sent, and never will be: what was deposited is worth less than the gas a refund would cost the
 * solver (`AMOUNT_TOO_LOW_TO_REFUND`, the rule of unmatched returns, docs/settlement.md). The funds stay in the
 * depository. Status stays `failure`; the request takes no refund after it. Id: `<requestId>:refund-skipped`.
 */
export interface RefundSkippedData {
  readonly refundFailReason: 'AMOUNT_TOO_LOW_TO_REFUND';
  /** The deposit that is not refunded: its chain, amount and currency. */
  readonly chainId: number;
  readonly amount: string;
  readonly currency: string;
  readonly skippedAt: string;
}
export interface RefundSkipped extends RefundSkippedData {}
@StoredEvent('RefundSkipped')
export class RefundSkipped extends DomainEvent<RefundSkippedData> {}

/**
 * A deadline passed. A quote with no confirmed deposit just expires (status stays `waiting`, flagged expired, no
 * history entry); a request with funds in flight fails with the reason, and is refunded.
 */
export interface RequestExpiredData {
  readonly reason: string;
  readonly expiredAt: string;
}
export interface RequestExpired extends RequestExpiredData {}
@StoredEvent('RequestExpired')
export class RequestExpired extends DomainEvent<RequestExpiredData> {}

/** A native transfer into the request's deposit address, as the watcher saw it in a final block. */
export interface DepositAddressTransferData extends ChainTransaction {
  /** The deposit address it was sent to. */
  readonly address: string;
  /**
   * The transaction's sender: credited with the deposit, and refunded when there is no `refundTo`. The zero address
   * when the transfer was found by the address's balance (`observedBy: 'balance'`): then nobody is known.
   */
  readonly depositor: string;
  /**
   * `balance`: value that reached the address from inside a contract call, found by its balance; no transaction is
   * known, and `txHash` is `balance-<address>` (one per address). Absent: a transaction to the address.
   */
  readonly observedBy?: 'balance';
  readonly amount: string;
  /** The token sent, when it was not the native currency (absent: native). */
  readonly currency?: string;
  readonly detectedAt: string;
}

/**
 * The request takes a transfer into its deposit address: the solver sweeps `sweepAmount` (the quoted amount) into
 * the depository with the order id, and gives `surplus` back (open addresses only). Status unchanged; the deposit
 * itself follows as the sweep's `DepositDetected`/`DepositConfirmed`.
 */
export interface DepositAddressFundedData extends DepositAddressTransferData {
  readonly sweepAmount: string;
  readonly surplus: string;
}
export interface DepositAddressFunded extends DepositAddressFundedData {}
@StoredEvent('DepositAddressFunded')
export class DepositAddressFunded extends DomainEvent<DepositAddressFundedData> {}

/**
 * A transfer into the deposit address the request cannot use (`reason`: DEPOSIT_AMOUNT_MISMATCH,
 * DEPOSIT_AMOUNT_TOO_LOW, DEPOSIT_AFTER_EXPIRY, REQUEST_CANNOT_TAKE_DEPOSIT): the solver gives it back to `refundTo`,
 * else the depositor. Status unchanged.
 */
export interface DepositAddressTransferRefusedData extends DepositAddressTransferData {
  readonly reason: string;
}
export interface DepositAddressTransferRefused extends DepositAddressTransferRefusedData {}
@StoredEvent('DepositAddressTransferRefused')
export class DepositAddressTransferRefused extends DomainEvent<DepositAddressTransferRefusedData> {}

/** A regenerated deposit-address request owns the sweep and fill from now on. Status unchanged. */
export interface RequestSupersededData {
  readonly supersededByRequestId: string;
  readonly supersededAt: string;
}
export interface RequestSuperseded extends RequestSupersededData {}
@StoredEvent('RequestSuperseded')
export class RequestSuperseded extends DomainEvent<RequestSupersededData> {}

/**
 * The wallet signed the withdrawal's nonce mapping (perps exchange A, `POST /authorize`): the exchange transfer with
 * that nonce belongs to this request. Status unchanged.
 */
export interface WithdrawalAuthorizedData {
  readonly kind: 'nonce-mapping';
  readonly wallet: string;
  readonly nonce: number;
  readonly signature: string;
  readonly signatureChainId: number;
  readonly authorizedAt: string;
}
export interface WithdrawalAuthorized extends WithdrawalAuthorizedData {}
@StoredEvent('WithdrawalAuthorized')
export class WithdrawalAuthorized extends DomainEvent<WithdrawalAuthorizedData> {}

/**
 * The attestation oracle attested a fact of this request (docs/oracle.md, "Ferry and its oracles"): its confirmed
 * deposit (`depository-deposit`), its fill (`solver-fill`) or its refund (`solver-refund`). The whole signed message
 * is kept, signatures included, so an auditor can recompute and recover it (`npm run cli -- requests:verify`).
 * `subject` names the fact (`deposit:<chainId>:<txHash>:<logIndex>`, `fill:<chainId>:<txHash>`,
 * `refund:<chainId>:<txHash>`); `counted`: the configured signers whose signatures were valid when recorded. Id:
 * `<requestId>:attested:<subject>`. Status unchanged.
 */
export interface OracleAttestedData {
  readonly kind: 'depository-deposit' | 'solver-fill' | 'solver-refund';
  readonly subject: string;
  readonly messageId: string;
  readonly domain: {
    readonly name: string;
    readonly version: string;
    readonly chainId: number;
    readonly verifyingContract: string;
  };
  readonly message: { readonly data: Record<string, unknown>; readonly result: Record<string, unknown> };
  readonly signatures: readonly {
    readonly signer: string;
    readonly signature: string;
    readonly shadow: boolean;
  }[];
  readonly counted: readonly string[];
  readonly attestedAt: string;
}
export interface OracleAttested extends OracleAttestedData {}
@StoredEvent('OracleAttested')
export class OracleAttested extends DomainEvent<OracleAttestedData> {}

export const REQUEST_EVENTS = [
  RequestQuoted,
  DepositDetected,
  DepositSubmitted,
  DepositConfirmed,
  FillSubmitted,
  FillSucceeded,
  FillFailed,
  RefundSubmitted,
  RefundSucceeded,
  RefundFailed,
  RefundSkipped,
  RequestExpired,
  RequestSuperseded,
  WithdrawalAuthorized,
  DepositAddressFunded,
  DepositAddressTransferRefused,
  OracleAttested,
] as const;

export type RequestEvent = InstanceType<(typeof REQUEST_EVENTS)[number]>;
export type RequestEventType =
  | 'RequestQuoted'
  | 'DepositDetected'
  | 'DepositSubmitted'
  | 'DepositConfirmed'
  | 'FillSubmitted'
  | 'FillSucceeded'
  | 'FillFailed'
  | 'RefundSubmitted'
  | 'RefundSucceeded'
  | 'RefundFailed'
  | 'RefundSkipped'
  | 'RequestExpired'
  | 'RequestSuperseded'
  | 'WithdrawalAuthorized'
  | 'DepositAddressFunded'
  | 'DepositAddressTransferRefused'
  | 'OracleAttested';
