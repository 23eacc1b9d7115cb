/** App fees: where balances are denominated, what claiming elsewhere costs, who pays claims (docs/app-fees.md). */
export interface AppFeesConfig {
  /** Whether this process accrues fills' app fees into accounts (any number of instances may). */
  readonly run: boolean;
  /** The chain and USDC address balances are denominated in; claims there, in it, are free. */
  readonly baseChainId: number;
  readonly baseCurrency: string;
  /** The app-balance fee of a claim on another chain or in another currency, in USD (kept from the balance). */
  readonly claimFeeUsd: string;
  /** How long an unsigned claim holds the balance. */
  readonly claimTtlSeconds: number;
  /** How long `POST /execute/permits` waits for a claim's payout to mine before answering `submitted`. */
  readonly payoutWaitMs: number;
  /** The key payouts are sent from (`TREASURY_PRIVATE_KEY`); defaults to the solver's key, which holds the fees. */
  readonly treasuryPrivateKey: `0x${string}` | null;
  readonly pollIntervalMs: number;
}
