import { Buffer } from 'node:buffer';
import {
  LEGACY_MEMO_PROGRAM_ADDRESS_V1,
  LEGACY_MEMO_PROGRAM_ADDRESS_V3,
  MEMO_PROGRAM_ADDRESS,
} from '@solana-program/memo';
import { SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import {
  type Address,
  decompileTransactionMessage,
  getCompiledTransactionMessageDecoder,
  type Instruction,
} from '@solana/kit';
import { associatedTokenAddress } from '../../quotes/domain/steps/svm-programs.js';
import type { ChainInfo } from '../chain.js';

/**
 * One SVM transaction as the chain reports it (`getTransaction`): the message that was executed, whether it
 * succeeded, and the balances before and after of the accounts it touched, keyed by address (lamports) and by
 * token account (SPL amounts with their mint and owner).
 */
export interface SvmTransactionRecord {
  readonly signature: string;
  readonly slot: bigint;
  readonly blockTime: number;
  readonly fee: bigint;
  readonly failed: boolean;
  readonly messageBytes: Uint8Array;
  readonly lamports: ReadonlyMap<string, { readonly pre: bigint; readonly post: bigint }>;
  readonly tokens: ReadonlyMap<
    string,
    { readonly mint: string; readonly owner: string; readonly pre: bigint; readonly post: bigint }
  >;
}

/** A deposit into the vault: the same facts the EVM watcher reads from a depository log. */
export interface SvmDeposit {
  readonly requestId: string;
  readonly depositor: string;
  /** The SPL mint, or the system program id for SOL (the currency list's address). */
  readonly currency: string;
  readonly amount: bigint;
  readonly txHash: string;
  readonly blockNumber: bigint;
  /** The index of the transfer instruction in the transaction. */
  readonly logIndex: number;
  readonly timestamp: number;
  readonly fee: bigint;
}

/** Why a transaction that names a request is not credited (kept for operators, like an unmatched EVM deposit). */
export interface SvmDepositRejected {
  readonly rejected:
    | 'MEMO_AMBIGUOUS'
    | 'NO_TRANSFER_TO_VAULT'
    | 'TRANSFER_AMBIGUOUS'
    | 'CURRENCY_NOT_LISTED'
    | 'BALANCE_MISMATCH'
    | 'UNREADABLE';
  readonly requestIds: readonly string[];
}

const MEMO_PROGRAMS: readonly string[] = [
  LEGACY_MEMO_PROGRAM_ADDRESS_V1,
  LEGACY_MEMO_PROGRAM_ADDRESS_V3,
  MEMO_PROGRAM_ADDRESS,
];
const REQUEST_ID = /^0x[0-9a-f]{64}$/;
const SYSTEM_TRANSFER = 2;
const TRANSFER_CHECKED = 12;

/**
 * Reads a deposit out of one SVM transaction, by the rules of docs/svm.md ("What the deposit reader must check"):
 * a successful transaction with exactly one top-level memo that is a request id, and exactly one top-level transfer
 * into the vault (System `Transfer` to it, or `TransferChecked` of a listed mint to its associated token account),
 * whose amount the vault's balance change covers. Null when the transaction names no request or failed; a
 * rejection when it names one but breaks a rule. Pure: the caller fetches the record.
 */
export function readSvmDeposit(
  record: SvmTransactionRecord,
  chain: ChainInfo,
): SvmDeposit | SvmDepositRejected | null {
  if (record.failed) return null;
  let instructions: readonly Instruction[];
  try {
    const compiled = getCompiledTransactionMessageDecoder().decode(record.messageBytes);
    // Lookup tables would hide accounts behind table contents; deposit steps use none, so such a transaction is
    // not read (decompiling throws without the tables' addresses).
    instructions = decompileTransactionMessage(compiled).instructions;
  } catch {
    return { rejected: 'UNREADABLE', requestIds: [] };
  }
  const requestIds = [
    ...new Set(
      instructions
        .filter((instruction) => MEMO_PROGRAMS.includes(instruction.programAddress))
        .map((instruction) => Buffer.from(instruction.data ?? []).toString('utf8'))
        .filter((memo) => REQUEST_ID.test(memo)),
    ),
  ];
  if (requestIds.length === 0) return null;
  if (requestIds.length > 1) return { rejected: 'MEMO_AMBIGUOUS', requestIds };
  const vault = chain.depository as Address;
  const transfers = instructions.flatMap((instruction, index) => {
    const transfer = transferToVault(instruction, vault);
    return transfer ? [{ ...transfer, index }] : [];
  });
  if (transfers.length === 0) return { rejected: 'NO_TRANSFER_TO_VAULT', requestIds };
  if (transfers.length > 1) return { rejected: 'TRANSFER_AMBIGUOUS', requestIds };
  const [transfer] = transfers;
  const native = transfer.currency === SYSTEM_PROGRAM_ADDRESS;
  if (!native && !chain.currencies.some((currency) => currency.address === transfer.currency)) {
    return { rejected: 'CURRENCY_NOT_LISTED', requestIds };
  }
  // The vault must really be richer by the amount: an instruction's data is a claim, the balances are the effect.
  const change = native
    ? balanceChange(record.lamports.get(vault))
    : tokenChange(
        record,
        associatedTokenAddress(vault, transfer.currency as Address),
        vault,
        transfer.currency,
      );
  if (change < transfer.amount) return { rejected: 'BALANCE_MISMATCH', requestIds };
  return {
    requestId: requestIds[0],
    depositor: transfer.depositor,
    currency: transfer.currency,
    amount: transfer.amount,
    txHash: record.signature,
    blockNumber: record.slot,
    logIndex: transfer.index,
    timestamp: record.blockTime,
    fee: record.fee,
  };
}

/** A top-level transfer into the vault: its amount, currency and the wallet that paid. */
function transferToVault(
  instruction: Instruction,
  vault: Address,
): { amount: bigint; currency: string; depositor: string } | null {
  const data = Buffer.from(instruction.data ?? []);
  const accounts = instruction.accounts ?? [];
  if (instruction.programAddress === SYSTEM_PROGRAM_ADDRESS) {
    if (data.length !== 12 || data.readUInt32LE(0) !== SYSTEM_TRANSFER || accounts[1]?.address !== vault) {
      return null;
    }
    return {
      amount: data.readBigUInt64LE(4),
      currency: SYSTEM_PROGRAM_ADDRESS,
      depositor: accounts[0].address,
    };
  }
  if (instruction.programAddress === TOKEN_PROGRAM_ADDRESS) {
    if (data.length !== 10 || data.readUInt8(0) !== TRANSFER_CHECKED || accounts.length < 4) return null;
    const mint = accounts[1].address;
    if (accounts[2].address !== associatedTokenAddress(vault, mint)) return null;
    return { amount: data.readBigUInt64LE(1), currency: mint, depositor: accounts[3].address };
  }
  return null;
}

const balanceChange = (balance: { pre: bigint; post: bigint } | undefined): bigint =>
  balance ? balance.post - balance.pre : 0n;

function tokenChange(record: SvmTransactionRecord, account: string, owner: string, mint: string): bigint {
  const balance = record.tokens.get(account);
  if (!balance || balance.owner !== owner || balance.mint !== mint) return 0n;
  return balance.post - balance.pre;
}
