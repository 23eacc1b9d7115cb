// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @title FerryOracleVerifier
/// @notice The hub contract Ferry's attestation oracles sign for: the `verifyingContract` of their EIP-712 domain
/// `("FerryOracle", "1", hub chain id, this address)`. It holds the owner's set of oracle signers and a threshold, and
/// tells whether signatures over a message id come from enough distinct signers (docs/oracle-verifier.md).
/// @dev The message id is the EIP-712 struct hash of the attested message (`messageIdOf` in
/// src/oracle/messages/oracle-messages.ts), so one function verifies every message kind: each signature signs
/// `keccak256("\x19\x01" ‖ domainSeparator() ‖ messageId)`. Signatures that do not count are skipped, never reverted
/// on, so one bad signature in a batch cannot block an attestation that has enough good ones.
contract FerryOracleVerifier {
    bytes32 private constant EIP712_DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant NAME_HASH = keccak256("FerryOracle");
    bytes32 private constant VERSION_HASH = keccak256("1");
    /// @dev Upper bound of a canonical ECDSA `s` (EIP-2): the other half would let anyone forge a second signature.
    uint256 private constant MAX_S = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    event SignerSet(address indexed signer, bool enabled);
    event ThresholdSet(uint256 threshold);
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    error NotOwner(address caller);
    error ZeroAddress();
    /// @notice The threshold must be at least 1 and at most the number of signers (also when removing one).
    error InvalidThreshold(uint256 threshold, uint256 signerCount);

    address public owner;
    mapping(address signer => bool) public isSigner;
    /// @notice How many addresses `isSigner` holds.
    uint256 public signerCount;
    /// @notice How many distinct signers `isAttested` requires.
    uint256 public threshold;

    constructor(address owner_, address[] memory signers_, uint256 threshold_) {
        if (owner_ == address(0)) revert ZeroAddress();
        owner = owner_;
        emit OwnershipTransferred(address(0), owner_);
        for (uint256 i = 0; i < signers_.length; i++) {
            _setSigner(signers_[i], true);
        }
        _setThreshold(threshold_);
    }

    modifier onlyOwner() {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        _;
    }

    /// @notice The EIP-712 domain separator, for this chain and this address (recomputed, so a fork gets its own).
    function domainSeparator() public view returns (bytes32) {
        return keccak256(abi.encode(EIP712_DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, address(this)));
    }

    /// @notice What an oracle signs for `messageId`: `keccak256("\x19\x01" ‖ domainSeparator() ‖ messageId)`.
    function digestOf(bytes32 messageId) public view returns (bytes32) {
        return keccak256(abi.encodePacked(hex"1901", domainSeparator(), messageId));
    }

    /// @notice How many distinct configured signers signed `messageId`. A signature counts when it is 65 bytes
    /// `r ‖ s ‖ v` with `v` 27 or 28 and a low `s`, and recovers to a configured signer not counted before; any other
    /// (malformed, malleated, another message's or domain's, an unknown signer's, a repeat) is skipped.
    function verify(bytes32 messageId, bytes[] calldata signatures) public view returns (uint256 validSigners) {
        bytes32 digest = digestOf(messageId);
        address[] memory counted = new address[](signatures.length);
        for (uint256 i = 0; i < signatures.length; i++) {
            address signer = _recover(digest, signatures[i]);
            if (signer == address(0) || !isSigner[signer] || _contains(counted, validSigners, signer)) continue;
            counted[validSigners] = signer;
            validSigners++;
        }
    }

    /// @notice Whether at least `threshold` distinct configured signers signed `messageId`.
    function isAttested(bytes32 messageId, bytes[] calldata signatures) external view returns (bool) {
        return verify(messageId, signatures) >= threshold;
    }

    /// @notice Adds (`enabled`) or removes a signer. Owner only; removing one may not leave fewer than `threshold`.
    function setSigner(address signer, bool enabled) external onlyOwner {
        _setSigner(signer, enabled);
        if (signerCount < threshold) revert InvalidThreshold(threshold, signerCount);
    }

    /// @notice Sets how many distinct signers an attestation needs: from 1 to `signerCount`. Owner only.
    function setThreshold(uint256 threshold_) external onlyOwner {
        _setThreshold(threshold_);
    }

    function transferOwnership(address newOwner) external onlyOwner {
        if (newOwner == address(0)) revert ZeroAddress();
        emit OwnershipTransferred(owner, newOwner);
        owner = newOwner;
    }

    function _setSigner(address signer, bool enabled) private {
        if (signer == address(0)) revert ZeroAddress();
        if (isSigner[signer] == enabled) return;
        isSigner[signer] = enabled;
        if (enabled) signerCount++;
        else signerCount--;
        emit SignerSet(signer, enabled);
    }

    function _setThreshold(uint256 threshold_) private {
        if (threshold_ == 0 || threshold_ > signerCount) revert InvalidThreshold(threshold_, signerCount);
        threshold = threshold_;
        emit ThresholdSet(threshold_);
    }

    /// @dev The signer of a canonical 65-byte signature, or address(0) for anything else.
    function _recover(bytes32 digest, bytes calldata signature) private pure returns (address) {
        if (signature.length != 65) return address(0);
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (uint256(s) > MAX_S || (v != 27 && v != 28)) return address(0);
        return ecrecover(digest, v, r, s);
    }

    function _contains(address[] memory list, uint256 length, address item) private pure returns (bool) {
        for (uint256 i = 0; i < length; i++) {
            if (list[i] == item) return true;
        }
        return false;
    }
}
