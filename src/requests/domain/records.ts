/**
 * The shapes a request carries from its quote to its end, as the spec names them (`spec/api.md`, Resources).
 * Amounts are integer strings in the smallest unit; USD values are decimal strings. JSON only: these are stored
 * in events and read models as they are.
 */

export interface Currency {
  readonly chainId: number;
  readonly address: string;
  readonly symbol: string;
  readonly name: string;
  readonly decimals: number;
  readonly metadata: { readonly logoURI: string; readonly verified: boolean; readonly isNative?: boolean };
}

/** The spec's Amount object. */
export interface Amount {
  readonly currency: Currency;
  readonly amount: string;
  readonly amountFormatted: string;
  readonly amountUsd: string;
  readonly minimumAmount: string;
}

/** One fee component in request records: `{usd, amount, amountFormatted}` (the `actual` phase may carry `usd` only). */
export interface FeeComponent {
  readonly usd: string;
  readonly amount?: string;
  readonly amountFormatted?: string;
}

export const FEE_COMPONENTS = ['swap', 'execution', 'platform', 'app', 'sponsored'] as const;
export type FeeComponentName = (typeof FEE_COMPONENTS)[number];
export type FeePhase = Readonly<Record<FeeComponentName, FeeComponent>>;

export interface QuotedAppFee {
  readonly recipient: string;
  readonly bps: string;
  readonly amount: string;
  readonly amountFormatted: string;
}

export interface PaidAppFee extends QuotedAppFee {
  readonly amountUsd: string;
}

export const SPONSORSHIP_COMPONENTS = ['execution', 'swap', 'platform', 'app', 'rent'] as const;
export type SponsorshipComponentName = (typeof SPONSORSHIP_COMPONENTS)[number];

export interface SponsorshipComponent {
  readonly selected: boolean;
  readonly total: string;
  readonly sponsored: string;
  readonly userPays: string;
}

/** One phase of fee sponsorship in the v3 naming (`platform`, not `relay`); amounts in the sponsorship currency. */
export interface SponsorshipPhase {
  readonly selectedComponents: readonly SponsorshipComponentName[];
  readonly capHit: boolean;
  readonly components: Readonly<Record<SponsorshipComponentName, SponsorshipComponent>>;
  readonly sponsoredTotal: Amount;
  readonly userPaysTotal: Amount;
  readonly maxSubsidizationAmount: string;
}

export interface ActualSponsorshipPhase extends SponsorshipPhase {
  readonly sponsorPayment: { readonly amount: string; readonly address: string; readonly chainId: number };
}

export interface RouteSide {
  readonly inputCurrency: Amount;
  readonly outputCurrency: Amount;
  readonly router: string;
}

export interface QuotedRoute {
  readonly origin: RouteSide;
  /** Null for same-chain swaps. */
  readonly destination: RouteSide | null;
  readonly includedSwapSources: readonly string[];
  readonly includedOriginSwapSources: readonly string[];
  readonly includedDestinationSwapSources: readonly string[];
}

export interface CallData {
  readonly from: string;
  readonly to: string;
  readonly data: string;
  readonly value: string;
}

/** An onchain transaction as the chain reported it. `timestamp` is unix seconds; `fee` is in the chain's native unit. */
export interface ChainTransaction {
  readonly chainId: number;
  readonly txHash: string;
  readonly block: number;
  readonly timestamp: number;
  readonly fee: string;
}

export const REQUEST_TYPES = [
  'Bridge',
  'Crosschain Swap',
  'Same-chain Swap',
  'Send',
  'Wrap',
  'Unwrap',
  'Call',
] as const;
export type RequestType = (typeof REQUEST_TYPES)[number];

export const OPERATIONS = ['send', 'swap', 'wrap', 'unwrap', 'bridge'] as const;
export type Operation = (typeof OPERATIONS)[number];

/**
 * A deposit address (`useDepositAddress`). `depositor` and `depositTxHash` are the sender and hash of the transfer
 * into the address that the request took, null until one is recorded (`DepositAddressFunded`).
 */
export interface DepositAddress {
  readonly address: string;
  readonly type: 'strict' | 'open';
  readonly depositor: string | null;
  readonly depositTxHash: string | null;
  readonly recoveryAddress: string | null;
}

export interface ProtocolQuote {
  readonly orderId: string;
  readonly hubType: string;
  readonly isWithdrawable: boolean;
  readonly orderData: unknown;
  readonly paymentDetails: {
    readonly chainId: string;
    readonly depository: string;
    readonly currency: string;
    readonly amount: string;
  };
  readonly solver: { readonly address: string; readonly protocolChainId: string; readonly chainId: number };
}

export interface QuoteOraclePrice {
  readonly rate: string;
  readonly observedAt: string;
  readonly inputCurrency: Currency;
  readonly outputCurrency: Currency;
}
