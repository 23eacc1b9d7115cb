// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @title SmartWallet
/// @notice A minimal contract account for tests of ERC-1271 signatures (smart-wallet users sign quotes, app fee
/// claims and permits through it): one owner EOA signs for the wallet and sends its calls.
contract SmartWallet {
    /// @dev `bytes4(keccak256("isValidSignature(bytes32,bytes)"))`, the ERC-1271 "valid" answer.
    bytes4 internal constant ERC1271_MAGIC_VALUE = 0x1626ba7e;
    bytes4 internal constant ERC1271_INVALID = 0xffffffff;
    uint256 private constant MAX_S = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    event Executed(address indexed to, uint256 value, bytes data);

    error NotOwner(address caller);
    error CallFailed(bytes reason);

    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    receive() external payable {}

    /// @notice ERC-1271: valid when `signature` is the owner's 65-byte ECDSA signature (r, s, v) of `hash` itself.
    /// @dev `hash` is signed as given (no EIP-191 prefix is added here): callers pass the digest the owner signed,
    /// e.g. an EIP-712 hash or `hashMessage(...)`.
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) return ERC1271_INVALID;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (v < 27) v += 27;
        if (uint256(s) > MAX_S || (v != 27 && v != 28)) return ERC1271_INVALID;
        address signer = ecrecover(hash, v, r, s);
        return signer != address(0) && signer == owner ? ERC1271_MAGIC_VALUE : ERC1271_INVALID;
    }

    struct Call {
        address to;
        uint256 value;
        bytes data;
    }

    /// @notice Sends several calls in one transaction (a batched wallet call), in order. Owner only; any failure
    /// reverts them all.
    function executeBatch(Call[] calldata calls) external payable {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool ok, bytes memory result) = calls[i].to.call{value: calls[i].value}(calls[i].data);
            if (!ok) revert CallFailed(result);
            emit Executed(calls[i].to, calls[i].value, calls[i].data);
        }
    }

    /// @notice Sends a call (and value) from the wallet. Owner only; a failed call reverts with its reason.
    function execute(address to, uint256 value, bytes calldata data) external payable returns (bytes memory) {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        (bool ok, bytes memory result) = to.call{value: value}(data);
        if (!ok) revert CallFailed(result);
        emit Executed(to, value, data);
        return result;
    }
}
