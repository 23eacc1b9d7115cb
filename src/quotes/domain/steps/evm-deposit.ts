import { type Address, encodeFunctionData, type Hex } from 'viem';
import { depositoryAbi } from '../../../chains/abi/depository.js';
import { erc20Abi } from '../../../chains/abi/erc20.js';
import { type EvmGasFields, type EvmTransactionData, gasFields, singleItemStep, type Step } from './step.js';

/** What an EVM deposit into the depository needs. Addresses are checked by the caller (`buildSteps`). */
export interface EvmDepositParameters {
  readonly requestId: Hex;
  readonly chainId: number;
  readonly depository: Address;
  /** The user: sends the transaction and is recorded as the depositor. */
  readonly user: Address;
  readonly amount: bigint;
  readonly gas?: EvmGasFields;
}

export interface Erc20DepositParameters extends EvmDepositParameters {
  readonly token: Address;
  readonly symbol: string;
  /** The user's current allowance for the depository, or null when unknown (then the approval is included). */
  readonly allowance: bigint | null;
}

/** `deposit`: `depositNative(user, orderId)` with the amount as value. */
export function buildNativeDepositStep(parameters: EvmDepositParameters): Step<EvmTransactionData> {
  return singleItemStep({
    id: 'deposit',
    action: 'Confirm transaction in your wallet',
    description: 'Deposit funds to the depository to execute the request',
    kind: 'transaction',
    requestId: parameters.requestId,
    data: {
      from: parameters.user,
      to: parameters.depository,
      data: encodeFunctionData({
        abi: depositoryAbi,
        functionName: 'depositNative',
        args: [parameters.user, parameters.requestId],
      }),
      value: parameters.amount.toString(),
      chainId: parameters.chainId,
      ...gasFields(parameters.gas),
    },
  });
}

/** Whether an ERC-20 deposit needs an approval first: when the allowance is unknown or short of the amount. */
export function needsApproval(allowance: bigint | null, amount: bigint): boolean {
  return allowance === null || allowance < amount;
}

/**
 * `approve`: `approve(depository, amount)` on the token. The spec lists only `from`, `to` and `chainId` for an
 * approval item, but a wallet cannot send an approval without its calldata, so `data` and `value: '0'` are included
 * as in every transaction item (docs/steps.md, "Approval items").
 */
export function buildApproveStep(parameters: Erc20DepositParameters): Step<EvmTransactionData> {
  return singleItemStep({
    id: 'approve',
    check: false,
    action: `Approve ${parameters.symbol}`,
    description: `Allow the depository to take ${parameters.symbol} for this request`,
    kind: 'transaction',
    requestId: parameters.requestId,
    data: {
      from: parameters.user,
      to: parameters.token,
      data: encodeFunctionData({
        abi: erc20Abi,
        functionName: 'approve',
        args: [parameters.depository, parameters.amount],
      }),
      value: '0',
      chainId: parameters.chainId,
      // The gas limit given is the deposit's; the fee caps apply to both transactions.
      ...gasFields({ ...parameters.gas, gas: undefined }),
    },
  });
}

/** `deposit`: `depositErc20(user, token, amount, orderId)`; pulls the approved amount. */
export function buildErc20DepositStep(parameters: Erc20DepositParameters): Step<EvmTransactionData> {
  return singleItemStep({
    id: 'deposit',
    action: 'Confirm transaction in your wallet',
    description: `Deposit ${parameters.symbol} to the depository to execute the request`,
    kind: 'transaction',
    requestId: parameters.requestId,
    data: {
      from: parameters.user,
      to: parameters.depository,
      data: encodeFunctionData({
        abi: depositoryAbi,
        functionName: 'depositErc20',
        args: [parameters.user, parameters.token, parameters.amount, parameters.requestId],
      }),
      value: '0',
      chainId: parameters.chainId,
      ...gasFields(parameters.gas),
    },
  });
}

/** `approve` (when needed) then `deposit`. */
export function buildErc20DepositSteps(parameters: Erc20DepositParameters): Step<EvmTransactionData>[] {
  const deposit = buildErc20DepositStep(parameters);
  return needsApproval(parameters.allowance, parameters.amount)
    ? [buildApproveStep(parameters), deposit]
    : [deposit];
}
