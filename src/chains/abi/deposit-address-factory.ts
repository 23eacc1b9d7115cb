import { parseAbi } from 'viem';

/**
 * `contracts/FerryDepositAddressFactory.sol`: deposit addresses are its CREATE2 receivers. The solver (owner) sweeps
 * a receiver into the depository or gives funds back; the recovery address pulls what was not swept.
 */
export const depositAddressFactoryAbi = parseAbi([
  'function owner() view returns (address)',
  'function depository() view returns (address)',
  'function saltOf(bytes32 orderId, uint8 mode, address recovery) pure returns (bytes32)',
  'function addressOf(bytes32 orderId, uint8 mode, address recovery) view returns (address)',
  'function sweep(bytes32 orderId, uint8 mode, address recovery, address depositor, uint256 amount)',
  'function giveBack(bytes32 orderId, uint8 mode, address recovery, address to, uint256 amount)',
  'function recover(bytes32 orderId, uint8 mode)',
  'function giveBackToken(bytes32 orderId, uint8 mode, address recovery, address token, address to, uint256 amount)',
  'function recoverToken(bytes32 orderId, uint8 mode, address token)',
  'event Swept(bytes32 indexed orderId, address indexed receiver, address depositor, uint256 amount)',
  'event GivenBack(bytes32 indexed orderId, address indexed receiver, address to, uint256 amount)',
  'event Recovered(bytes32 indexed orderId, address indexed receiver, address recovery, uint256 amount)',
  'event TokenGivenBack(bytes32 indexed orderId, address indexed receiver, address token, address to, uint256 amount)',
  'event TokenRecovered(bytes32 indexed orderId, address indexed receiver, address token, address recovery, uint256 amount)',
  'error NotOwner(address caller)',
  'error TokenTransferFailed(address token)',
  'error ZeroAddress()',
  'error ZeroAmount()',
  'error UnknownMode(uint8 mode)',
]);

/** `FerryDepositReceiver`: the contract at a deposit address. */
export const depositReceiverAbi = parseAbi([
  'function factory() view returns (address)',
  'function forward(address to, uint256 amount, bytes data)',
  'error NotFactory(address caller)',
]);
