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
import type { RequestStatus } from '../../src/requests/domain/request-status.js';

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
