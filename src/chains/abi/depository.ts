import { parseAbi } from 'viem';

/**
 * Ferry's depository: where every EVM deposit goes, tagged with the quote's `orderId` (= its request id).
 *
 * This ABI is the contract. The Solidity depository (`contracts/`) is written to match it exactly, and
 * `docs/steps.md` ("Depository ABI") states what each entry must do. Changing a line here changes the calldata of
 * every deposit step and what the chain watcher decodes.
 */
export const depositoryAbi = parseAbi([
  /** Deposits `msg.value` of the native currency for `depositor`, tagged with order `id`. */
  'function depositNative(address depositor, bytes32 id) payable',
  /** Pulls `amount` of `token` from `msg.sender` (needs an allowance) for `depositor`, tagged with order `id`. */
  'function depositErc20(address depositor, address token, uint256 amount, bytes32 id)',
  /**
   * Relayer entry point for EIP-3009 tokens: calls `token.receiveWithAuthorization(depositor, address(this), amount,
   * validAfter, validBefore, nonce, v, r, s)` and records the deposit for `depositor` with order `id`. It must require
   * `nonce == keccak256(abi.encodePacked("FerryPermit", id))`, which binds the user's signature to this order.
   */
  'function depositErc20WithAuthorization(address depositor, address token, uint256 amount, bytes32 id, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'event NativeDeposit(bytes32 indexed id, address indexed depositor, uint256 amount)',
  'event Erc20Deposit(bytes32 indexed id, address indexed depositor, address indexed token, uint256 amount)',
]);

/**
 * The depository's other entries: its owner (the solver) withdraws what deposits collected to rebalance between
 * chains, and the errors a call can revert with (so viem names them). Kept apart from `depositoryAbi`, which is
 * exactly what deposit steps encode and the chain watcher decodes.
 */
export const depositoryAdminAbi = parseAbi([
  'function owner() view returns (address)',
  /** Moves `amount` of `token` (the zero address: the native currency) to `to`. Owner only. */
  'function withdraw(address token, address to, uint256 amount)',
  'function transferOwnership(address newOwner)',
  'event Withdrawal(address indexed token, address indexed to, uint256 amount)',
  'event OwnershipTransferred(address indexed previousOwner, address indexed newOwner)',
  'error ZeroAmount()',
  'error ZeroAddress()',
  'error NotOwner(address caller)',
  'error WrongNonce(bytes32 expected, bytes32 actual)',
  'error TransferFailed(address token)',
]);
