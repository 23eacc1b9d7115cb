// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @dev One destination call of a quote (`txs`): a target, the native value it spends, its calldata.
struct Call {
    address to;
    uint256 value;
    bytes data;
}

/// @title FerryCallExecutor
/// @notice Fills a quote that carries destination calls without letting those calls near the solver's funds. Only the
/// solver may call `fill`: it hands over exactly the quoted output (native value, or an ERC-20 amount pulled from
/// the solver into the sandbox), and the calls run in the sandbox, which holds nothing else and no allowance from
/// anyone. This contract never calls an arbitrary target, so the solver's allowance to it can only ever move the
/// amount the solver itself asks for.
contract FerryCallExecutor {
    /// @notice The call was filled: the output went to the sandbox, the calls ran (or failed, all of them undone),
    /// and whatever was left went to `recipient`.
    event Filled(bytes32 indexed orderId, address indexed token, uint256 amount, address recipient, bool callsSucceeded);

    error NotSolver(address caller);
    error WrongValue(uint256 sent, uint256 expected);
    error TransferFailed(address token);
    error Reentered();

    address public immutable solver;
    FerryCallSandbox public immutable sandbox;
    uint256 private locked = 1;

    constructor(address solver_) {
        solver = solver_;
        sandbox = new FerryCallSandbox();
    }

    /// @notice Pays `amount` of `token` (the zero address: native, sent as the value) into the sandbox, runs
    /// `calls` there all-or-nothing, then sends everything the sandbox holds to `recipient`.
    function fill(bytes32 orderId, address token, uint256 amount, address recipient, Call[] calldata calls)
        external
        payable
    {
        if (locked != 1) revert Reentered();
        locked = 2;
        if (msg.sender != solver) revert NotSolver(msg.sender);
        if (token == address(0)) {
            if (msg.value != amount) revert WrongValue(msg.value, amount);
        } else {
            if (msg.value != 0) revert WrongValue(msg.value, 0);
            _safeTransferFrom(token, msg.sender, address(sandbox), amount);
        }
        bool ok = sandbox.run{value: msg.value}(orderId, token, recipient, calls);
        emit Filled(orderId, token, amount, recipient, ok);
        locked = 1;
    }

    /// @dev `transferFrom` that accepts tokens returning nothing (USDT-style) but not an address without code.
    function _safeTransferFrom(address token, address from, address to, uint256 amount) private {
        (bool ok, bytes memory returned) =
            token.call(abi.encodeWithSignature("transferFrom(address,address,uint256)", from, to, amount));
        bool succeeded = ok && (returned.length == 0 ? token.code.length > 0 : abi.decode(returned, (bool)));
        if (!succeeded) revert TransferFailed(token);
    }
}

/// @title FerryCallSandbox
/// @notice Where a quote's destination calls run: created by, and callable only by, its executor. It holds funds only
/// within one `run` (the output of one fill) and no allowance from anyone; every `run` ends by sending its whole
/// balance of the output token and of native currency to the recipient.
contract FerryCallSandbox {
    /// @notice The calls of `orderId` failed and were undone; `reason` is `CallReverted(index, revertData)`.
    event CallsFailed(bytes32 indexed orderId, bytes reason);

    error NotExecutor(address caller);
    error NotSelf(address caller);
    error CallReverted(uint256 index, bytes reason);
    error SweepFailed(address token);

    address public immutable executor;

    constructor() {
        executor = msg.sender;
    }

    receive() external payable {}

    /// @notice Runs `calls` all-or-nothing, then sends the sandbox's balance of `token` and of native to `recipient`.
    /// Returns whether the calls succeeded.
    function run(bytes32 orderId, address token, address recipient, Call[] calldata calls)
        external
        payable
        returns (bool ok)
    {
        if (msg.sender != executor) revert NotExecutor(msg.sender);
        if (calls.length > 0) {
            try this.runCalls(calls) {
                ok = true;
            } catch (bytes memory reason) {
                emit CallsFailed(orderId, reason);
            }
        } else {
            ok = true;
        }
        _sweep(token, recipient);
    }

    /// @notice The calls, in order; any failure reverts them all. Callable only by the sandbox itself (from `run`).
    function runCalls(Call[] calldata calls) external {
        if (msg.sender != address(this)) revert NotSelf(msg.sender);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool ok, bytes memory reason) = calls[i].to.call{value: calls[i].value}(calls[i].data);
            if (!ok) revert CallReverted(i, reason);
        }
    }

    function _sweep(address token, address recipient) private {
        if (token != address(0)) {
            (bool ok, bytes memory data) = token.call(abi.encodeWithSignature("balanceOf(address)", address(this)));
            uint256 held = ok && data.length >= 32 ? abi.decode(data, (uint256)) : 0;
            if (held > 0) {
                (bool sent, bytes memory returned) =
                    token.call(abi.encodeWithSignature("transfer(address,uint256)", recipient, held));
                if (!sent || (returned.length > 0 && !abi.decode(returned, (bool)))) revert SweepFailed(token);
            }
        }
        uint256 native = address(this).balance;
        if (native > 0) {
            (bool sent,) = recipient.call{value: native}("");
            if (!sent) revert SweepFailed(address(0));
        }
    }
}
