// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @dev The EIP-3009 entry point the depository calls (USDC and other Circle-style tokens implement it).
interface IERC3009 {
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external;
}

/// @title FerryDepository
/// @notice Where every EVM deposit to Ferry goes. Each deposit is tagged with the quote's order id (`id`, which is
/// also the request id), and the chain watcher turns the events below into deposits of that request.
/// @dev The deposit entries match `src/chains/abi/depository.ts` exactly (docs/steps.md, "Depository ABI").
/// The contract only takes custody: pricing, refunds and fills happen off chain. The owner (the solver) moves the
/// collected funds out with `withdraw` to rebalance between chains.
contract FerryDepository {
    /// @notice `amount` of the native currency was deposited for `depositor`, tagged with order `id`.
    event NativeDeposit(bytes32 indexed id, address indexed depositor, uint256 amount);
    /// @notice `amount` of `token` was deposited for `depositor`, tagged with order `id`.
    event Erc20Deposit(bytes32 indexed id, address indexed depositor, address indexed token, uint256 amount);
    /// @notice The owner moved `amount` of `token` (address(0): the native currency) to `to`.
    event Withdrawal(address indexed token, address indexed to, uint256 amount);
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    error ZeroAmount();
    error ZeroAddress();
    error NotOwner(address caller);
    /// @dev The EIP-3009 nonce must be derived from the order id, so a signed authorization deposits for one order.
    error WrongNonce(bytes32 expected, bytes32 actual);
    error TransferFailed(address token);

    /// @notice The account allowed to withdraw (the solver's, on the devnets).
    address public owner;

    constructor(address initialOwner) {
        if (initialOwner == address(0)) revert ZeroAddress();
        owner = initialOwner;
        emit OwnershipTransferred(address(0), initialOwner);
    }

    modifier onlyOwner() {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        _;
    }

    /// @notice Deposits `msg.value` of the native currency for `depositor` (address(0): the sender).
    function depositNative(address depositor, bytes32 id) external payable {
        if (msg.value == 0) revert ZeroAmount();
        emit NativeDeposit(id, _creditTo(depositor), msg.value);
    }

    /// @notice Pulls `amount` of `token` from the sender (it needs an allowance) for `depositor` (address(0): the
    /// sender).
    function depositErc20(address depositor, address token, uint256 amount, bytes32 id) external {
        if (amount == 0) revert ZeroAmount();
        _safeTransferFrom(token, msg.sender, address(this), amount);
        emit Erc20Deposit(id, _creditTo(depositor), token, amount);
    }

    /// @notice Relayer entry point for EIP-3009 tokens: moves `amount` from `depositor` on their signed
    /// `ReceiveWithAuthorization` and records the deposit for them. Anyone may submit it; the signature binds the
    /// amount, the depository as recipient, and (through the nonce) the order.
    /// @dev `receiveWithAuthorization` only lets the recipient (this contract) submit the authorization, so it cannot
    /// be front-run into a plain transfer. `depositor` is the signer, so it cannot default to the sender here.
    function depositErc20WithAuthorization(
        address depositor,
        address token,
        uint256 amount,
        bytes32 id,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        if (amount == 0) revert ZeroAmount();
        if (depositor == address(0)) revert ZeroAddress();
        bytes32 expected = keccak256(abi.encodePacked("FerryPermit", id));
        if (nonce != expected) revert WrongNonce(expected, nonce);
        IERC3009(token).receiveWithAuthorization(
            depositor,
            address(this),
            amount,
            validAfter,
            validBefore,
            nonce,
            v,
            r,
            s
        );
        emit Erc20Deposit(id, depositor, token, amount);
    }

    /// @notice Moves `amount` of `token` (address(0): the native currency) to `to`. Owner only.
    function withdraw(address token, address to, uint256 amount) external onlyOwner {
        if (to == address(0)) revert ZeroAddress();
        if (amount == 0) revert ZeroAmount();
        emit Withdrawal(token, to, amount);
        if (token == address(0)) {
            (bool ok, bytes memory reason) = to.call{value: amount}("");
            if (!ok) _bubble(reason, token);
        } else {
            _safeTransfer(token, to, amount);
        }
    }

    /// @notice Hands the withdrawal right to `newOwner` (key rotation). Owner only.
    function transferOwnership(address newOwner) external onlyOwner {
        if (newOwner == address(0)) revert ZeroAddress();
        emit OwnershipTransferred(owner, newOwner);
        owner = newOwner;
    }

    function _creditTo(address depositor) private view returns (address) {
        return depositor == address(0) ? msg.sender : depositor;
    }

    /// @dev `transferFrom` that accepts tokens returning nothing (USDT-style) but not calls to an address without
    /// code, which would otherwise "succeed" and record a deposit that never moved funds.
    function _safeTransferFrom(address token, address from, address to, uint256 amount) private {
        _callToken(token, abi.encodeWithSignature("transferFrom(address,address,uint256)", from, to, amount));
    }

    function _safeTransfer(address token, address to, uint256 amount) private {
        _callToken(token, abi.encodeWithSignature("transfer(address,uint256)", to, amount));
    }

    function _callToken(address token, bytes memory data) private {
        (bool ok, bytes memory returned) = token.call(data);
        if (!ok) _bubble(returned, token);
        bool succeeded = returned.length == 0 ? token.code.length > 0 : abi.decode(returned, (bool));
        if (!succeeded) revert TransferFailed(token);
    }

    /// @dev Re-raises a failed call's revert data (the token's own reason), or TransferFailed when it gave none.
    function _bubble(bytes memory reason, address token) private pure {
        if (reason.length == 0) revert TransferFailed(token);
        assembly {
            revert(add(reason, 32), mload(reason))
        }
    }
}
