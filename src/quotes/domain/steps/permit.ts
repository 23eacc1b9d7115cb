import {
  type Address,
  encodeFunctionData,
  encodePacked,
  type Hex,
  isAddressEqual,
  keccak256,
  parseSignature,
  recoverTypedDataAddress,
} from 'viem';
import { depositoryAbi } from '../../../chains/abi/depository.js';
import { receiveWithAuthorizationTypes } from '../../../chains/abi/eip3009.js';
import { QuoteError } from '../quote-error.js';
import { type SignatureData, singleItemStep, type Step } from './step.js';

/** Tag of the EIP-3009 nonce derived from an order id; the depository checks the same derivation. */
export const PERMIT_NONCE_TAG = 'FerryPermit';

/** Where the client posts a permit signature (`?signature=`); the execute API then submits the deposit. */
export const PERMIT_ENDPOINT = '/execute/permits';

/**
 * The EIP-3009 nonce of a request: `keccak256(abi.encodePacked("FerryPermit", orderId))`. Unique per order, and
 * checkable onchain, so a signed authorization can only ever deposit for its own order.
 */
export function permitNonce(requestId: Hex): Hex {
  return keccak256(encodePacked(['string', 'bytes32'], [PERMIT_NONCE_TAG, requestId]));
}

/** Everything a `usePermit` deposit is bound to. Rebuilt from the stored quote on the execute path. */
export interface PermitParameters {
  readonly requestId: Hex;
  readonly chainId: number;
  readonly token: Address;
  /** The token's EIP-712 domain name and version (`ChainCurrency.eip712`). */
  readonly tokenDomain: { readonly name: string; readonly version: string };
  readonly user: Address;
  readonly depository: Address;
  readonly amount: bigint;
  /** Unix seconds; the authorization is valid strictly between the two. */
  readonly validAfter: number;
  readonly validBefore: number;
}

/** The `ReceiveWithAuthorization` typed data (bigint values), for signing and verification with viem. */
export function buildPermitTypedData(parameters: PermitParameters) {
  return {
    domain: {
      name: parameters.tokenDomain.name,
      version: parameters.tokenDomain.version,
      chainId: parameters.chainId,
      verifyingContract: parameters.token,
    },
    types: receiveWithAuthorizationTypes,
    primaryType: 'ReceiveWithAuthorization',
    message: {
      from: parameters.user,
      to: parameters.depository,
      value: parameters.amount,
      validAfter: BigInt(parameters.validAfter),
      validBefore: BigInt(parameters.validBefore),
      nonce: permitNonce(parameters.requestId),
    },
  } as const;
}

/**
 * `authorize` (signature): the user signs `ReceiveWithAuthorization` for the depository; the client posts
 * `{kind: 'permit', requestId}` to `POST /execute/permits?signature=…` and a relayer submits
 * `depositErc20WithAuthorization`. The user pays no origin gas.
 */
export function buildPermitStep(parameters: PermitParameters): Step<SignatureData> {
  const typedData = buildPermitTypedData(parameters);
  return singleItemStep({
    id: 'authorize',
    action: 'Sign authorization',
    description: 'Authorize the transfer of your funds to the depository',
    kind: 'signature',
    requestId: parameters.requestId,
    data: {
      sign: {
        signatureKind: 'eip712',
        domain: typedData.domain,
        types: typedData.types,
        primaryType: typedData.primaryType,
        value: {
          from: typedData.message.from,
          to: typedData.message.to,
          value: typedData.message.value.toString(),
          validAfter: typedData.message.validAfter.toString(),
          validBefore: typedData.message.validBefore.toString(),
          nonce: typedData.message.nonce,
        },
      },
      post: {
        endpoint: PERMIT_ENDPOINT,
        method: 'POST',
        body: { kind: 'permit', requestId: parameters.requestId },
      },
    },
  });
}

/**
 * Checks that `signature` is the user's signature of the request's `ReceiveWithAuthorization`; else
 * `INVALID_SIGNATURE`. Pure (no RPC): EIP-3009 tokens verify an ECDSA signature of `from`, so ERC-1271 does not apply.
 */
export async function verifyPermitSignature(parameters: PermitParameters, signature: Hex): Promise<void> {
  let signer: Address;
  try {
    signer = await recoverTypedDataAddress({ ...buildPermitTypedData(parameters), signature });
  } catch (error) {
    throw new QuoteError('INVALID_SIGNATURE', 'The permit signature is malformed', {
      reason: (error as Error).message.split('\n')[0],
    });
  }
  if (!isAddressEqual(signer, parameters.user)) {
    throw new QuoteError('INVALID_SIGNATURE', 'The permit is not signed by the user of the quote', {
      expected: parameters.user,
      recovered: signer,
    });
  }
}

/** The relayer's `depositErc20WithAuthorization` calldata for a verified permit signature (v, r, s split). */
export function permitDepositCalldata(parameters: PermitParameters, signature: Hex): Hex {
  const { r, s, v, yParity } = parseSignature(signature);
  return encodeFunctionData({
    abi: depositoryAbi,
    functionName: 'depositErc20WithAuthorization',
    args: [
      parameters.user,
      parameters.token,
      parameters.amount,
      parameters.requestId,
      BigInt(parameters.validAfter),
      BigInt(parameters.validBefore),
      permitNonce(parameters.requestId),
      Number(v ?? 27n + BigInt(yParity)),
      r,
      s,
    ],
  });
}
