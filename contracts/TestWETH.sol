// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {ERC20} from "./ERC20.sol";

/// @title TestWETH
/// @notice Wrapped Ether for the local chains, WETH9-style: `deposit` (or a plain transfer) wraps, `withdraw`
/// unwraps, 18 decimals.
contract TestWETH is ERC20 {
    event Deposit(address indexed account, uint256 value);
    event Withdrawal(address indexed account, uint256 value);

    error NativeTransferFailed(address to, uint256 value);

    constructor() ERC20("Wrapped Ether", "WETH", 18) {}

    receive() external payable {
        deposit();
    }

    /// @notice Wraps `msg.value` for the sender.
    function deposit() public payable {
        _mint(msg.sender, msg.value);
        emit Deposit(msg.sender, msg.value);
    }

    /// @notice Unwraps `value` of the sender's tokens back to the native currency.
    function withdraw(uint256 value) external {
        _burn(msg.sender, value);
        emit Withdrawal(msg.sender, value);
        (bool ok, ) = msg.sender.call{value: value}("");
        if (!ok) revert NativeTransferFailed(msg.sender, value);
    }
}
