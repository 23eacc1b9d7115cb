import {
  type Address,
  encodeAbiParameters,
  getContractAddress,
  type Hex,
  keccak256,
  stringToBytes,
  zeroAddress,
} from 'viem';
import type { DepositAddress } from '../../../requests/domain/records.js';
import { type EvmGasFields, type EvmTransactionData, gasFields, singleItemStep, type Step } from './step.js';

/**
 * The init-code hash deposit addresses are derived with: `keccak256("ferry.deposit-address.forwarder.v1")`, a fixed
 * stand-in for `keccak256(initCode)` of the per-request forwarder the depository will deploy with CREATE2. When the
 * forwarder is compiled its real init-code hash replaces this value, which moves every derived address: only do
 * that while no deposit address is outstanding (docs/steps.md, "Deposit addresses").
 */
export const DEPOSIT_ADDRESS_INIT_CODE_HASH: Hex = keccak256(
  stringToBytes('ferry.deposit-address.forwarder.v1'),
);

export type DepositAddressType = DepositAddress['type'];

export interface DepositAddressParameters {
  readonly requestId: Hex;
  readonly depository: Address;
  /** `strict`: only a deposit from `user` counts. `open`: a deposit from anyone counts. */
  readonly type: DepositAddressType;
  readonly user: Address;
  /** Who may recover funds sent to the address; defaults to `refundTo`, then `user`. */
  readonly recoveryAddress?: Address | null;
  readonly refundTo?: Address | null;
  /** Overrides `DEPOSIT_ADDRESS_INIT_CODE_HASH` (tests, or a chain with another forwarder). */
  readonly initCodeHash?: Hex;
}

/** The recovery address in effect: the one given, else `refundTo`, else the user. */
export function recoveryAddressOf(parameters: DepositAddressParameters): Address {
  return parameters.recoveryAddress ?? parameters.refundTo ?? parameters.user;
}

/**
 * The CREATE2 salt: `keccak256(abi.encode(orderId, mode, depositor, recoveryAddress))` with mode 0 = strict,
 * 1 = open and depositor = zero for open. The address commits to how it may be used, not only to the order.
 */
export function depositAddressSalt(parameters: DepositAddressParameters): Hex {
  const strict = parameters.type === 'strict';
  return keccak256(
    encodeAbiParameters(
      [{ type: 'bytes32' }, { type: 'uint8' }, { type: 'address' }, { type: 'address' }],
      [
        parameters.requestId,
        strict ? 0 : 1,
        strict ? parameters.user : zeroAddress,
        recoveryAddressOf(parameters),
      ],
    ),
  );
}

/** The request's deposit address: CREATE2 from the depository with `depositAddressSalt`; deterministic. */
export function deriveDepositAddress(parameters: DepositAddressParameters): Address {
  return getContractAddress({
    opcode: 'CREATE2',
    from: parameters.depository,
    salt: depositAddressSalt(parameters),
    bytecodeHash: parameters.initCodeHash ?? DEPOSIT_ADDRESS_INIT_CODE_HASH,
  });
}

/** The request record's `depositAddress` (before any deposit: no `depositTxHash` yet). */
export function buildDepositAddress(parameters: DepositAddressParameters): DepositAddress {
  return {
    address: deriveDepositAddress(parameters),
    type: parameters.type,
    depositor: parameters.type === 'strict' ? parameters.user : null,
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
        ? 'Send the amount from your wallet to the deposit address'
        : 'Send the amount to the deposit address from any wallet',
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
