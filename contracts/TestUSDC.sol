// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {ERC20} from "./ERC20.sol";

/// @title TestUSDC
/// @notice A stand-in for Circle's USDC on the local chains: 6 decimals, the EIP-712 domain `("USD Coin", "2")`
/// that `configs/chains.*.json` declare, EIP-2612 `permit` and EIP-3009 transfers with authorization. The owner
/// mints freely. Not for real money.
/// @dev Signatures are ECDSA only (USDC v2.2 also accepts ERC-1271 for these; the depository path does not need it).
contract TestUSDC is ERC20 {
    bytes32 private constant EIP712_DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 public constant PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");
    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH =
        keccak256(
            "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
        );
    bytes32 public constant RECEIVE_WITH_AUTHORIZATION_TYPEHASH =
        keccak256(
            "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
        );
    /// @dev Upper bound of a canonical ECDSA `s` (EIP-2): the other half would let anyone forge a second signature.
    uint256 private constant MAX_S = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    error NotOwner(address caller);
    error InvalidSignature();
    error PermitExpired(uint256 deadline);
    error AuthorizationNotYetValid(uint256 validAfter);
    error AuthorizationExpired(uint256 validBefore);
    error AuthorizationAlreadyUsed(address authorizer, bytes32 nonce);
    error CallerNotPayee(address caller, address payee);

    address public owner;
    /// @notice EIP-2612 nonces, one counter per owner.
    mapping(address owner => uint256) public nonces;
    mapping(address authorizer => mapping(bytes32 nonce => bool)) private _authorizations;

    /// @dev The separator depends on the chain id; it is cached for the deployment chain and recomputed after a fork.
    uint256 private immutable _deploymentChainId;
    bytes32 private immutable _deploymentDomainSeparator;

    constructor() ERC20("USD Coin", "USDC", 6) {
        owner = msg.sender;
        _deploymentChainId = block.chainid;
        _deploymentDomainSeparator = _domainSeparator();
        emit OwnershipTransferred(address(0), msg.sender);
    }

    /// @notice Creates `value` tokens for `to`. Owner only.
    function mint(address to, uint256 value) external {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        _mint(to, value);
    }

    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return block.chainid == _deploymentChainId ? _deploymentDomainSeparator : _domainSeparator();
    }

    /// @notice EIP-2612: sets `spender`'s allowance over `owner_`'s tokens from `owner_`'s signature.
    function permit(
        address owner_,
        address spender,
        uint256 value,
        uint256 deadline,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        if (block.timestamp > deadline) revert PermitExpired(deadline);
        bytes32 structHash = keccak256(abi.encode(PERMIT_TYPEHASH, owner_, spender, value, nonces[owner_]++, deadline));
        _requireSigner(structHash, owner_, v, r, s);
        _approve(owner_, spender, value);
    }

    /// @notice EIP-3009: whether `authorizer` has used (or cancelled) `nonce`.
    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool) {
        return _authorizations[authorizer][nonce];
    }

    /// @notice EIP-3009: moves `value` from `from` to `to` on `from`'s signature; anyone may submit it.
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        _useAuthorization(TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, v, r, s);
        _transfer(from, to, value);
    }

    /// @notice EIP-3009: like `transferWithAuthorization`, but only the payee may submit it, so a signature seen in
    /// the mempool cannot be front-run out of the payee's contract call (the depository relies on this).
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
    ) external {
        if (to != msg.sender) revert CallerNotPayee(msg.sender, to);
        _useAuthorization(RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, v, r, s);
        _transfer(from, to, value);
    }

    function _useAuthorization(
        bytes32 typeHash,
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) private {
        if (block.timestamp <= validAfter) revert AuthorizationNotYetValid(validAfter);
        if (block.timestamp >= validBefore) revert AuthorizationExpired(validBefore);
        if (_authorizations[from][nonce]) revert AuthorizationAlreadyUsed(from, nonce);
        bytes32 structHash = keccak256(abi.encode(typeHash, from, to, value, validAfter, validBefore, nonce));
        _requireSigner(structHash, from, v, r, s);
        _authorizations[from][nonce] = true;
        emit AuthorizationUsed(from, nonce);
    }

    function _requireSigner(bytes32 structHash, address signer, uint8 v, bytes32 r, bytes32 s) private view {
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash));
        if (uint256(s) > MAX_S || (v != 27 && v != 28)) revert InvalidSignature();
        address recovered = ecrecover(digest, v, r, s);
        if (recovered == address(0) || recovered != signer) revert InvalidSignature();
    }

    function _domainSeparator() private view returns (bytes32) {
        return
            keccak256(
                abi.encode(
                    EIP712_DOMAIN_TYPEHASH,
                    keccak256(bytes(name)),
                    keccak256(bytes("2")),
                    block.chainid,
                    address(this)
                )
            );
    }
}
