import type {
  Amount,
  CallData,
  Currency,
  PaidAppFee,
  QuotedAppFee,
  RouteSide,
  SponsorshipComponent,
  SponsorshipPhase,
} from '../../src/requests/domain/records.js';
import { derivedAmounts } from '../requests/record-derived.js';
import type { RecordTx, RequestRecordState, RequestV3 } from '../requests/request-record-state.js';
import {
  isPositiveDecimal,
  sponsoredFeeUnits,
  type V2ExpandedPriceImpact,
  type V2FeeBreakdown,
  v2ExpandedPriceImpact,
  v2Fees,
} from './v2-fees.js';

/** The v2 status set (spec, States and transitions). */
export const V2_STATUSES = ['waiting', 'pending', 'delayed', 'success', 'failure', 'refund'] as const;
export type V2Status = (typeof V2_STATUSES)[number];

/** v2 writes `N/A` where v3 has null (spec, Errors 6). */
export const NOT_APPLICABLE = 'N/A';

/** A request in flight is `delayed` once it has been pending longer than this many times its time estimate… */
export const DELAYED_ESTIMATE_FACTOR = 3;
/** …and at least this long (short estimates would otherwise flag ordinary chain hiccups). */
export const DELAYED_MIN_MS = 5 * 60_000;

/** A transaction in v2's `inTxs` / `outTxs`: v3's item with `hash` for `txHash`. */
export type V2Tx = Omit<RecordTx, 'txHash'> & { readonly hash: string };

/** One side of v2's `data.metadata.route`: the quote's route shape (`includedSwapSources` per side). */
export interface V2RouteSide extends RouteSide {
  readonly includedSwapSources: readonly string[];
}

type V2SponsorshipComponentName = 'execution' | 'swap' | 'relay' | 'app' | 'rent';
/** v2's fee sponsorship phase: component `relay` for `platform`, no `sponsorPayment`. */
export interface V2SponsorshipPhase {
  readonly selectedComponents: readonly V2SponsorshipComponentName[];
  readonly capHit: boolean;
  readonly components: Readonly<Record<V2SponsorshipComponentName, SponsorshipComponent>>;
  readonly sponsoredTotal: Amount;
  readonly userPaysTotal: Amount;
  readonly maxSubsidizationAmount: string;
}

/** The deprecated v2 request record (`GET /requests/v2`): the spec's v2 → v3 table read backwards. */
export interface RequestV2 {
  readonly id: string;
  readonly status: V2Status;
  readonly user: string;
  /** Root in v2 (v3: `data.referrer`, authenticated data only). */
  readonly referrer: string | null;
  /** Root in v2 (v3: `data.externalMetadata.moonpayId`). */
  readonly moonpayId: string | null;
  /** The deposit address itself, or null (v3: an object). */
  readonly depositAddress: string | null;
  readonly protocol: RequestV3['protocol'];
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly data: {
    readonly metadata: {
      readonly sender: string;
      readonly recipient: string;
      readonly currencyIn: Amount;
      readonly currencyOut: Amount;
      readonly rate: string;
      readonly currencyGasTopup: Amount | null;
      readonly route: { readonly origin: V2RouteSide; readonly destination: V2RouteSide | null };
    };
    readonly slippageTolerance: string;
    readonly failReason: string;
    readonly refundFailReason: string;
    readonly failedTxHash: string | null;
    readonly failedTxBlockNumber: number | null;
    readonly failedCallData: CallData | null;
    readonly usesExternalLiquidity: boolean;
    readonly timeEstimate: number;
    readonly triggeredByFastFill: null;
    readonly inTxs: readonly V2Tx[];
    readonly outTxs: readonly V2Tx[];
    /** Raw, in the fee currency's smallest unit (see v2-fees.ts for each component). */
    readonly fees: V2FeeBreakdown;
    readonly feesUsd: V2FeeBreakdown;
    readonly expandedPriceImpact: V2ExpandedPriceImpact;
    /** Quoted app fees. */
    readonly appFees: readonly QuotedAppFee[];
    /** Collected app fees: empty until the fill succeeded (empty or zero = not collected). */
    readonly paidAppFees: readonly PaidAppFee[];
    readonly feeSponsorship: {
      readonly quoted: V2SponsorshipPhase | null;
      readonly actual: V2SponsorshipPhase | null;
    } | null;
    readonly subsidizedRequest: boolean;
    /** The sponsored part of the fees, in the fee currency's smallest unit. */
    readonly subsidizedFee: string;
    /** The lower-cased symbol of `currencyObject`: the currency `price` is counted in. */
    readonly currency: string;
    readonly currencyObject: Currency;
    readonly feeCurrency: string;
    readonly feeCurrencyObject: Currency;
    readonly appFeeCurrencyObject: Currency;
    /** The quoted output in the smallest unit of `currencyObject` (v3: `data.route.actual.destination.inputCurrency`). */
    readonly price: string;
    readonly supersededByRequestId: string | null;
    readonly platformFee: null;
    readonly refundCurrencyData: Amount | null;
  };
}

/**
 * Pure: the v2 status at `now`. v3's `depositing` and `submitted` did not exist in v2: both are `pending` there (the
 * deposit is on its way or the fill is; either way the request is in flight). A request in flight is `delayed` once
 * it has been so for more than max(3 × its time estimate, 5 min), counted from when its deposit was first seen (from
 * the quote when the deposit came through the execute API and has not been seen onchain yet).
 */
export function v2Status(state: RequestRecordState, now: Date): V2Status {
  switch (state.v3.status) {
    case 'depositing':
    case 'pending':
    case 'submitted': {
      const since = state.depositSeenAtMs ?? Date.parse(state.v3.createdAt);
      const allowedMs = Math.max(DELAYED_ESTIMATE_FACTOR * state.v3.data.timeEstimate * 1000, DELAYED_MIN_MS);
      return now.getTime() - since > allowedMs ? 'delayed' : 'pending';
    }
    default:
      return state.v3.status;
  }
}

/**
 * Pure: v2's `failReason`: the recorded reason; `UNKNOWN` on `failure` and `refund` when none was recorded (the
 * webhook rule); `N/A` otherwise.
 */
export function v2FailReason(v3: RequestV3): string {
  if (v3.data.failReason !== null) return v3.data.failReason;
  return v3.status === 'failure' || v3.status === 'refund' ? 'UNKNOWN' : NOT_APPLICABLE;
}

/** Pure: the deprecated v2 record of a request at `now` (only `status` depends on `now`: `delayed`). */
export function toV2Record(state: RequestRecordState, now: Date): RequestV2 {
  const { v3 } = state;
  const { data } = v3;
  const amounts = derivedAmounts(v3);
  // Same-chain swaps have no destination side: their quoted output is the origin side's output.
  const priced = amounts.quotedOutput ?? data.route.actual.origin.outputCurrency;
  const { fees, feesUsd } = v2Fees(data.fees);
  const subsidizedFee = sponsoredFeeUnits(data.fees);
  const sponsorship = data.feeSponsorship;
  const sponsoredUsd = (sponsorship?.actual ?? sponsorship?.quoted)?.sponsoredTotal.amountUsd;
  return {
    id: v3.id,
    status: v2Status(state, now),
    user: v3.user,
    referrer: state.referrer,
    moonpayId: data.externalMetadata.moonpayId,
    depositAddress: v3.depositAddress?.address ?? null,
    protocol: v3.protocol,
    createdAt: v3.createdAt,
    updatedAt: v3.updatedAt,
    data: {
      metadata: {
        sender: v3.sender,
        recipient: v3.recipient,
        currencyIn: amounts.deposited,
        currencyOut: amounts.received,
        rate: data.route.actual.rate,
        currencyGasTopup: state.currencyGasTopup,
        route: {
          origin: { ...data.route.actual.origin, includedSwapSources: data.route.includedOriginSwapSources },
          destination: data.route.actual.destination
            ? {
                ...data.route.actual.destination,
                includedSwapSources: data.route.includedDestinationSwapSources,
              }
            : null,
        },
      },
      slippageTolerance: data.slippageTolerance,
      failReason: v2FailReason(v3),
      refundFailReason: data.refundFailReason ?? NOT_APPLICABLE,
      failedTxHash: data.failedTxHash,
      failedTxBlockNumber: data.failedTxBlockNumber,
      failedCallData: data.failedCallData,
      usesExternalLiquidity: data.usesExternalLiquidity,
      timeEstimate: data.timeEstimate,
      triggeredByFastFill: data.triggeredByFastFill,
      inTxs: data.inTxs.map(toV2Tx),
      outTxs: data.outTxs.map(toV2Tx),
      fees,
      feesUsd,
      expandedPriceImpact: v2ExpandedPriceImpact(data.fees),
      appFees: data.appFees.quoted,
      paidAppFees: data.appFees.actual,
      feeSponsorship: sponsorship
        ? { quoted: toV2Sponsorship(sponsorship.quoted), actual: toV2Sponsorship(sponsorship.actual) }
        : null,
      subsidizedRequest:
        sponsoredUsd !== undefined ? isPositiveDecimal(sponsoredUsd) : BigInt(subsidizedFee) > 0n,
      subsidizedFee,
      currency: priced.currency.symbol.toLowerCase(),
      currencyObject: priced.currency,
      feeCurrency: data.fees.currency.symbol.toLowerCase(),
      feeCurrencyObject: data.fees.currency,
      appFeeCurrencyObject: data.appFees.currency,
      price: priced.amount,
      supersededByRequestId: v3.supersededByRequestId,
      platformFee: data.platformFee,
      refundCurrencyData: data.refundCurrencyData,
    },
  };
}

function toV2Tx({ txHash, ...rest }: RecordTx): V2Tx {
  return { hash: txHash, ...rest };
}

/** v3 → v2 sponsorship phase: `platform` back to `relay`, `sponsorPayment` dropped (the currency is per amount). */
function toV2Sponsorship(phase: SponsorshipPhase | null): V2SponsorshipPhase | null {
  if (!phase) return null;
  const { platform, ...others } = phase.components;
  return {
    selectedComponents: phase.selectedComponents.map((name) => (name === 'platform' ? 'relay' : name)),
    capHit: phase.capHit,
    components: { ...others, relay: platform },
    sponsoredTotal: phase.sponsoredTotal,
    userPaysTotal: phase.userPaysTotal,
    maxSubsidizationAmount: phase.maxSubsidizationAmount,
  };
}
