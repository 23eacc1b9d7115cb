import { type Hex, hashStruct, hashTypedData, type TypedDataDomain } from 'viem';

/**
 * What the oracle signs: one EIP-712 message per attestation kind, `{data, result}` — `data` names what was asked
 * (the chain and transaction, and for fills and refunds the order's terms), `result` what the chain showed. Every field
 * is either the caller's input or read from a final block, so independent instances build byte-identical messages,
 * and the message id (the EIP-712 struct hash) is the same everywhere. docs/oracle.md lists the fields.
 *
 * Encodings: chain ids and amounts are `uint256` (decimal strings in JSON); transaction ids, addresses and currencies
 * are `bytes` in the chain's own encoding (20 bytes on EVM), so other VM families fit the same types; order ids are
 * `bytes32`.
 */
export const ATTESTATION_KINDS = [
  'depository-deposit',
  'depository-withdrawal',
  'solver-fill',
  'solver-refund',
] as const;
export type AttestationKind = (typeof ATTESTATION_KINDS)[number];

/** The route of each kind: `POST /attestations/<route>/v1`. */
export const ATTESTATION_ROUTES: Readonly<Record<AttestationKind, string>> = {
  'depository-deposit': 'depository-deposits',
  'depository-withdrawal': 'depository-withdrawals',
  'solver-fill': 'solver-fills',
  'solver-refund': 'solver-refunds',
};

export interface TransactionRef {
  readonly chainId: string;
  readonly transactionId: Hex;
}

export interface DepositoryDepositMessage {
  readonly data: TransactionRef;
  readonly result: {
    readonly depository: Hex;
    /** The order id the deposit is tagged with (Ferry's request id). */
    readonly depositId: Hex;
    readonly depositor: Hex;
    /** The zero address for the native currency. */
    readonly currency: Hex;
    readonly amount: string;
    /** Which event of the transaction (a transaction may hold several deposits). */
    readonly logIndex: string;
  };
}

export interface DepositoryWithdrawalMessage {
  readonly data: TransactionRef;
  readonly result: {
    readonly depository: Hex;
    readonly currency: Hex;
    readonly recipient: Hex;
    readonly amount: string;
    readonly logIndex: string;
  };
}

/** A fill or a refund: what the order asked (`data`) and what the solver's transaction paid (`result`). */
export interface SolverPaymentMessage {
  readonly data: TransactionRef & {
    readonly orderId: Hex;
    readonly recipient: Hex;
    readonly currency: Hex;
    readonly minimumAmount: string;
  };
  readonly result: {
    readonly solver: Hex;
    readonly recipient: Hex;
    readonly currency: Hex;
    readonly amount: string;
  };
}

export interface AttestationMessages {
  readonly 'depository-deposit': DepositoryDepositMessage;
  readonly 'depository-withdrawal': DepositoryWithdrawalMessage;
  readonly 'solver-fill': SolverPaymentMessage;
  readonly 'solver-refund': SolverPaymentMessage;
}
export type AttestationMessage = AttestationMessages[AttestationKind];

const TRANSACTION = [
  { name: 'chainId', type: 'uint256' },
  { name: 'transactionId', type: 'bytes' },
] as const;

const PAYMENT_DATA = [
  ...TRANSACTION,
  { name: 'orderId', type: 'bytes32' },
  { name: 'recipient', type: 'bytes' },
  { name: 'currency', type: 'bytes' },
  { name: 'minimumAmount', type: 'uint256' },
] as const;

const PAYMENT_RESULT = [
  { name: 'solver', type: 'bytes' },
  { name: 'recipient', type: 'bytes' },
  { name: 'currency', type: 'bytes' },
  { name: 'amount', type: 'uint256' },
] as const;

interface KindTypes {
  readonly primaryType: string;
  readonly types: Record<string, readonly { name: string; type: string }[]>;
}

/** The EIP-712 types of each kind; a test pins their type hashes, since changing one invalidates every signer. */
export const ATTESTATION_TYPES: Readonly<Record<AttestationKind, KindTypes>> = {
  'depository-deposit': {
    primaryType: 'DepositoryDeposit',
    types: {
      DepositoryDeposit: [
        { name: 'data', type: 'Transaction' },
        { name: 'result', type: 'DepositResult' },
      ],
      Transaction: TRANSACTION,
      DepositResult: [
        { name: 'depository', type: 'bytes' },
        { name: 'depositId', type: 'bytes32' },
        { name: 'depositor', type: 'bytes' },
        { name: 'currency', type: 'bytes' },
        { name: 'amount', type: 'uint256' },
        { name: 'logIndex', type: 'uint256' },
      ],
    },
  },
  'depository-withdrawal': {
    primaryType: 'DepositoryWithdrawal',
    types: {
      DepositoryWithdrawal: [
        { name: 'data', type: 'Transaction' },
        { name: 'result', type: 'WithdrawalResult' },
      ],
      Transaction: TRANSACTION,
      WithdrawalResult: [
        { name: 'depository', type: 'bytes' },
        { name: 'currency', type: 'bytes' },
        { name: 'recipient', type: 'bytes' },
        { name: 'amount', type: 'uint256' },
        { name: 'logIndex', type: 'uint256' },
      ],
    },
  },
  'solver-fill': paymentTypes('SolverFill'),
  'solver-refund': paymentTypes('SolverRefund'),
};

/** A fill and a refund are the same payment facts; only the primary type's name tells them apart. */
function paymentTypes(primaryType: 'SolverFill' | 'SolverRefund'): KindTypes {
  return {
    primaryType,
    types: {
      [primaryType]: [
        { name: 'data', type: 'PaymentOrder' },
        { name: 'result', type: 'Payment' },
      ],
      PaymentOrder: PAYMENT_DATA,
      Payment: PAYMENT_RESULT,
    },
  };
}

/** The domain every signature is bound to: the hub chain and its oracle contract (`configs/chains.hub.*.json`). */
export interface OracleDomain {
  readonly name: string;
  readonly version: string;
  readonly chainId: number;
  readonly verifyingContract: Hex;
}

/** The typed data a signer signs for `message` of `kind` under `domain` (viem's shape). */
export function typedDataOf<K extends AttestationKind>(
  kind: K,
  message: AttestationMessages[K],
  domain: OracleDomain,
) {
  const { primaryType, types } = ATTESTATION_TYPES[kind];
  return {
    domain: domain as TypedDataDomain,
    types: types as Record<string, { name: string; type: string }[]>,
    primaryType,
    message: message as unknown as Record<string, unknown>,
  };
}

/** The message id: the EIP-712 struct hash of the message, independent of the domain. */
export function messageIdOf(kind: AttestationKind, message: AttestationMessage): Hex {
  const { primaryType, types } = ATTESTATION_TYPES[kind];
  return hashStruct({
    types: types as Record<string, { name: string; type: string }[]>,
    primaryType,
    data: message as unknown as Record<string, unknown>,
  });
}

/** The digest a signature signs: `keccak256(0x1901 ‖ domainSeparator ‖ messageId)`. */
export function digestOf(kind: AttestationKind, message: AttestationMessage, domain: OracleDomain): Hex {
  return hashTypedData(typedDataOf(kind, message, domain));
}

/** Whether an untrusted domain (a peer's answer, a stored attestation) is exactly `ours`. */
export function sameDomain(
  ours: OracleDomain,
  theirs: Partial<Record<keyof OracleDomain, unknown>> | undefined,
): boolean {
  return (
    !!theirs &&
    theirs.name === ours.name &&
    theirs.version === ours.version &&
    Number(theirs.chainId) === ours.chainId &&
    typeof theirs.verifyingContract === 'string' &&
    theirs.verifyingContract.toLowerCase() === ours.verifyingContract.toLowerCase()
  );
}
