import type { Currency } from '../requests/domain/records.js';

/**
 * What Ferry knows about a chain, from `configs/chains.<ENVIRONMENT>.json` (see docs/chains.md). Addresses are in
 * the chain's own format (EVM hex, SVM base58, perps exchange ids); amounts are integer strings in the smallest unit.
 *
 * VM types: `evm`; `svm` (the SVM chain); `perps-a` and `perps-b` (the two perpetuals exchanges, whose accounts and
 * currencies are not EVM addresses). The spec keeps brand words out of identifiers, so these are neutral names.
 */
export const VM_TYPES = ['evm', 'svm', 'perps-a', 'perps-b'] as const;
export type VmType = (typeof VM_TYPES)[number];

export interface ChainCurrency extends Currency {
  /** Supports EIP-3009 `transferWithAuthorization` / `receiveWithAuthorization` (`usePermit`). */
  readonly supportsPermit: boolean;
  /** The chain's wrapped native token (WETH-like): native ↔ this is a wrap/unwrap. */
  readonly wrappedNative: boolean;
  /** EIP-712 domain name and version of the token (EIP-3009 signatures), when it supports permits. */
  readonly eip712?: { readonly name: string; readonly version: string };
}

export interface ChainInfo {
  readonly id: number;
  /** Short lowercase name, also the chain's name in order data (`orderData.inputs[].payment.chainId`). */
  readonly name: string;
  readonly displayName: string;
  readonly vmType: VmType;
  /** Resolved RPC URL, or null when the chain has no RPC in this environment (reads then say "not configured"). */
  readonly rpcUrl: string | null;
  /** The environment variable the RPC URL comes from (named in "not configured" errors). */
  readonly rpcUrlVariable: string | null;
  readonly wsRpcUrl: string | null;
  readonly explorerUrl: string | null;
  /** Ferry's depository on this chain (where deposits go), in the chain's address format. */
  readonly depository: string;
  /** `FerryCallExecutor` on this chain (EVM): fills with destination calls run through it; absent: none here. */
  readonly callExecutor?: string;
  /**
   * `FerryDepositAddressFactory` on this chain (EVM): deposit addresses are receivers it deploys with CREATE2
   * (docs/deposit-addresses.md); absent: this chain offers none.
   */
  readonly depositAddressFactory?: string;
  /** The solver's address on this chain (fills come from it; withdrawals from perps exchanges are sent to it). */
  readonly solver: string;
  readonly depositEnabled: boolean;
  /** Blocks after which a deposit is final, and the typical seconds that takes. */
  /**
   * When a block is final: `tag: 'finalized'` reads the chain's `finalized` block (chains that have one); otherwise
   * `blocks` deep from the head (1 = the head). `seconds` is the expected time to finality, for estimates.
   */
  readonly finality: { readonly blocks: number; readonly seconds: number; readonly tag?: 'finalized' };
  /** Typical seconds from a deposit on this chain to the fill (the quote's `timeEstimate` on this origin). */
  readonly timeEstimateSeconds: number;
  /** Gas used when the RPC cannot say: price in wei (EVM) and the units a deposit and a fill take. */
  readonly gas: {
    readonly defaultPriceWei: string;
    readonly depositUnits: string;
    readonly erc20DepositUnits: string;
    readonly fillUnits: string;
    /**
     * The most a fee-bumped replacement of a stuck transaction may bid per gas, in wei (EVM); absent: 100 ×
     * `defaultPriceWei`. With the gas limits of the journal (a payment: `PAYMENT_GAS_CAP`), it bounds what a base-fee
     * spike can make one transaction cost; above it the transaction waits (docs/settlement.md).
     */
    readonly maxFeePerGasWei?: string;
  };
  readonly nativeCurrency: ChainCurrency;
  readonly currencies: readonly ChainCurrency[];
}
