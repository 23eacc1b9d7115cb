// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {FerryDepositReceiver} from "./FerryDepositReceiver.sol";

/// @dev The depository entry point a sweep credits (FerryDepository.depositNative).
interface IFerryDepository {
    function depositNative(address depositor, bytes32 id) external payable;
}

/// @dev What the factory asks of a token sent to a deposit address by mistake (another currency).
interface IERC20Minimal {
    function transfer(address to, uint256 amount) external returns (bool);
    function balanceOf(address owner) external view returns (uint256);
}

/// @title FerryDepositAddressFactory
/// @notice Deposit addresses: a quote names `addressOf(orderId, mode, recovery)`, where this factory will deploy a
/// FerryDepositReceiver with CREATE2. Users send native currency there with a plain transfer (no logs); Ferry's watcher
/// sees the transfer and the solver (the owner) deploys the receiver and moves the funds in one transaction: into the
/// depository with the order id (`sweep`, which the watcher credits like any deposit), or back to someone
/// (`giveBack`, for funds the order cannot use). The recovery address the salt commits to may pull whatever Ferry has
/// not swept (`recover`).
/// @dev The salt is computed here from the order id, the mode and the recovery address, so no call can attribute an
/// address's funds to another order or hand the recovery right to anyone else: other parameters name another
/// address. The receiver's init code takes no constructor arguments (it reads its factory from `msg.sender`), so its
/// hash is one constant per compiler output and the address can be computed off chain.
contract FerryDepositAddressFactory {
    /// @notice The funds at `receiver` (order `orderId`) went into the depository, credited to `depositor`.
    event Swept(bytes32 indexed orderId, address indexed receiver, address depositor, uint256 amount);
    /// @notice Funds at `receiver` that order `orderId` cannot use went back to `to`.
    event GivenBack(bytes32 indexed orderId, address indexed receiver, address to, uint256 amount);
    /// @notice The recovery address pulled what was left at `receiver`.
    event Recovered(bytes32 indexed orderId, address indexed receiver, address recovery, uint256 amount);

    /// @notice `amount` of `token` at `receiver` (another currency than the order's) went back to `to`.
    event TokenGivenBack(
        bytes32 indexed orderId, address indexed receiver, address token, address to, uint256 amount
    );
    /// @notice The recovery address pulled the receiver's whole balance of `token`.
    event TokenRecovered(
        bytes32 indexed orderId, address indexed receiver, address token, address recovery, uint256 amount
    );

    error NotOwner(address caller);
    error TokenTransferFailed(address token);
    error ZeroAddress();
    error ZeroAmount();
    error UnknownMode(uint8 mode);

    /// @notice Strict (0) and open (1), as the quote's `depositAddressType`.
    uint8 public constant STRICT = 0;
    uint8 public constant OPEN = 1;

    /// @notice The solver: the only account that may sweep or give back.
    address public immutable owner;
    /// @notice Where sweeps go (this chain's FerryDepository).
    address public immutable depository;

    constructor(address owner_, address depository_) {
        if (owner_ == address(0) || depository_ == address(0)) revert ZeroAddress();
        owner = owner_;
        depository = depository_;
    }

    modifier onlyOwner() {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        _;
    }

    /// @notice The CREATE2 salt of an order's deposit address: `keccak256(abi.encode(orderId, mode, recovery))`.
    function saltOf(bytes32 orderId, uint8 mode, address recovery) public pure returns (bytes32) {
        if (mode > OPEN) revert UnknownMode(mode);
        return keccak256(abi.encode(orderId, mode, recovery));
    }

    /// @notice Where the receiver of (orderId, mode, recovery) is, deployed or not.
    function addressOf(bytes32 orderId, uint8 mode, address recovery) public view returns (address) {
        bytes32 codeHash = keccak256(type(FerryDepositReceiver).creationCode);
        bytes32 digest =
            keccak256(abi.encodePacked(bytes1(0xff), address(this), saltOf(orderId, mode, recovery), codeHash));
        return address(uint160(uint256(digest)));
    }

    /// @notice Deploys the receiver if needed and moves `amount` of it into the depository for order `orderId`,
    /// credited to `depositor` (the sender of the transfer). Owner only.
    function sweep(bytes32 orderId, uint8 mode, address recovery, address depositor, uint256 amount)
        external
        onlyOwner
    {
        if (amount == 0) revert ZeroAmount();
        if (depositor == address(0)) revert ZeroAddress();
        FerryDepositReceiver receiver = _receiver(orderId, mode, recovery);
        receiver.forward(depository, amount, abi.encodeCall(IFerryDepository.depositNative, (depositor, orderId)));
        emit Swept(orderId, address(receiver), depositor, amount);
    }

    /// @notice Deploys the receiver if needed and sends `amount` of it to `to` (funds the order cannot use). Owner
    /// only.
    function giveBack(bytes32 orderId, uint8 mode, address recovery, address to, uint256 amount) external onlyOwner {
        if (amount == 0) revert ZeroAmount();
        if (to == address(0)) revert ZeroAddress();
        FerryDepositReceiver receiver = _receiver(orderId, mode, recovery);
        receiver.forward(to, amount, "");
        emit GivenBack(orderId, address(receiver), to, amount);
    }

    /// @notice The recovery address (the sender) pulls the whole balance of its order's receiver. The salt includes
    /// the sender, so anyone else names another, empty receiver. Funds Ferry already swept are in the depository and
    /// out of reach; funds recovered first make a later sweep revert, so nothing is credited twice.
    function recover(bytes32 orderId, uint8 mode) external {
        FerryDepositReceiver receiver = _receiver(orderId, mode, msg.sender);
        uint256 amount = address(receiver).balance;
        if (amount == 0) revert ZeroAmount();
        receiver.forward(msg.sender, amount, "");
        emit Recovered(orderId, address(receiver), msg.sender, amount);
    }

    /// @notice Deploys the receiver if needed and sends `amount` of `token` it holds to `to` (a currency the order
    /// does not take). Owner only.
    function giveBackToken(bytes32 orderId, uint8 mode, address recovery, address token, address to, uint256 amount)
        external
        onlyOwner
    {
        if (amount == 0) revert ZeroAmount();
        if (to == address(0) || token == address(0)) revert ZeroAddress();
        FerryDepositReceiver receiver = _receiver(orderId, mode, recovery);
        _forwardToken(receiver, token, to, amount);
        emit TokenGivenBack(orderId, address(receiver), token, to, amount);
    }

    /// @notice The recovery address (the sender) pulls the receiver's whole balance of `token`, as `recover` does
    /// for the native currency.
    function recoverToken(bytes32 orderId, uint8 mode, address token) external {
        if (token == address(0)) revert ZeroAddress();
        FerryDepositReceiver receiver = _receiver(orderId, mode, msg.sender);
        uint256 amount = IERC20Minimal(token).balanceOf(address(receiver));
        if (amount == 0) revert ZeroAmount();
        _forwardToken(receiver, token, msg.sender, amount);
        emit TokenRecovered(orderId, address(receiver), token, msg.sender, amount);
    }

    /// @dev The receiver calls `token.transfer(to, amount)`; its balance must drop by exactly `amount`, so a token
    /// that returns false (or nothing, or lies) cannot pass for a transfer that happened.
    function _forwardToken(FerryDepositReceiver receiver, address token, address to, uint256 amount) private {
        uint256 before = IERC20Minimal(token).balanceOf(address(receiver));
        receiver.forward(token, 0, abi.encodeCall(IERC20Minimal.transfer, (to, amount)));
        if (IERC20Minimal(token).balanceOf(address(receiver)) + amount != before) revert TokenTransferFailed(token);
    }

    function _receiver(bytes32 orderId, uint8 mode, address recovery) private returns (FerryDepositReceiver) {
        address at = addressOf(orderId, mode, recovery);
        if (at.code.length > 0) return FerryDepositReceiver(payable(at));
        return new FerryDepositReceiver{salt: saltOf(orderId, mode, recovery)}();
    }
}
