import {
  type Address,
  decodeErrorResult,
  encodeFunctionData,
  type Hex,
  parseEventLogs,
  type TransactionReceipt,
} from 'viem';
import { callExecutorAbi, callSandboxAbi, sandboxOf } from '../chains/abi/call-executor.js';
import type { ChainInfo } from '../chains/chain.js';
import type { CallData } from '../requests/domain/records.js';
import type { RequestQuotedData } from '../requests/domain/request-events.js';
import { destinationCalls, transferIntent } from './payments.js';
import type { TxIntent } from './transaction-journal.js';

const NATIVE = '0x0000000000000000000000000000000000000000';

/** How a quote is filled on its destination chain. */
export type FillPlan =
  /** One transaction; `allowance`: the executor must be allowed to pull this much of the token from the solver. */
  | { readonly kind: 'send'; readonly intent: TxIntent; readonly allowance: TokenAllowance | null }
  /** The fill cannot be made here (calls on a chain without a call executor): fail it before paying anything. */
  | { readonly kind: 'refuse'; readonly reason: string; readonly details: string };

export interface TokenAllowance {
  readonly token: Address;
  readonly spender: Address;
  readonly amount: bigint;
}

/**
 * The fill of a quote. Without destination calls: the output paid straight to the recipient (native, or an ERC-20
 * `transfer`, the order id appended). With calls: `FerryCallExecutor.fill`, which hands exactly the output to its
 * sandbox and runs the calls there, so no call ever runs from the solver's account or reaches its funds.
 */
export function planFill(quote: RequestQuotedData, destination: ChainInfo): FillPlan {
  const token = quote.currencyOut.currency.address;
  const amount = BigInt(quote.currencyOut.amount);
  const calls = destinationCalls(quote);
  if (calls.length === 0) {
    return {
      kind: 'send',
      intent: transferIntent(token, quote.recipient, amount, quote.requestId as Hex),
      allowance: null,
    };
  }
  if (!destination.callExecutor) {
    return {
      kind: 'refuse',
      reason: 'DESTINATION_CALLS_UNSUPPORTED',
      details: `chain ${destination.id} has no call executor configured`,
    };
  }
  const executor = destination.callExecutor as Address;
  const native = token.toLowerCase() === NATIVE;
  const data = encodeFunctionData({
    abi: callExecutorAbi,
    functionName: 'fill',
    args: [
      quote.requestId as Hex,
      (native ? NATIVE : token) as Address,
      amount,
      quote.recipient as Address,
      calls.map((call) => ({ to: call.to as Address, value: BigInt(call.value), data: call.data as Hex })),
    ],
  });
  return {
    kind: 'send',
    intent: { to: executor, value: native ? amount : 0n, data },
    allowance: native ? null : { token: token as Address, spender: executor, amount },
  };
}

export { sandboxOf };

/**
 * The destination call that failed in a mined fill (the calls were undone and the output went to the recipient), as
 * the request records it (`failedCallData`), or null when the calls succeeded or there were none.
 */
export function failedCallOf(
  quote: RequestQuotedData,
  destination: ChainInfo,
  receipt: TransactionReceipt,
): CallData | null {
  if (!destination.callExecutor) return null;
  const sandbox = sandboxOf(destination.callExecutor as Address).toLowerCase();
  const failures = parseEventLogs({
    abi: callSandboxAbi,
    logs: receipt.logs,
    eventName: 'CallsFailed',
  }).filter(
    (log) =>
      log.address.toLowerCase() === sandbox &&
      log.args.orderId.toLowerCase() === quote.requestId.toLowerCase(),
  );
  if (failures.length === 0) return null;
  const calls = destinationCalls(quote);
  let index = 0;
  try {
    const decoded = decodeErrorResult({ abi: callSandboxAbi, data: failures[0].args.reason });
    index = Number(decoded.args[0]);
  } catch {
    // Not CallReverted (out of gas in the calls): the first call stands for them.
  }
  const call = calls[Math.min(index, calls.length - 1)];
  return { from: sandbox, to: call.to, data: call.data, value: call.value };
}
