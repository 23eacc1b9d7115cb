import type { RecordedEvent } from '../../src/event-store/event-store.js';
import type {
  DepositConfirmedData,
  DepositAddressFundedData,
  DepositDetectedData,
  DepositSubmittedData,
  FillFailedData,
  FillSubmittedData,
  FillSucceededData,
  RefundFailedData,
  RefundSkippedData,
  RefundSubmittedData,
  RefundSucceededData,
  RequestExpiredData,
  RequestQuotedData,
  RequestSupersededData,
} from '../../src/requests/domain/request-events.js';
import type {
  ActualSponsorshipPhase,
  Amount,
  CallData,
  Currency,
  FeePhase,
  PaidAppFee,
  QuotedAppFee,
  QuoteOraclePrice,
  RouteSide,
  SponsorshipPhase,
} from '../../src/requests/domain/records.js';
import { nextStatus, type RequestStatus } from '../../src/requests/domain/request-status.js';
import { requestFeatures } from '../../src/requests/domain/request-features.js';

/** A transaction in a v3 record's `inTxs` / `outTxs`. */
export interface RecordTx {
  readonly txHash: string;
  readonly fee: string | null;
  readonly block: number | null;
  readonly type: 'onchain';
  readonly chainId: number;
  readonly timestamp: number | null;
  readonly status: 'pending' | 'success' | 'failure';
  readonly data: { readonly kind: 'deposit' | 'fill' | 'refund' };
  readonly stateChanges: readonly unknown[];
}

/** The v3 request record exactly as `GET /requests/v3` returns it (spec: Resources → Request record). */
export interface RequestV3 {
  readonly id: string;
  readonly status: RequestStatus;
  readonly user: string;
  readonly sender: string;
  readonly recipient: string;
  readonly refundTo: string | null;
  readonly depositAddress: {
    readonly address: string;
    readonly type: 'strict' | 'open';
    readonly depositor: string | null;
    readonly depositTxHash: string | null;
    readonly recoveryAddress: string | null;
  } | null;
  readonly requestType: string;
  readonly supersededByRequestId: string | null;
  readonly features: readonly string[];
  readonly protocol: {
    readonly orderId: string;
    readonly hubType: string;
    readonly isWithdrawable: boolean;
    readonly solver: { readonly address: string; readonly protocolChainId: string; readonly chainId: number };
    readonly deposit: {
      readonly origin: {
        readonly amount: string | null;
        readonly chainId: number;
        readonly currency: string;
        readonly depositor: string | null;
        readonly depository: string;
        readonly onchainId: string;
        readonly transactionId: string | null;
      };
    };
    readonly settlement: {
      readonly destination: {
        readonly fills: readonly { readonly chainId: number; readonly transactionId: string }[];
        readonly refunds: readonly { readonly chainId: number; readonly transactionId: string }[];
      };
    };
  };
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly data: {
    readonly slippageTolerance: string;
    readonly failReason: string | null;
    readonly refundFailReason: string | null;
    readonly failedTxHash: string | null;
    readonly failedTxBlockNumber: number | null;
    readonly failedCallData: CallData | null;
    readonly usesExternalLiquidity: boolean;
    readonly timeEstimate: number;
    readonly triggeredByFastFill: null;
    readonly inTxs: readonly RecordTx[];
    readonly outTxs: readonly RecordTx[];
    readonly appFees: {
      readonly quoted: readonly QuotedAppFee[];
      readonly actual: readonly PaidAppFee[];
      readonly currency: Currency;
    };
    readonly fees: {
      readonly quoted: FeePhase;
      readonly actual: FeePhase | null;
      readonly currency: Currency;
    };
    readonly feeSponsorship: {
      readonly currency: Currency | null;
      readonly quoted: SponsorshipPhase | null;
      readonly actual: ActualSponsorshipPhase | null;
    } | null;
    readonly route: {
      readonly includedSwapSources: readonly string[];
      readonly includedOriginSwapSources: readonly string[];
      readonly includedDestinationSwapSources: readonly string[];
      readonly quoted: { readonly origin: RouteSide; readonly destination: RouteSide | null };
      readonly actual: {
        readonly origin: RouteSide;
        readonly destination: RouteSide | null;
        readonly rate: string;
      };
    };
    readonly platformFee: null;
    readonly quoteOraclePrice: QuoteOraclePrice | null;
    readonly refundCurrencyData: Amount | null;
    readonly externalMetadata: { readonly moonpayId: string | null };
  };
}

/** What the read side keeps per request: the v3 record plus what filters, v2 and the status endpoint need. */
export interface RequestRecordState {
  readonly v3: RequestV3;
  readonly apiKeyId: string | null;
  readonly referrer: string | null;
  readonly originChainId: number;
  readonly destinationChainId: number;
  readonly currencyIn: Currency;
  readonly currencyOut: Currency;
  /** The quote's rate, and the quoted amounts for v2's `data.metadata`. */
  readonly quotedRate: string;
  readonly currencyGasTopup: Amount | null;
  /** History lists show a request once its first deposit is seen. */
  readonly listed: boolean;
  readonly expired: boolean;
  readonly expiredReason: string | null;
  readonly depositSubmittedVia: string | null;
  readonly depositBlock: number | null;
  /** Unix ms when the deposit was first seen and when the fill landed (fill time = the difference). */
  readonly depositSeenAtMs: number | null;
  readonly filledAtMs: number | null;
  readonly quotedAt: string;
  /** The deposit address was funded by value found by its balance: its depositor and hash stay unknown (null). */
  readonly depositAddressFundedByBalance?: boolean;
}

const txRecord = (
  chainId: number,
  txHash: string,
  kind: RecordTx['data']['kind'],
  status: RecordTx['status'],
  onchain?: { block: number; timestamp: number; fee: string },
): RecordTx => ({
  txHash,
  fee: onchain?.fee ?? null,
  block: onchain?.block ?? null,
  type: 'onchain',
  chainId,
  timestamp: onchain?.timestamp ?? null,
  status,
  data: { kind },
  stateChanges: [],
});
const sameTx = (a: { chainId: number; txHash: string }, chainId: number, txHash: string) =>
  a.chainId === chainId && a.txHash.toLowerCase() === txHash.toLowerCase();

/** Puts `tx` in place of the same transaction, or appends it. */
function upsertTx(list: readonly RecordTx[], tx: RecordTx): RecordTx[] {
  const index = list.findIndex((item) => sameTx(item, tx.chainId, tx.txHash));
  return index < 0 ? [...list, tx] : list.map((item, i) => (i === index ? tx : item));
}

/**
 * Pure: the request's read-side record after one of its events. Shared by the v3, v2 and status projections, so the
 * three never disagree on what happened.
 */
export function evolveRequestRecord(
  state: RequestRecordState | null,
  event: RecordedEvent,
): RequestRecordState | null {
  if (event.type === 'RequestQuoted') return fromQuote(event.data as RequestQuotedData);
  if (!state) return null;
  const to = nextStatus(state.v3.status, event.type as never) ?? state.v3.status;
  const touch = (v3: RequestV3, at: string, listed = state.listed): RequestRecordState => ({
    ...state,
    listed,
    v3: { ...v3, status: to, updatedAt: at },
  });
  const { v3 } = state;
  switch (event.type) {
    case 'DepositDetected': {
      const e = event.data as DepositDetectedData;
      const next = touch(
        {
          ...v3,
          depositAddress:
            v3.depositAddress && !state.depositAddressFundedByBalance
              ? { ...v3.depositAddress, depositTxHash: v3.depositAddress.depositTxHash ?? e.txHash }
              : v3.depositAddress,
          data: {
            ...v3.data,
            inTxs: upsertTx(v3.data.inTxs, txRecord(e.chainId, e.txHash, 'deposit', 'pending', e)),
          },
        },
        e.detectedAt,
        true,
      );
      return {
        ...next,
        depositBlock: state.depositBlock ?? e.block,
        depositSeenAtMs: state.depositSeenAtMs ?? Date.parse(e.detectedAt),
      };
    }
    case 'DepositSubmitted': {
      const e = event.data as DepositSubmittedData;
      const inTxs = e.txHash
        ? upsertTx(v3.data.inTxs, txRecord(e.chainId, e.txHash, 'deposit', 'pending'))
        : v3.data.inTxs;
      return {
        ...touch({ ...v3, data: { ...v3.data, inTxs } }, e.submittedAt, true),
        depositSubmittedVia: e.via,
      };
    }
    case 'DepositConfirmed': {
      const e = event.data as DepositConfirmedData;
      const origin = v3.protocol.deposit.origin;
      const depositedAmount = amountOf(v3.data.route.quoted.origin.inputCurrency, e.amount);
      const next = touch(
        {
          ...v3,
          depositAddress:
            v3.depositAddress && !state.depositAddressFundedByBalance
              ? {
                  ...v3.depositAddress,
                  // A deposit address's own transfer (DepositAddressFunded) names them first; the sweep does not.
                  depositTxHash: v3.depositAddress.depositTxHash ?? e.txHash,
                  depositor: v3.depositAddress.depositor ?? e.depositor,
                }
              : v3.depositAddress,
          protocol: {
            ...v3.protocol,
            deposit: {
              origin: { ...origin, amount: e.amount, depositor: e.depositor, transactionId: e.txHash },
            },
          },
          data: {
            ...v3.data,
            inTxs: upsertTx(v3.data.inTxs, txRecord(e.chainId, e.txHash, 'deposit', 'success', e)),
            route: {
              ...v3.data.route,
              actual: {
                ...v3.data.route.actual,
                origin: { ...v3.data.route.actual.origin, inputCurrency: depositedAmount },
              },
            },
          },
        },
        e.confirmedAt,
        true,
      );
      return {
        ...next,
        depositBlock: e.block,
        depositSeenAtMs: state.depositSeenAtMs ?? Date.parse(e.confirmedAt),
      };
    }
    case 'FillSubmitted': {
      const e = event.data as FillSubmittedData;
      return touch(
        {
          ...v3,
          data: {
            ...v3.data,
            outTxs: upsertTx(v3.data.outTxs, txRecord(e.chainId, e.txHash, 'fill', 'pending')),
          },
        },
        e.submittedAt,
      );
    }
    case 'FillSucceeded': {
      const e = event.data as FillSucceededData;
      const actual = v3.data.route.actual;
      const received = e.currencyOut;
      const route = actual.destination
        ? { ...actual, destination: { ...actual.destination, outputCurrency: received }, rate: e.rate }
        : { ...actual, origin: { ...actual.origin, outputCurrency: received }, rate: e.rate };
      const next = touch(
        {
          ...v3,
          protocol: settled(v3.protocol, 'fills', e),
          data: {
            ...v3.data,
            outTxs: upsertTx(v3.data.outTxs, txRecord(e.chainId, e.txHash, 'fill', 'success', e)),
            fees: { ...v3.data.fees, actual: e.fees },
            appFees: { ...v3.data.appFees, actual: e.appFees },
            feeSponsorship: v3.data.feeSponsorship
              ? { ...v3.data.feeSponsorship, actual: e.feeSponsorship }
              : null,
            route: { ...v3.data.route, actual: route },
            // Destination calls that failed after the payment (undone; the output went to the recipient).
            failedCallData: e.failedCallData ?? v3.data.failedCallData,
          },
        },
        e.completedAt,
      );
      return { ...next, filledAtMs: Date.parse(e.completedAt) };
    }
    case 'FillFailed': {
      const e = event.data as FillFailedData;
      const outTxs = e.failedTxHash
        ? v3.data.outTxs.map((tx) =>
            tx.txHash.toLowerCase() === e.failedTxHash!.toLowerCase()
              ? { ...tx, status: 'failure' as const }
              : tx,
          )
        : v3.data.outTxs;
      return touch(
        {
          ...v3,
          data: {
            ...v3.data,
            outTxs,
            failReason: e.failReason,
            failedTxHash: e.failedTxHash,
            failedTxBlockNumber: e.failedTxBlockNumber,
            failedCallData: e.failedCallData,
          },
        },
        e.failedAt,
      );
    }
    case 'RefundSubmitted': {
      const e = event.data as RefundSubmittedData;
      return touch(
        {
          ...v3,
          data: {
            ...v3.data,
            failReason: v3.data.failReason ?? e.reason,
            outTxs: upsertTx(v3.data.outTxs, txRecord(e.chainId, e.txHash, 'refund', 'pending')),
            refundCurrencyData: amountOf(v3.data.route.quoted.origin.inputCurrency, e.amount),
          },
        },
        e.submittedAt,
      );
    }
    case 'RefundSucceeded': {
      const e = event.data as RefundSucceededData;
      return touch(
        {
          ...v3,
          protocol: settled(v3.protocol, 'refunds', e),
          data: {
            ...v3.data,
            outTxs: upsertTx(v3.data.outTxs, txRecord(e.chainId, e.txHash, 'refund', 'success', e)),
            refundCurrencyData: amountOf(v3.data.route.quoted.origin.inputCurrency, e.amount),
          },
        },
        e.refundedAt,
      );
    }
    case 'RefundFailed': {
      const e = event.data as RefundFailedData;
      const outTxs = e.failedTxHash
        ? v3.data.outTxs.map((tx) =>
            tx.txHash.toLowerCase() === e.failedTxHash!.toLowerCase()
              ? { ...tx, status: 'failure' as const }
              : tx,
          )
        : v3.data.outTxs;
      return touch(
        {
          ...v3,
          data: {
            ...v3.data,
            outTxs,
            failReason: v3.data.failReason ?? 'REFUND_REQUIRED',
            refundFailReason: e.refundFailReason,
          },
        },
        e.failedAt,
      );
    }
    case 'RefundSkipped': {
      // No refund transaction: the deposit stays in the depository, worth less than a refund's gas.
      const e = event.data as RefundSkippedData;
      return touch({ ...v3, data: { ...v3.data, refundFailReason: e.refundFailReason } }, e.skippedAt);
    }
    case 'RequestExpired': {
      const e = event.data as RequestExpiredData;
      const failing = to === 'failure';
      return {
        ...touch(
          { ...v3, data: { ...v3.data, failReason: failing ? e.reason : v3.data.failReason } },
          e.expiredAt,
        ),
        expired: true,
        expiredReason: e.reason,
      };
    }
    case 'DepositAddressFunded': {
      // The user's transfer into the deposit address: its sender and hash are the record's depositor and
      // depositTxHash (the spec's "origin-chain hash of the depositor transfer"), and it lists the request.
      const e = event.data as DepositAddressFundedData;
      if (e.observedBy === 'balance') {
        // Found by the address's balance: no sender or transaction is known, and none is made up (the spec's
        // depositor and depositTxHash are nullable); the sweep's deposit must not stand in for them either.
        return { ...touch(v3, e.detectedAt, true), depositAddressFundedByBalance: true };
      }
      return touch(
        {
          ...v3,
          depositAddress: v3.depositAddress
            ? { ...v3.depositAddress, depositor: e.depositor, depositTxHash: e.txHash }
            : null,
          data: {
            ...v3.data,
            inTxs: upsertTx(v3.data.inTxs, txRecord(e.chainId, e.txHash, 'deposit', 'success', e)),
          },
        },
        e.detectedAt,
        true,
      );
    }
    case 'RequestSuperseded': {
      const e = event.data as RequestSupersededData;
      return touch({ ...v3, supersededByRequestId: e.supersededByRequestId }, e.supersededAt);
    }
    default:
      return state;
  }
}

/** The protocol block with one more fill or refund in `settlement.destination`. */
function settled(
  protocol: RequestV3['protocol'],
  kind: 'fills' | 'refunds',
  tx: { chainId: number; txHash: string },
): RequestV3['protocol'] {
  const destination = protocol.settlement.destination;
  return {
    ...protocol,
    settlement: {
      destination: {
        ...destination,
        [kind]: [...destination[kind], { chainId: tx.chainId, transactionId: tx.txHash }],
      },
    },
  };
}

/**
 * The same currency as `like`, with another amount in the smallest unit (USD scaled exactly from the quote). An
 * amount that moved onchain has no slippage left: its `minimumAmount` is the amount.
 */
function amountOf(like: Amount, amount: string): Amount {
  const units = BigInt(amount);
  const quotedUnits = BigInt(like.amount);
  return {
    currency: like.currency,
    amount,
    amountFormatted: formatUnits(units, like.currency.decimals),
    amountUsd: quotedUnits === 0n ? '0' : scaleDecimal(like.amountUsd, units, quotedUnits),
    minimumAmount: amount,
  };
}

export function formatUnits(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const text = (negative ? -units : units).toString().padStart(decimals + 1, '0');
  const whole = text.slice(0, text.length - decimals);
  const fraction = text.slice(text.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** `decimal × numerator / denominator`, exactly, to 6 decimal places (rounded down). */
function scaleDecimal(decimal: string, numerator: bigint, denominator: bigint): string {
  const [whole, fraction = ''] = decimal.split('.');
  const scaled = BigInt(whole + fraction.padEnd(6, '0').slice(0, 6));
  return formatUnits((scaled * numerator) / denominator, 6);
}

function fromQuote(q: RequestQuotedData): RequestRecordState {
  const quotedRoute = { origin: q.route.origin, destination: q.route.destination };
  return {
    apiKeyId: q.apiKeyId,
    referrer: q.referrer,
    originChainId: q.originChainId,
    destinationChainId: q.destinationChainId,
    currencyIn: q.currencyIn.currency,
    currencyOut: q.currencyOut.currency,
    quotedRate: q.rate,
    currencyGasTopup: q.currencyGasTopup,
    listed: false,
    expired: false,
    expiredReason: null,
    depositSubmittedVia: null,
    depositBlock: null,
    depositSeenAtMs: null,
    filledAtMs: null,
    quotedAt: q.quotedAt,
    v3: {
      id: q.requestId,
      status: 'waiting',
      user: q.user,
      sender: q.sender,
      recipient: q.recipient,
      refundTo: q.refundTo,
      depositAddress: q.depositAddress
        ? {
            address: q.depositAddress.address,
            type: q.depositAddress.type,
            depositor: q.depositAddress.depositor,
            depositTxHash: null,
            recoveryAddress: q.depositAddress.recoveryAddress,
          }
        : null,
      requestType: q.requestType,
      supersededByRequestId: null,
      features: requestFeatures(q.features),
      protocol: {
        orderId: q.protocol.orderId,
        hubType: q.protocol.hubType,
        isWithdrawable: q.protocol.isWithdrawable,
        solver: q.protocol.solver,
        deposit: {
          origin: {
            amount: null,
            chainId: q.originChainId,
            currency: q.protocol.paymentDetails.currency,
            depositor: null,
            depository: q.protocol.paymentDetails.depository,
            onchainId: q.protocol.orderId,
            transactionId: null,
          },
        },
        settlement: { destination: { fills: [], refunds: [] } },
      },
      createdAt: q.quotedAt,
      updatedAt: q.quotedAt,
      data: {
        slippageTolerance: q.slippageTolerance,
        failReason: null,
        refundFailReason: null,
        failedTxHash: null,
        failedTxBlockNumber: null,
        failedCallData: null,
        usesExternalLiquidity: q.usesExternalLiquidity,
        timeEstimate: q.timeEstimate,
        triggeredByFastFill: null,
        inTxs: [],
        outTxs: [],
        appFees: { quoted: q.appFees, actual: [], currency: q.appFeeCurrency },
        fees: { quoted: q.fees, actual: null, currency: q.feeCurrency },
        feeSponsorship: q.feeSponsorship
          ? { currency: q.sponsorshipCurrency, quoted: q.feeSponsorship, actual: null }
          : null,
        route: {
          includedSwapSources: q.route.includedSwapSources,
          includedOriginSwapSources: q.route.includedOriginSwapSources,
          includedDestinationSwapSources: q.route.includedDestinationSwapSources,
          quoted: quotedRoute,
          // Until something executes, `actual` is the quote (the spec's fallback rule).
          actual: { ...quotedRoute, rate: q.rate },
        },
        platformFee: null,
        quoteOraclePrice: q.quoteOraclePrice,
        refundCurrencyData: null,
        externalMetadata: q.externalMetadata,
      },
    },
  };
}

/** The spec's derived amounts: deposited, quoted output and received (same-chain swaps read the origin side). */
export function derivedAmounts(v3: RequestV3): {
  deposited: Amount;
  quotedOutput: Amount | null;
  received: Amount;
} {
  const { actual } = v3.data.route;
  return {
    deposited: actual.origin.inputCurrency,
    quotedOutput: actual.destination?.inputCurrency ?? null,
    received: actual.destination ? actual.destination.outputCurrency : actual.origin.outputCurrency,
  };
}

/** Every transaction hash a request has (deposit, fill, refund, failed), lower-cased: what `term` searches. */
export function transactionHashes(state: RequestRecordState): string[] {
  const hashes = [
    ...state.v3.data.inTxs.map((tx) => tx.txHash),
    ...state.v3.data.outTxs.map((tx) => tx.txHash),
    ...(state.v3.data.failedTxHash ? [state.v3.data.failedTxHash] : []),
  ];
  return [...new Set(hashes.map((hash) => hash.toLowerCase()))];
}
