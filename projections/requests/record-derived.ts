import type { Amount } from '../../src/requests/domain/records.js';
import type { RequestRecordState, RequestV3 } from './request-record-state.js';

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
