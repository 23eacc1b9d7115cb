import { parseAbi } from 'viem';

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
  'event CallsFailed(bytes32 indexed orderId, bytes reason)',
  'error CallReverted(uint256 index, bytes reason)',
]);
