import {
  hashDomain,
  hashStruct,
  type Hex,
  hexToBytes,
  isAddress,
  isHex,
  keccak256,
  maxUint256,
  size,
} from 'viem';
import { StructHasher } from './order-hash.js';

/**
 * `protocol.v2.orderData` (`spec/api.md`, "Protocol object") and its id: the EIP-712 hash of the order under
 * `orderDomain(hubChainId)`. The order id is the quote's request id and the `id` every deposit is tagged with.
 *
 * Chain ids are protocol chain names (`ChainInfo.name`) and addresses are strings in their chain's own format, so
 * SVM and perps exchange values fit. Hex strings (EVM addresses, perps exchange ids, calldata) are lowercased before
 * hashing, so an address in another letter case is the same order; base58 and other strings are taken as they are.
 */

export const ORDER_VERSION = 'v1';
export const ORDER_DOMAIN_NAME = 'FerryOrder';
export const ORDER_DOMAIN_VERSION = '1';

export interface OrderPayment {
  readonly chainId: string;
  readonly currency: string;
  readonly amount: string;
  readonly weight: string;
}

export interface OrderRefund {
  readonly chainId: string;
  readonly recipient: string;
  readonly currency: string;
  readonly minimumAmount: string;
  /** Unix seconds. */
  readonly deadline: number;
  readonly extraData: Hex;
}

export interface OrderInput {
  readonly payment: OrderPayment;
  readonly refunds: readonly OrderRefund[];
}

export interface OrderOutputPayment {
  readonly recipient: string;
  readonly currency: string;
  readonly minimumAmount: string;
  readonly expectedAmount: string;
}

/** A call the solver makes on the destination chain after paying (the quote's `txs`). */
export interface OrderCall {
  readonly to: Hex;
  readonly data: Hex;
  readonly value: string;
}

export interface OrderOutput {
  readonly chainId: string;
  readonly payments: readonly OrderOutputPayment[];
  readonly calls: readonly OrderCall[];
  /** Unix seconds. */
  readonly deadline: number;
  readonly extraData: Hex;
}

/** A fee the order pays out of its inputs (Ferry decides this shape: the spec shows only `fees[]`). */
export interface OrderFee {
  readonly chainId: string;
  readonly recipient: string;
  readonly currency: string;
  readonly amount: string;
}

export interface OrderData {
  readonly version: string;
  readonly solverChainId: string;
  readonly solver: string;
  readonly salt: Hex;
  readonly inputs: readonly OrderInput[];
  readonly output: OrderOutput;
  readonly fees: readonly OrderFee[];
}

/** `protocol.v2.paymentDetails`: where the first input is deposited. */
export interface PaymentDetails {
  readonly chainId: string;
  readonly depository: string;
  readonly currency: string;
  readonly amount: string;
}

/** The plain values an order is built from: amounts in the smallest unit, deadlines in unix seconds. */
export interface BuildOrderInput {
  /** Chain id of the hub the order domain is bound to. */
  readonly hubChainId: number;
  readonly version?: string;
  readonly solverChainId: string;
  readonly solver: string;
  /** 32 random bytes chosen by the caller (the order id hashes it, so two quotes never share an id). */
  readonly salt: Hex;
  readonly inputs: readonly {
    readonly payment: {
      readonly chainId: string;
      readonly currency: string;
      readonly amount: bigint;
      readonly weight?: bigint;
    };
    readonly refunds: readonly {
      readonly chainId: string;
      readonly recipient: string;
      readonly currency: string;
      readonly minimumAmount: bigint;
      readonly deadline: number;
      readonly extraData?: Hex;
    }[];
  }[];
  readonly output: {
    readonly chainId: string;
    readonly payments: readonly {
      readonly recipient: string;
      readonly currency: string;
      readonly minimumAmount: bigint;
      readonly expectedAmount: bigint;
    }[];
    readonly calls?: readonly { readonly to: string; readonly data: string; readonly value: bigint }[];
    readonly deadline: number;
    readonly extraData?: Hex;
  };
  readonly fees?: readonly {
    readonly chainId: string;
    readonly recipient: string;
    readonly currency: string;
    readonly amount: bigint;
  }[];
  /** The depository on the first input's chain (`paymentDetails.depository`). */
  readonly depository: string;
}

export interface BuiltOrder {
  readonly orderData: OrderData;
  /** = the quote's request id. */
  readonly orderId: Hex;
  readonly paymentDetails: PaymentDetails;
}

/** The order's EIP-712 types. Strings for chain names and addresses of any VM, uint256 for amounts and deadlines. */
export const orderTypes = {
  Order: [
    { name: 'version', type: 'string' },
    { name: 'solverChainId', type: 'string' },
    { name: 'solver', type: 'string' },
    { name: 'salt', type: 'bytes32' },
    { name: 'inputs', type: 'Input[]' },
    { name: 'output', type: 'Output' },
    { name: 'fees', type: 'Fee[]' },
  ],
  Input: [
    { name: 'payment', type: 'Payment' },
    { name: 'refunds', type: 'Refund[]' },
  ],
  Payment: [
    { name: 'chainId', type: 'string' },
    { name: 'currency', type: 'string' },
    { name: 'amount', type: 'uint256' },
    { name: 'weight', type: 'uint256' },
  ],
  Refund: [
    { name: 'chainId', type: 'string' },
    { name: 'recipient', type: 'string' },
    { name: 'currency', type: 'string' },
    { name: 'minimumAmount', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
    { name: 'extraData', type: 'bytes' },
  ],
  Output: [
    { name: 'chainId', type: 'string' },
    { name: 'payments', type: 'OutputPayment[]' },
    { name: 'calls', type: 'Call[]' },
    { name: 'deadline', type: 'uint256' },
    { name: 'extraData', type: 'bytes' },
  ],
  OutputPayment: [
    { name: 'recipient', type: 'string' },
    { name: 'currency', type: 'string' },
    { name: 'minimumAmount', type: 'uint256' },
    { name: 'expectedAmount', type: 'uint256' },
  ],
  Call: [
    { name: 'to', type: 'address' },
    { name: 'data', type: 'bytes' },
    { name: 'value', type: 'uint256' },
  ],
  Fee: [
    { name: 'chainId', type: 'string' },
    { name: 'recipient', type: 'string' },
    { name: 'currency', type: 'string' },
    { name: 'amount', type: 'uint256' },
  ],
} as const;

/** The order domain: fixed name and version, bound to the hub's chain id. */
export function orderDomain(hubChainId: number) {
  return { name: ORDER_DOMAIN_NAME, version: ORDER_DOMAIN_VERSION, chainId: hubChainId } as const;
}

/** `orderData` in its canonical form (hex lowercased, amounts as decimal strings), with its id and payment details. */
export function buildOrder(input: BuildOrderInput): BuiltOrder {
  const orderData: OrderData = {
    version: input.version ?? ORDER_VERSION,
    solverChainId: input.solverChainId,
    solver: canonical(input.solver),
    salt: bytes32(input.salt, 'salt'),
    inputs: input.inputs.map(({ payment, refunds }) => ({
      payment: {
        chainId: payment.chainId,
        currency: canonical(payment.currency),
        amount: uint(payment.amount, 'payment.amount'),
        weight: uint(payment.weight ?? 1n, 'payment.weight'),
      },
      refunds: refunds.map((refund) => ({
        chainId: refund.chainId,
        recipient: canonical(refund.recipient),
        currency: canonical(refund.currency),
        minimumAmount: uint(refund.minimumAmount, 'refund.minimumAmount'),
        deadline: seconds(refund.deadline, 'refund.deadline'),
        extraData: hexData(refund.extraData ?? '0x', 'refund.extraData'),
      })),
    })),
    output: {
      chainId: input.output.chainId,
      payments: input.output.payments.map((payment) => ({
        recipient: canonical(payment.recipient),
        currency: canonical(payment.currency),
        minimumAmount: uint(payment.minimumAmount, 'output.minimumAmount'),
        expectedAmount: uint(payment.expectedAmount, 'output.expectedAmount'),
      })),
      calls: (input.output.calls ?? []).map((call) => ({
        to: callTarget(call.to),
        data: hexData(call.data, 'call.data'),
        value: uint(call.value, 'call.value'),
      })),
      deadline: seconds(input.output.deadline, 'output.deadline'),
      extraData: hexData(input.output.extraData ?? '0x', 'output.extraData'),
    },
    fees: (input.fees ?? []).map((fee) => ({
      chainId: fee.chainId,
      recipient: canonical(fee.recipient),
      currency: canonical(fee.currency),
      amount: uint(fee.amount, 'fee.amount'),
    })),
  };
  const payment = orderData.inputs[0]?.payment;
  if (payment === undefined) throw new TypeError('An order needs at least one input');
  return {
    orderData,
    orderId: hashOrder(orderData, input.hubChainId),
    paymentDetails: {
      chainId: payment.chainId,
      depository: canonical(input.depository),
      currency: payment.currency,
      amount: payment.amount,
    },
  };
}

/** The order as viem typed data (uint values as bigints), for hashing or signing (`orderSignature`). */
export function orderTypedData(orderData: OrderData, hubChainId: number) {
  return {
    domain: orderDomain(hubChainId),
    types: orderTypes,
    primaryType: 'Order',
    message: {
      version: orderData.version,
      solverChainId: orderData.solverChainId,
      solver: orderData.solver,
      salt: orderData.salt,
      inputs: orderData.inputs.map(({ payment, refunds }) => ({
        payment: { ...payment, amount: BigInt(payment.amount), weight: BigInt(payment.weight) },
        refunds: refunds.map((refund) => ({
          ...refund,
          minimumAmount: BigInt(refund.minimumAmount),
          deadline: BigInt(refund.deadline),
        })),
      })),
      output: {
        ...orderData.output,
        payments: orderData.output.payments.map((payment) => ({
          ...payment,
          minimumAmount: BigInt(payment.minimumAmount),
          expectedAmount: BigInt(payment.expectedAmount),
        })),
        calls: orderData.output.calls.map((call) => ({ ...call, value: BigInt(call.value) })),
        deadline: BigInt(orderData.output.deadline),
      },
      fees: orderData.fees.map((fee) => ({ ...fee, amount: BigInt(fee.amount) })),
    },
  } as const;
}

const orderHasher = new StructHasher(orderTypes);

/** The order id: the EIP-712 hash of the order. Deterministic: the same order always has the same id. */
export function hashOrder(orderData: OrderData, hubChainId: number): Hex {
  // EIP-712: keccak256(0x1901 ‖ domainSeparator ‖ hashStruct(order)), as viem's hashTypedData computes it, with the
  // domain separator kept per hub (it never changes), the struct hashed by a precomputed encoder (type hashes computed
  // once) and without re-validating the typed data that buildOrder just checked (bench/RESULTS.md). An order outside
  // the encoder's canonical form (hashOrder also takes orders read back from JSON) is hashed by viem's hashStruct.
  // Equality with hashTypedData: order-data.spec and the property test order-hash.spec.
  const digest = new Uint8Array(66);
  digest[0] = 0x19;
  digest[1] = 0x01;
  digest.set(domainSeparator(hubChainId), 2);
  digest.set(orderHasher.hash('Order', orderData) ?? viemStructHash(orderData, hubChainId), 34);
  return keccak256(digest);
}

function viemStructHash(orderData: OrderData, hubChainId: number): Uint8Array {
  const typed = orderTypedData(orderData, hubChainId);
  return hexToBytes(hashStruct({ data: typed.message, primaryType: 'Order', types: orderTypes }));
}

const domainSeparators = new Map<number, Uint8Array>();

function domainSeparator(hubChainId: number): Uint8Array {
  let separator = domainSeparators.get(hubChainId);
  if (separator === undefined) {
    separator = hexToBytes(
      hashDomain({
        domain: { ...orderDomain(hubChainId), chainId: BigInt(hubChainId) },
        types: {
          EIP712Domain: [
            { name: 'name', type: 'string' },
            { name: 'version', type: 'string' },
            { name: 'chainId', type: 'uint256' },
          ],
        },
      }),
    );
    domainSeparators.set(hubChainId, separator);
  }
  return separator;
}

function canonical(value: string): string {
  return /^0x[0-9a-fA-F]*$/.test(value) ? value.toLowerCase() : value;
}

function uint(value: bigint, field: string): string {
  if (value < 0n || value > maxUint256) throw new TypeError(`${field} is not a uint256: ${value}`);
  return value.toString();
}

function seconds(value: number, field: string): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new TypeError(`${field} is not a unix time in seconds: ${value}`);
  }
  return value;
}

function hexData(value: string, field: string): Hex {
  if (!isHex(value, { strict: true }) || value.length % 2 !== 0) {
    throw new TypeError(`${field} is not hex data: ${JSON.stringify(value)}`);
  }
  return value.toLowerCase() as Hex;
}

function callTarget(value: string): Hex {
  if (!isAddress(value, { strict: false })) throw new TypeError(`call.to is not an EVM address: ${value}`);
  return value.toLowerCase() as Hex;
}

function bytes32(value: string, field: string): Hex {
  const hex = hexData(value, field);
  if (size(hex) !== 32) throw new TypeError(`${field} is not 32 bytes: ${value}`);
  return hex;
}
