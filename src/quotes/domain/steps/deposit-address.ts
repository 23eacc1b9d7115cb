import { type Address, encodeAbiParameters, getContractAddress, type Hex, keccak256 } from 'viem';
import type { DepositAddress } from '../../../requests/domain/records.js';
import { type EvmGasFields, type EvmTransactionData, gasFields, singleItemStep, type Step } from './step.js';

/**
 * `keccak256` of `FerryDepositReceiver`'s init code (contracts/artifacts/FerryDepositReceiver.json `bytecode`; it
 * takes no constructor arguments). A unit test fails when the artifact changes without this value: a new receiver
 * moves every deposit address, so only change it while no deposit address is outstanding.
 */
export const DEPOSIT_RECEIVER_INIT_CODE_HASH: Hex =
  '0xfb7d12ea41da2f20b4aefc9b184e9afcdc32155050617f9f3ab4d85d19d823f0';

export type DepositAddressType = DepositAddress['type'];

/** The factory's mode argument: strict 0, open 1 (`FerryDepositAddressFactory.STRICT` / `OPEN`). */
export const depositAddressMode = (type: DepositAddressType): 0 | 1 => (type === 'strict' ? 0 : 1);

export interface DepositAddressParameters {
  readonly requestId: Hex;
  /** The origin chain's `FerryDepositAddressFactory`. */
  readonly factory: Address;
  /** `strict`: exactly the quoted amount. `open`: at least the quoted amount (docs/deposit-addresses.md). */
  readonly type: DepositAddressType;
  readonly user: Address;
  /** Who may pull funds Ferry has not swept; defaults to `refundTo`, then `user`. */
  readonly recoveryAddress?: Address | null;
  readonly refundTo?: Address | null;
}

/** The recovery address in effect: the one given, else `refundTo`, else the user. */
export function recoveryAddressOf(parameters: Omit<DepositAddressParameters, 'factory'>): Address {
  return parameters.recoveryAddress ?? parameters.refundTo ?? parameters.user;
}

/**
 * The CREATE2 salt, as the factory computes it onchain (`saltOf`): `keccak256(abi.encode(orderId, mode, recovery))`.
 * The address commits to the order, how it may be used and who may recover it.
 */
export function depositAddressSalt(orderId: Hex, type: DepositAddressType, recovery: Address): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: 'bytes32' }, { type: 'uint8' }, { type: 'address' }],
      [orderId, depositAddressMode(type), recovery],
    ),
  );
}

/** The request's deposit address: where the factory deploys its receiver (CREATE2); deterministic. */
export function deriveDepositAddress(parameters: DepositAddressParameters): Address {
  return getContractAddress({
    opcode: 'CREATE2',
    from: parameters.factory,
    salt: depositAddressSalt(parameters.requestId, parameters.type, recoveryAddressOf(parameters)),
    bytecodeHash: DEPOSIT_RECEIVER_INIT_CODE_HASH,
  });
}

/** The request record's `depositAddress` before any deposit: no depositor or `depositTxHash` yet. */
export function buildDepositAddress(parameters: DepositAddressParameters): DepositAddress {
  return {
    address: deriveDepositAddress(parameters),
    type: parameters.type,
    depositor: null,
    depositTxHash: null,
    recoveryAddress: recoveryAddressOf(parameters),
  };
}

export interface DepositAddressStepParameters extends DepositAddressParameters {
  readonly chainId: number;
  readonly amount: bigint;
  readonly gas?: EvmGasFields;
}

/** `deposit`: a plain native transfer of the amount to the deposit address, which the step also names. */
export function buildDepositAddressStep(parameters: DepositAddressStepParameters): Step<EvmTransactionData> {
  const address = deriveDepositAddress(parameters);
  return singleItemStep({
    id: 'deposit',
    action: 'Send funds to the deposit address',
    description:
      parameters.type === 'strict'
        ? 'Send exactly the amount to the deposit address, from any wallet, before the quote expires'
        : 'Send at least the amount to the deposit address, from any wallet, before the quote expires',
    kind: 'transaction',
    requestId: parameters.requestId,
    depositAddress: address,
    data: {
      from: parameters.user,
      to: address,
      data: '0x',
      value: parameters.amount.toString(),
      chainId: parameters.chainId,
      ...gasFields(parameters.gas),
    },
  });
}
