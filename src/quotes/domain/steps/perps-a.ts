import {
  type Address,
  formatUnits,
  type Hex,
  hexToString,
  isAddressEqual,
  recoverTypedDataAddress,
} from 'viem';
import { QuoteError } from '../quote-error.js';
import {
  type PerpsASendAssetData,
  type SignatureData,
  singleItemStep,
  type Step,
  type TypedDataField,
} from './step.js';

/** Perps exchange A's chain id in quotes. */
export const PERPS_A_CHAIN_ID = 1337;

/**
 * The exchange's activation fee on a new deposit, in USD, passed through to the user. A pricing concern (the fee
 * calculator adds it to deposits whose destination is exchange A); the steps do not change because of it.
 */
export const PERPS_A_ACTIVATION_FEE_USD = '1';

/** Perps USDC on exchange A: the all-zero 16-byte id. */
export const PERPS_A_PERPS_USDC = `0x${'0'.repeat(32)}`;

/** The spec's `<protocol>NonceMapping` domain, version 2. */
export const NONCE_MAPPING_DOMAIN_NAME = 'FerryNonceMapping';
export const NONCE_MAPPING_DOMAIN_VERSION = '2';
/** Default `domain.chainId` and `signatureChainId`; clients replace both with their wallet's active chain id. */
export const DEFAULT_SIGNATURE_CHAIN_ID = 1;
export const AUTHORIZE_ENDPOINT = '/authorize';

export const nonceMappingTypes = {
  NonceMapping: [
    { name: 'chainId', type: 'string' },
    { name: 'wallet', type: 'address' },
    { name: 'depositor', type: 'address' },
    { name: 'id', type: 'bytes32' },
    { name: 'nonce', type: 'uint256' },
  ],
} as const;

/** The spec's `<exchange>Transaction:SendAsset`: every field a string but the uint64 nonce. */
export const SEND_ASSET_PRIMARY_TYPE = 'FerryTransaction:SendAsset';
export const sendAssetTypes: Readonly<Record<string, readonly TypedDataField[]>> = {
  [SEND_ASSET_PRIMARY_TYPE]: [
    { name: 'perpsChain', type: 'string' },
    { name: 'destination', type: 'string' },
    { name: 'sourceDex', type: 'string' },
    { name: 'destinationDex', type: 'string' },
    { name: 'token', type: 'string' },
    { name: 'amount', type: 'string' },
    { name: 'fromSubAccount', type: 'string' },
    { name: 'nonce', type: 'uint64' },
  ],
};

/** What the `authorize` step of a withdrawal binds: `(wallet, nonce)` → order `id`. */
export interface NonceMappingParameters {
  readonly requestId: Hex;
  /** Exchange A's protocol chain name (`ChainInfo.name`), signed as `value.chainId`. */
  readonly perpsChainName: string;
  /** Exchange A's chain id (1337), posted as `walletChainId`. */
  readonly walletChainId: number;
  readonly wallet: Address;
  readonly depositor: Address;
  /** Shared with the `sendAsset` of the deposit step (e.g. a millisecond timestamp). */
  readonly nonce: number;
  readonly signatureChainId: number;
  readonly verifyingContract: Address;
}

/** The `NonceMapping` typed data, for signing and verification with viem. */
export function buildNonceMappingTypedData(parameters: NonceMappingParameters) {
  return {
    domain: {
      name: NONCE_MAPPING_DOMAIN_NAME,
      version: NONCE_MAPPING_DOMAIN_VERSION,
      chainId: parameters.signatureChainId,
      verifyingContract: parameters.verifyingContract,
    },
    types: nonceMappingTypes,
    primaryType: 'NonceMapping',
    message: {
      chainId: parameters.perpsChainName,
      wallet: parameters.wallet,
      depositor: parameters.depositor,
      nonce: BigInt(parameters.nonce),
      id: parameters.requestId,
    },
  } as const;
}

/** The body the `authorize` step posts to `POST /authorize?signature=…`. */
export interface NonceMappingBody {
  readonly type: 'nonce-mapping';
  readonly walletChainId: number;
  readonly wallet: string;
  readonly depositor: string;
  readonly nonce: number | string;
  readonly id: string;
  readonly signatureChainId: number;
}

/** `authorize` (signature): the user maps the withdrawal's nonce to the request id. */
export function buildNonceMappingStep(parameters: NonceMappingParameters): Step<SignatureData> {
  const typedData = buildNonceMappingTypedData(parameters);
  const body: NonceMappingBody = {
    type: 'nonce-mapping',
    walletChainId: parameters.walletChainId,
    wallet: parameters.wallet,
    depositor: parameters.depositor,
    nonce: parameters.nonce,
    id: parameters.requestId,
    signatureChainId: parameters.signatureChainId,
  };
  return singleItemStep({
    id: 'authorize',
    action: 'Sign authorization',
    description: 'Link the withdrawal to this request',
    kind: 'signature',
    requestId: parameters.requestId,
    data: {
      sign: {
        signatureKind: 'eip712',
        domain: typedData.domain,
        types: typedData.types,
        primaryType: typedData.primaryType,
        value: { ...typedData.message, nonce: parameters.nonce },
      },
      post: { endpoint: AUTHORIZE_ENDPOINT, method: 'POST', body: { ...body } },
    },
  });
}

/** What a `POST /authorize` is checked against: the stored quote and the configured verifying contract. */
export interface NonceMappingExpectation {
  readonly perpsChainName: string;
  readonly walletChainId: number;
  readonly verifyingContract: Address;
  readonly requestId: Hex;
  readonly wallet: Address;
  readonly depositor: Address;
  readonly nonce: number;
}

/**
 * Checks a `POST /authorize` body and its `signature` against the quote: the nonce, id, wallet and depositor must be
 * the quote's, and the signature must recover to the wallet under the body's `signatureChainId`; else
 * `INVALID_SIGNATURE` (a malformed body: `INVALID_INPUT`). Unknown body keys (clients add `referrer`) are ignored.
 */
export async function verifyNonceMappingSignature(
  body: NonceMappingBody,
  signature: Hex,
  expected: NonceMappingExpectation,
): Promise<void> {
  const signatureChainId = body.signatureChainId;
  if (body.type !== 'nonce-mapping' || !Number.isSafeInteger(signatureChainId) || signatureChainId <= 0) {
    throw new QuoteError('INVALID_INPUT', 'The body is not a nonce mapping', {
      field: body.type !== 'nonce-mapping' ? 'type' : 'signatureChainId',
    });
  }
  if (body.walletChainId !== expected.walletChainId) {
    throw new QuoteError('INVALID_INPUT', `walletChainId must be ${expected.walletChainId}`, {
      field: 'walletChainId',
    });
  }
  const mismatch = nonceMappingMismatch(body, expected);
  if (mismatch !== null) {
    throw new QuoteError('INVALID_SIGNATURE', `The nonce mapping's ${mismatch} is not the quote's`, {
      field: mismatch,
    });
  }
  const typedData = buildNonceMappingTypedData({ ...expected, signatureChainId });
  let signer: Address;
  try {
    signer = await recoverTypedDataAddress({ ...typedData, signature });
  } catch (error) {
    throw new QuoteError('INVALID_SIGNATURE', 'The nonce mapping signature is malformed', {
      reason: (error as Error).message.split('\n')[0],
    });
  }
  if (!isAddressEqual(signer, expected.wallet)) {
    throw new QuoteError('INVALID_SIGNATURE', 'The nonce mapping is not signed by the wallet of the quote', {
      expected: expected.wallet,
      recovered: signer,
    });
  }
}

function nonceMappingMismatch(body: NonceMappingBody, expected: NonceMappingExpectation): string | null {
  if (!sameInteger(body.nonce, expected.nonce)) return 'nonce';
  if (typeof body.id !== 'string' || body.id.toLowerCase() !== expected.requestId.toLowerCase()) return 'id';
  if (!sameAddress(body.wallet, expected.wallet)) return 'wallet';
  if (!sameAddress(body.depositor, expected.depositor)) return 'depositor';
  return null;
}

function sameInteger(value: unknown, expected: number): boolean {
  if (typeof value === 'number') return value === expected;
  return typeof value === 'string' && /^[0-9]+$/.test(value) && BigInt(value) === BigInt(expected);
}

function sameAddress(value: unknown, expected: Address): boolean {
  return typeof value === 'string' && value.toLowerCase() === expected.toLowerCase();
}

/**
 * Where a currency of exchange A lives, from its address: perps USDC (all-zero id) on the perps dex `''`; a 16-byte
 * spot id on `spot`; a spot id followed by the hex of a dex name on that third-party dex.
 */
export function perpsADexOf(currencyAddress: string): { readonly dex: string; readonly spotId: string } {
  const address = currencyAddress.toLowerCase();
  if (address === PERPS_A_PERPS_USDC) return { dex: '', spotId: address };
  if (address.length <= PERPS_A_PERPS_USDC.length) return { dex: 'spot', spotId: address };
  const spotId = address.slice(0, PERPS_A_PERPS_USDC.length);
  return { dex: hexToString(`0x${address.slice(PERPS_A_PERPS_USDC.length)}`), spotId };
}

export interface SendAssetParameters {
  readonly requestId: Hex;
  /** The exchange's network name signed in the action (e.g. `Mainnet`). */
  readonly perpsChain: string;
  /** The solver's address on the exchange. */
  readonly destination: string;
  readonly sourceDex: string;
  readonly destinationDex: string;
  /** The exchange's token string (`<symbol>:<spot token id>`). */
  readonly token: string;
  readonly amount: bigint;
  readonly decimals: number;
  readonly fromSubAccount: string;
  readonly nonce: number;
}

/**
 * `deposit` (transaction): the `sendAsset` action moving the amount to the solver. The client signs it under the
 * exchange's own domain and sends it to the exchange; the nonce is the `authorize` step's, which ties it to the
 * request.
 */
export function buildSendAssetStep(parameters: SendAssetParameters): Step<PerpsASendAssetData> {
  return singleItemStep({
    id: 'deposit',
    action: 'Confirm transaction in your wallet',
    description: 'Send the funds to the solver on the exchange',
    kind: 'transaction',
    requestId: parameters.requestId,
    data: {
      action: {
        type: 'sendAsset',
        parameters: {
          perpsChain: parameters.perpsChain,
          destination: parameters.destination,
          sourceDex: parameters.sourceDex,
          destinationDex: parameters.destinationDex,
          token: parameters.token,
          amount: formatUnits(parameters.amount, parameters.decimals),
          fromSubAccount: parameters.fromSubAccount,
          nonce: parameters.nonce,
        },
      },
      nonce: parameters.nonce,
      eip712Types: sendAssetTypes,
      eip712PrimaryType: SEND_ASSET_PRIMARY_TYPE,
    },
  });
}
