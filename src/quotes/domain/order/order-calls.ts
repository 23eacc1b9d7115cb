import { isAddress, isHex } from 'viem';
import { QuoteError } from '../quote-error.js';

/** One of the quote's `txs`: a call the solver makes on the destination chain (the request type is then `Call`). */
export interface QuoteCall {
  readonly to: string;
  readonly value: string;
  readonly data: string;
}

/** A call as `buildOrder` takes it. */
export interface OrderCallInput {
  readonly to: string;
  readonly data: string;
  readonly value: bigint;
}

/**
 * The quote's `txs` as the order output's `calls`, checked against the spec's patterns: `to` an EVM address
 * (`INVALID_ADDRESS`), `data` hex and `value` an integer in the smallest unit (`INVALID_INPUT`), each naming the field.
 */
export function orderCallsFromTxs(txs: readonly QuoteCall[]): OrderCallInput[] {
  return txs.map((tx, index) => {
    if (
      typeof tx.to !== 'string' ||
      !/^0x[a-fA-F0-9]{40}$/.test(tx.to) ||
      !isAddress(tx.to, { strict: false })
    ) {
      throw new QuoteError('INVALID_ADDRESS', `txs[${index}].to is not an EVM address`, {
        field: `txs[${index}].to`,
      });
    }
    if (typeof tx.data !== 'string' || !isHex(tx.data, { strict: true }) || tx.data.length % 2 !== 0) {
      throw new QuoteError('INVALID_INPUT', `txs[${index}].data is not hex calldata`, {
        field: `txs[${index}].data`,
      });
    }
    if (typeof tx.value !== 'string' || !/^[0-9]+$/.test(tx.value)) {
      throw new QuoteError('INVALID_INPUT', `txs[${index}].value is not an integer amount`, {
        field: `txs[${index}].value`,
      });
    }
    return { to: tx.to, data: tx.data, value: BigInt(tx.value) };
  });
}

/**
 * Whether the output can fund the calls' native value, checked at quote time. Destination calls run in the call
 * executor's sandbox with exactly the output and nothing else (docs/steps.md): their `value` is paid out of a native
 * output, so it must not exceed it, and an ERC-20 output funds no native value at all. A destination chain without a
 * call executor cannot run calls. Returns the calls' total value (0 without calls).
 */
export function fundedCallValue(
  txs: readonly OrderCallInput[],
  output: { readonly native: boolean; readonly amount: bigint; readonly symbol: string },
  destination: { readonly id: number; readonly callExecutor?: string },
): bigint {
  if (txs.length === 0) return 0n;
  if (!destination.callExecutor) {
    throw new QuoteError('UNSUPPORTED_OPTION', `txs: chain ${destination.id} has no call executor here`, {
      option: 'txs',
      destinationChainId: destination.id,
    });
  }
  const value = txs.reduce((sum, tx) => sum + tx.value, 0n);
  if (value > 0n && !output.native) {
    throw new QuoteError(
      'CALL_VALUE_EXCEEDS_OUTPUT',
      `txs spend ${value} of the native currency, but the output is ${output.symbol}: it funds no native value`,
      { callValue: value.toString(), output: '0' },
    );
  }
  if (value > output.amount) {
    throw new QuoteError(
      'CALL_VALUE_EXCEEDS_OUTPUT',
      `txs spend ${value}, more than the output of ${output.amount} funds`,
      { callValue: value.toString(), output: output.amount.toString() },
    );
  }
  return value;
}
