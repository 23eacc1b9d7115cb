import { type Address, getAddress, type Hex, isAddress, isHex, size } from 'viem';
import { QuoteError } from '../quote-error.js';

/**
 * The spec's Step object (`spec/api.md`, "Step") and the item data of every flow. JSON only: amounts are decimal
 * strings (or numbers where the spec says number), never bigints, so a step is stored and served as it is.
 */

export type StepId = 'approve' | 'deposit' | 'authorize';
export type StepKind = 'transaction' | 'signature';

export interface StepCheck {
  /** Relative to the base URL (ARCHITECTURE §10): `/intents/status/v3?requestId=<id>`. */
  readonly endpoint: string;
  readonly method: 'GET';
}

export interface StepItem<TData = StepItemData> {
  readonly status: 'incomplete';
  readonly data: TData;
  /**
   * The status check. Absent on approval items: a wallet following Relay's SDK polls an item's check after sending it
   * until the request succeeds, which no request can before its deposit step (docs/steps.md, "Approval items").
   */
  readonly check?: StepCheck;
}

export interface Step<TData = StepItemData> {
  readonly id: StepId;
  readonly action: string;
  readonly description: string;
  readonly kind: StepKind;
  /** The quote's request id = `protocol.v2.orderId`; the same on every step of one quote. */
  readonly requestId: Hex;
  /** The deposit address when `useDepositAddress` is on, else `''`. */
  readonly depositAddress: string;
  readonly items: readonly StepItem<TData>[];
}

/** An EVM transaction item. `value` and the gas fields are decimal strings in the smallest unit. */
export interface EvmTransactionData {
  readonly from: Address;
  readonly to: Address;
  readonly data: Hex;
  readonly value: string;
  readonly chainId: number;
  readonly gas?: string;
  readonly maxFeePerGas?: string;
  readonly maxPriorityFeePerGas?: string;
}

/** Optional gas fields of EVM transaction items, when the caller has estimates. */
export interface EvmGasFields {
  readonly gas?: bigint;
  readonly maxFeePerGas?: bigint;
  readonly maxPriorityFeePerGas?: bigint;
}

export interface TypedDataField {
  readonly name: string;
  readonly type: string;
}

/** `sign` of a signature item: EIP-712 typed data as JSON (uint values as decimal strings or safe numbers). */
export interface Eip712Sign {
  readonly signatureKind: 'eip712';
  readonly domain: {
    readonly name: string;
    readonly version: string;
    readonly chainId: number;
    readonly verifyingContract: Address;
  };
  readonly types: Readonly<Record<string, readonly TypedDataField[]>>;
  readonly primaryType: string;
  readonly value: Readonly<Record<string, unknown>>;
}

export interface SignaturePost {
  readonly endpoint: string;
  readonly method: 'POST';
  /** Posted as it is, with the signature as the `signature` query parameter. */
  readonly body: Readonly<Record<string, unknown>>;
}

export interface SignatureData {
  readonly sign: Eip712Sign;
  readonly post: SignaturePost;
}

/** Perps exchange A withdrawal: the `sendAsset` action the client signs and sends to the exchange. */
export interface PerpsASendAssetData {
  readonly action: {
    readonly type: 'sendAsset';
    readonly parameters: {
      readonly perpsChain: string;
      readonly destination: string;
      readonly sourceDex: string;
      readonly destinationDex: string;
      readonly token: string;
      /** Human units (decimal string), as the exchange takes it. */
      readonly amount: string;
      readonly fromSubAccount: string;
      readonly nonce: number;
    };
  };
  readonly nonce: number;
  readonly eip712Types: Readonly<Record<string, readonly TypedDataField[]>>;
  readonly eip712PrimaryType: string;
}

/** Perps exchange B withdrawal: the `transfer` the client signs with the exchange's own signer. */
export interface PerpsBTransferData {
  readonly action: {
    readonly type: 'transfer';
    readonly parameters: {
      readonly type: 'transfer';
      readonly toAccountIndex: number;
      readonly assetIndex: number;
      readonly fromRouteType: number;
      readonly toRouteType: number;
      readonly amount: number;
      readonly usdcFee: number;
      readonly memo: string;
    };
  };
}

/** One SVM instruction as JSON: base58 keys, hex data (the shape SVM wallet adapters rebuild instructions from). */
export interface SvmInstructionData {
  readonly keys: readonly {
    readonly pubkey: string;
    readonly isSigner: boolean;
    readonly isWritable: boolean;
  }[];
  readonly programId: string;
  readonly data: string;
}

/** An SVM transaction item: the unsigned v0 transaction (base64) and the instructions it was built from. */
export interface SvmTransactionData {
  readonly serializedTransaction: string;
  readonly instructions: readonly SvmInstructionData[];
  readonly addressLookupTableAddresses: readonly string[];
}

export type StepItemData =
  EvmTransactionData | SignatureData | PerpsASendAssetData | PerpsBTransferData | SvmTransactionData;

/** The status check every step item carries. */
export function statusCheck(requestId: Hex): StepCheck {
  return { endpoint: `/intents/status/v3?requestId=${requestId}`, method: 'GET' };
}

export interface StepParameters<TData> {
  readonly id: StepId;
  readonly action: string;
  readonly description: string;
  readonly kind: StepKind;
  readonly requestId: Hex;
  readonly depositAddress?: string;
  readonly data: TData;
  /** False for an item that must carry no status check (approvals). */
  readonly check?: false;
}

/** A step with one `incomplete` item. */
export function singleItemStep<TData extends StepItemData>(parameters: StepParameters<TData>): Step<TData> {
  return {
    id: parameters.id,
    action: parameters.action,
    description: parameters.description,
    kind: parameters.kind,
    requestId: parameters.requestId,
    depositAddress: parameters.depositAddress ?? '',
    items: [
      {
        status: 'incomplete',
        data: parameters.data,
        ...(parameters.check === false ? {} : { check: statusCheck(parameters.requestId) }),
      },
    ],
  };
}

/** Optional gas fields as decimal strings, only those given. */
export function gasFields(
  gas: EvmGasFields | undefined,
): Pick<EvmTransactionData, 'gas' | 'maxFeePerGas' | 'maxPriorityFeePerGas'> {
  return {
    ...(gas?.gas !== undefined && { gas: gas.gas.toString() }),
    ...(gas?.maxFeePerGas !== undefined && { maxFeePerGas: gas.maxFeePerGas.toString() }),
    ...(gas?.maxPriorityFeePerGas !== undefined && {
      maxPriorityFeePerGas: gas.maxPriorityFeePerGas.toString(),
    }),
  };
}

/**
 * A request id (= order id): `0x` + 64 hex digits, returned lowercase. A malformed one is a bug in the caller (it
 * comes from `buildOrder`), so this throws a plain error, not a `QuoteError`.
 */
export function requestIdOf(value: string): Hex {
  if (!isHex(value, { strict: true }) || size(value) !== 32) {
    throw new TypeError(`A request id is 0x + 64 hex digits; got ${JSON.stringify(value)}`);
  }
  return value.toLowerCase() as Hex;
}

/** An EVM address from user input, checksummed; else `INVALID_ADDRESS` naming the field. */
export function evmAddress(value: string, field: string): Address {
  if (!isAddress(value, { strict: false })) {
    throw new QuoteError('INVALID_ADDRESS', `${field} is not an EVM address: ${JSON.stringify(value)}`, {
      field,
    });
  }
  return getAddress(value);
}

/** A non-negative amount in the smallest unit. */
export function assertAmount(amount: bigint, field: string): bigint {
  if (amount < 0n) {
    throw new QuoteError('INVALID_INPUT', `${field} must not be negative; got ${amount}`, { field });
  }
  return amount;
}
