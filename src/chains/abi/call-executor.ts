import { type Address, getContractAddress, parseAbi } from 'viem';

/** `contracts/FerryCallExecutor.sol`: the solver's entry point for fills that carry destination calls. */
export const callExecutorAbi = parseAbi([
  'struct Call { address to; uint256 value; bytes data; }',
  'function fill(bytes32 orderId, address token, uint256 amount, address recipient, Call[] calls) payable',
  'function solver() view returns (address)',
  'function sandbox() view returns (address)',
  'event Filled(bytes32 indexed orderId, address indexed token, uint256 amount, address recipient, bool callsSucceeded)',
]);

/** `FerryCallSandbox`: where the calls run; `CallsFailed` carries `CallReverted(index, reason)`. */
export const callSandboxAbi = parseAbi([
  'struct Call { address to; uint256 value; bytes data; }',
  'function runCalls(Call[] calls)',
  'event CallsFailed(bytes32 indexed orderId, bytes reason)',
  'error CallReverted(uint256 index, bytes reason)',
]);

/** The sandbox an executor created (its first contract, nonce 1). */
export function sandboxOf(executor: Address): Address {
  return getContractAddress({ from: executor, nonce: 1n });
}
