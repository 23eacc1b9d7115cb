import { resolve } from 'node:path';
import { type AbiParameter, encodeAbiParameters, type Hex, hashDomain, keccak256, toHex } from 'viem';
import { hubDomain } from '../../../src/oracle/config/oracle-config.js';
import {
  ATTESTATION_KINDS,
  ATTESTATION_TYPES,
  type AttestationKind,
  type AttestationMessage,
  type DepositoryDepositMessage,
  type DepositoryWithdrawalMessage,
  messageIdOf,
  type SolverPaymentMessage,
} from '../../../src/oracle/messages/oracle-messages.js';

/**
 * Every oracle signature, every peer's and every onchain FerryOracleVerifier check depends on these exact types: a
 * renamed, reordered or retyped field gives other message ids, so instances of two versions stop agreeing and old
 * signatures stop verifying. The literals below were computed once; a change to the types must change them on purpose.
 */
const TYPE_STRINGS = {
  DepositoryDeposit:
    'DepositoryDeposit(Transaction data,DepositResult result)' +
    'DepositResult(bytes depository,bytes32 depositId,bytes depositor,bytes currency,uint256 amount,uint256 logIndex)' +
    'Transaction(uint256 chainId,bytes transactionId)',
  DepositoryWithdrawal:
    'DepositoryWithdrawal(Transaction data,WithdrawalResult result)' +
    'Transaction(uint256 chainId,bytes transactionId)' +
    'WithdrawalResult(bytes depository,bytes currency,bytes recipient,uint256 amount,uint256 logIndex)',
  SolverFill:
    'SolverFill(PaymentOrder data,Payment result)' +
    'Payment(bytes solver,bytes recipient,bytes currency,uint256 amount)' +
    'PaymentOrder(uint256 chainId,bytes transactionId,bytes32 orderId,bytes recipient,bytes currency,uint256 minimumAmount)',
  SolverRefund:
    'SolverRefund(PaymentOrder data,Payment result)' +
    'Payment(bytes solver,bytes recipient,bytes currency,uint256 amount)' +
    'PaymentOrder(uint256 chainId,bytes transactionId,bytes32 orderId,bytes recipient,bytes currency,uint256 minimumAmount)',
  Transaction: 'Transaction(uint256 chainId,bytes transactionId)',
  DepositResult:
    'DepositResult(bytes depository,bytes32 depositId,bytes depositor,bytes currency,uint256 amount,uint256 logIndex)',
  WithdrawalResult:
    'WithdrawalResult(bytes depository,bytes currency,bytes recipient,uint256 amount,uint256 logIndex)',
  PaymentOrder:
    'PaymentOrder(uint256 chainId,bytes transactionId,bytes32 orderId,bytes recipient,bytes currency,uint256 minimumAmount)',
  Payment: 'Payment(bytes solver,bytes recipient,bytes currency,uint256 amount)',
} as const;

const TYPE_HASHES: Readonly<Record<keyof typeof TYPE_STRINGS, Hex>> = {
  DepositoryDeposit: '0xf95e7596673a26f0fff8ce9b729c8c8682926aaa5ea4649b3dc7737be30b08ad',
  DepositoryWithdrawal: '0x672caddeb2ac560843653a2b31c886b1b5efedcd0bd6ef223f9db9ea2bca9c0f',
  SolverFill: '0x689920dba3a11e32f03a6c724387c0bd723c5949567be1f6a44981c2522c4309',
  SolverRefund: '0x1dac74729ba7163e6e9acd431b2936fb3ae1864e87f01bb7f0deb3c8c3b122fe',
  Transaction: '0xc814a81ce33718cb15597ee17acc888b2c506febf8ebf119450fba7b21976455',
  DepositResult: '0x39f9ad3a73ea6505f9c4c7605e04e7912e9ed521ad3bd2965d204be49d3adf72',
  WithdrawalResult: '0xf591684b88aaf24772566821149d576ee62897cb0f6b6546cfac6cca0b19220c',
  PaymentOrder: '0xd3116c4bf87d7733e72c412cfa9558de0900c148fcf8ed38ae6cb75a137ede9d',
  Payment: '0x904916dbf7d4f897f775d156dd3e2f03f7cdcaf195047408a3f5b31a855dffc7',
};

/** The domain separator of `configs/chains.hub.development.json` (devnet hub 31337, its FerryOracleVerifier). */
const DEVELOPMENT_DOMAIN_SEPARATOR = '0x14c9da6748e8bc529ca46659234919c99f747ab52cd76b36397f65af9f265723';

const SAMPLE_DEPOSIT: DepositoryDepositMessage = {
  data: { chainId: '8453', transactionId: `0x${'ab'.repeat(32)}` },
  result: {
    depository: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    depositId: `0x${'01'.repeat(32)}`,
    depositor: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    currency: '0x0000000000000000000000000000000000000000',
    amount: '1000000000000000000',
    logIndex: '3',
  },
};
/** messageIdOf('depository-deposit', SAMPLE_DEPOSIT), computed once. */
const SAMPLE_DEPOSIT_ID = '0x94de5b9ec7393f51da5cf46e9e696772e10cdbd454fdbf7edc6eb71a1f4b95b4';

const SAMPLE_WITHDRAWAL: DepositoryWithdrawalMessage = {
  data: { chainId: '31337', transactionId: `0x${'cd'.repeat(32)}` },
  result: {
    depository: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    currency: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
    recipient: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    amount: '2500000',
    logIndex: '0',
  },
};

const SAMPLE_PAYMENT: SolverPaymentMessage = {
  data: {
    chainId: '31338',
    transactionId: `0x${'ef'.repeat(32)}`,
    orderId: `0x${'02'.repeat(32)}`,
    recipient: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    currency: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
    minimumAmount: '990000',
  },
  result: {
    solver: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    recipient: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    currency: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
    amount: '1000000',
  },
};

type Field = ['uint256', string] | ['bytes32', Hex] | ['bytes', Hex];

/** EIP-712 `hashStruct` by hand: `keccak256(typeHash ‖ fields)`, a `bytes` field as its hash, a struct as its hash. */
function structHash(typeHash: Hex, fields: readonly Field[]): Hex {
  const words = fields.map(([type, value]): [string, unknown] =>
    type === 'uint256'
      ? ['uint256', BigInt(value)]
      : ['bytes32', type === 'bytes' ? keccak256(value) : value],
  );
  const parameters: AbiParameter[] = [{ type: 'bytes32' }, ...words.map(([type]) => ({ type }))];
  return keccak256(encodeAbiParameters(parameters, [typeHash, ...words.map(([, value]) => value)]));
}

const transactionHash = ({ chainId, transactionId }: { chainId: string; transactionId: Hex }) =>
  structHash(TYPE_HASHES.Transaction, [
    ['uint256', chainId],
    ['bytes', transactionId],
  ]);

const paymentHash = (primary: 'SolverFill' | 'SolverRefund', { data, result }: SolverPaymentMessage) =>
  structHash(TYPE_HASHES[primary], [
    [
      'bytes32',
      structHash(TYPE_HASHES.PaymentOrder, [
        ['uint256', data.chainId],
        ['bytes', data.transactionId],
        ['bytes32', data.orderId],
        ['bytes', data.recipient],
        ['bytes', data.currency],
        ['uint256', data.minimumAmount],
      ]),
    ],
    [
      'bytes32',
      structHash(TYPE_HASHES.Payment, [
        ['bytes', result.solver],
        ['bytes', result.recipient],
        ['bytes', result.currency],
        ['uint256', result.amount],
      ]),
    ],
  ]);

/** Each kind's sample and its id rebuilt from the pinned type hashes alone. */
const BY_HAND: Readonly<Record<AttestationKind, { message: AttestationMessage; id: Hex }>> = {
  'depository-deposit': {
    message: SAMPLE_DEPOSIT,
    id: structHash(TYPE_HASHES.DepositoryDeposit, [
      ['bytes32', transactionHash(SAMPLE_DEPOSIT.data)],
      [
        'bytes32',
        structHash(TYPE_HASHES.DepositResult, [
          ['bytes', SAMPLE_DEPOSIT.result.depository],
          ['bytes32', SAMPLE_DEPOSIT.result.depositId],
          ['bytes', SAMPLE_DEPOSIT.result.depositor],
          ['bytes', SAMPLE_DEPOSIT.result.currency],
          ['uint256', SAMPLE_DEPOSIT.result.amount],
          ['uint256', SAMPLE_DEPOSIT.result.logIndex],
        ]),
      ],
    ]),
  },
  'depository-withdrawal': {
    message: SAMPLE_WITHDRAWAL,
    id: structHash(TYPE_HASHES.DepositoryWithdrawal, [
      ['bytes32', transactionHash(SAMPLE_WITHDRAWAL.data)],
      [
        'bytes32',
        structHash(TYPE_HASHES.WithdrawalResult, [
          ['bytes', SAMPLE_WITHDRAWAL.result.depository],
          ['bytes', SAMPLE_WITHDRAWAL.result.currency],
          ['bytes', SAMPLE_WITHDRAWAL.result.recipient],
          ['uint256', SAMPLE_WITHDRAWAL.result.amount],
          ['uint256', SAMPLE_WITHDRAWAL.result.logIndex],
        ]),
      ],
    ]),
  },
  'solver-fill': { message: SAMPLE_PAYMENT, id: paymentHash('SolverFill', SAMPLE_PAYMENT) },
  'solver-refund': { message: SAMPLE_PAYMENT, id: paymentHash('SolverRefund', SAMPLE_PAYMENT) },
};

describe('oracle EIP-712 messages', () => {
  it('pins the type hash of every type as keccak256 of its encodeType string', () => {
    for (const [name, typeString] of Object.entries(TYPE_STRINGS)) {
      expect([name, keccak256(toHex(typeString))]).toEqual([
        name,
        TYPE_HASHES[name as keyof typeof TYPE_STRINGS],
      ]);
    }
  });

  it('names the pinned primary type for every kind', () => {
    expect(ATTESTATION_KINDS.map((kind) => ATTESTATION_TYPES[kind].primaryType)).toEqual([
      'DepositoryDeposit',
      'DepositoryWithdrawal',
      'SolverFill',
      'SolverRefund',
    ]);
  });

  it.each(ATTESTATION_KINDS)('gives %s messages the id the pinned type hashes give', (kind) => {
    const { message, id } = BY_HAND[kind];
    expect(messageIdOf(kind, message)).toBe(id);
  });

  it('gives a fixed sample deposit its pinned message id', () => {
    expect(messageIdOf('depository-deposit', SAMPLE_DEPOSIT)).toBe(SAMPLE_DEPOSIT_ID);
  });

  it('tells a fill from a refund of the same payment', () => {
    expect(messageIdOf('solver-fill', SAMPLE_PAYMENT)).not.toBe(messageIdOf('solver-refund', SAMPLE_PAYMENT));
  });

  it('pins the domain separator of the development hub (31337 and its FerryOracleVerifier)', () => {
    const domain = hubDomain({}, 'development', resolve('configs'));
    expect(domain).toEqual({
      name: 'FerryOracle',
      version: '1',
      chainId: 31337,
      verifyingContract: '0xbdEd0D2bf404bdcBa897a74E6657f1f12e5C6fb6',
    });
    expect(
      hashDomain({
        domain: { ...domain, chainId: BigInt(domain.chainId) },
        types: {
          EIP712Domain: [
            { name: 'name', type: 'string' },
            { name: 'version', type: 'string' },
            { name: 'chainId', type: 'uint256' },
            { name: 'verifyingContract', type: 'address' },
          ],
        },
      }),
    ).toBe(DEVELOPMENT_DOMAIN_SEPARATOR);
  });
});
