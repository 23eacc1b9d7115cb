// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

// In a file of its own: its bytecode (and so every deposit address) must not change when the factory does. The
// compiler's metadata hash covers the source files a contract is compiled from.

/// @title FerryDepositReceiver
/// @notice The contract at a deposit address: it accepts plain transfers and moves its funds only when its factory
/// says so.
contract FerryDepositReceiver {
    error NotFactory(address caller);
    error ForwardFailed(address to);

    address public immutable factory;

    constructor() {
        factory = msg.sender;
    }

    receive() external payable {}

    /// @notice Sends `amount` to `to` with `data` (a depository call, or nothing). Factory only; a failed call
    /// reverts with the callee's reason.
    function forward(address to, uint256 amount, bytes calldata data) external {
        if (msg.sender != factory) revert NotFactory(msg.sender);
        (bool ok, bytes memory reason) = to.call{value: amount}(data);
        if (!ok) {
            if (reason.length == 0) revert ForwardFailed(to);
            assembly {
                revert(add(reason, 32), mload(reason))
            }
        }
    }
}
