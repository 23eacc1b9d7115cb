import { parseAbi } from 'viem';

/**
 * EIP-3009 `receiveWithAuthorization`: the token moves `value` from `from` to `to` on `from`'s EIP-712 signature,
 * and only `to` may submit it (so a signed authorization cannot be front-run into another transfer). The depository
 * calls it from `depositErc20WithAuthorization` (`usePermit` quotes).
 */
export const eip3009Abi = parseAbi([
  'function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
]);

/** The EIP-712 struct EIP-3009 tokens verify for `receiveWithAuthorization`. */
export const receiveWithAuthorizationTypes = {
  ReceiveWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;
