import { derivedAmounts } from '../requests/record-derived.js';
import type { RequestRecordState } from '../requests/request-record-state.js';

const HEX = /^0x[0-9a-f]*$/i;
const DECIMAL = /^-?[0-9]+(\.[0-9]+)?$/;

/**
 * How addresses, hashes and ids are stored and searched. EVM values (`0x` + hex) are case-insensitive, so they are
 * lower-cased; anything else (SVM base58, Bitcoin-style) is case-sensitive and kept exactly. The history query
 * normalises what it is asked with the same function, so the two always agree.
 */
export function normalizeHex(value: string): string {
  return HEX.test(value) ? value.toLowerCase() : value;
}

/** A decimal string for a `numeric` column; anything else is stored as null rather than failing the batch. */
export function decimalOrNull(value: string | null | undefined): string | null {
  return value !== null && value !== undefined && DECIMAL.test(value) ? value : null;
}

const unique = (values: readonly (string | null | undefined)[]): string[] => [
  ...new Set(values.filter((value): value is string => !!value).map(normalizeHex)),
];

/** Transaction hashes of one kind: `deposit` (plus the chain-entry hash into a deposit address), `fill`, `refund`. */
export function hashesOf(state: RequestRecordState, kind: 'deposit' | 'fill' | 'refund'): string[] {
  const { v3 } = state;
  const txs = kind === 'deposit' ? v3.data.inTxs : v3.data.outTxs;
  return unique([
    ...txs.filter((tx) => tx.data.kind === kind).map((tx) => tx.txHash),
    ...(kind === 'deposit' ? [v3.depositAddress?.depositTxHash] : []),
  ]);
}

/**
 * Everything `term` matches exactly: the request id, the wallets (user, sender, recipient), the deposit address and
 * every transaction hash (deposit, fill, refund, failed, chain-entry). One GIN-indexed array answers `term` with one
 * index probe, and also narrows the per-kind hash filters before their own column is checked.
 */
export function searchTermsOf(state: RequestRecordState): string[] {
  const { v3 } = state;
  return unique([
    v3.id,
    v3.user,
    v3.sender,
    v3.recipient,
    v3.depositAddress?.address,
    v3.depositAddress?.depositTxHash,
    v3.data.failedTxHash,
    ...v3.data.inTxs.map((tx) => tx.txHash),
    ...v3.data.outTxs.map((tx) => tx.txHash),
  ]);
}

/** USD value of the deposit (the spec's derived "amount deposited": `route.actual.origin.inputCurrency`). */
export function amountUsdOf(state: RequestRecordState): string {
  return decimalOrNull(derivedAmounts(state.v3).deposited.amountUsd) ?? '0';
}

/** App fees in USD: what was collected once the fill landed, else what was quoted. */
export function appFeesAmountUsdOf(state: RequestRecordState): string | null {
  const { fees } = state.v3.data;
  return decimalOrNull((fees.actual ?? fees.quoted).app.usd);
}

/** Seconds from the deposit being seen to the fill landing; null until both happened. */
export function fillTimeSecondsOf(state: RequestRecordState): string | null {
  if (state.depositSeenAtMs === null || state.filledAtMs === null) return null;
  const ms = state.filledAtMs - state.depositSeenAtMs;
  return Number.isFinite(ms) ? (ms / 1000).toFixed(3) : null;
}
