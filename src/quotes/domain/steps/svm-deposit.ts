import { Buffer } from 'node:buffer';
import {
  PublicKey,
  SystemProgram,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import type { Hex } from 'viem';
import { QuoteError } from '../quote-error.js';
import { singleItemStep, type Step, type SvmInstructionData, type SvmTransactionData } from './step.js';

/** The SVM chain's id in quotes. */
export const SVM_CHAIN_ID = 792703809;

/** Hard size limit of an SVM transaction, the bytes wallets may prepend (compute budget), and what is left. */
export const SVM_TRANSACTION_SIZE_LIMIT = 1232;
export const SVM_COMPUTE_BUDGET_RESERVE = 60;
export const SVM_QUOTE_SIZE_LIMIT = SVM_TRANSACTION_SIZE_LIMIT - SVM_COMPUTE_BUDGET_RESERVE;

/** The native currency's address in the currency list (the system program id). */
export const SVM_NATIVE_CURRENCY = '11111111111111111111111111111111';

export const TOKEN_PROGRAM_ID = new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
export const ASSOCIATED_TOKEN_PROGRAM_ID = new PublicKey('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL');
export const MEMO_PROGRAM_ID = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

/** SPL Token instruction index of `TransferChecked`. */
const TRANSFER_CHECKED = 12;
const U64_MAX = (1n << 64n) - 1n;

/** The associated token account of `owner` for `mint` (classic SPL Token program). */
export function associatedTokenAddress(owner: PublicKey, mint: PublicKey): PublicKey {
  return PublicKey.findProgramAddressSync(
    [owner.toBuffer(), TOKEN_PROGRAM_ID.toBuffer(), mint.toBuffer()],
    ASSOCIATED_TOKEN_PROGRAM_ID,
  )[0];
}

export interface TransferCheckedParameters {
  readonly source: PublicKey;
  readonly mint: PublicKey;
  readonly destination: PublicKey;
  readonly owner: PublicKey;
  readonly amount: bigint;
  readonly decimals: number;
}

/** SPL Token `TransferChecked`: data `[12, amount u64 LE, decimals u8]`; accounts source, mint, destination, owner. */
export function transferCheckedInstruction(parameters: TransferCheckedParameters): TransactionInstruction {
  const data = Buffer.alloc(10);
  data.writeUInt8(TRANSFER_CHECKED, 0);
  data.writeBigUInt64LE(parameters.amount, 1);
  data.writeUInt8(parameters.decimals, 9);
  return new TransactionInstruction({
    programId: TOKEN_PROGRAM_ID,
    keys: [
      { pubkey: parameters.source, isSigner: false, isWritable: true },
      { pubkey: parameters.mint, isSigner: false, isWritable: false },
      { pubkey: parameters.destination, isSigner: false, isWritable: true },
      { pubkey: parameters.owner, isSigner: true, isWritable: false },
    ],
    data,
  });
}

/** A Memo program instruction carrying the request id as text (`0x` + 64 hex digits). */
export function requestMemoInstruction(requestId: Hex): TransactionInstruction {
  return new TransactionInstruction({
    programId: MEMO_PROGRAM_ID,
    keys: [],
    data: Buffer.from(requestId, 'utf8'),
  });
}

export interface SvmDepositParameters {
  readonly requestId: Hex;
  /** The user's base58 address: pays the fee and signs. */
  readonly user: string;
  /** Ferry's depository (base58): receives SOL, or owns the token account receiving the token. */
  readonly depository: string;
  /** The deposited currency: SOL (`isNative`) or an SPL mint (base58) with its decimals. */
  readonly currency: { readonly address: string; readonly decimals: number; readonly isNative: boolean };
  readonly amount: bigint;
  /** A recent blockhash (base58); the wallet may replace it, which does not change the size. */
  readonly recentBlockhash: string;
  /** Instructions of an origin swap, executed before the transfer (see `svm-swap-model.ts`). */
  readonly swapInstructions?: readonly TransactionInstruction[];
}

/** The instructions of a deposit: the swap (if any), the transfer to the depository, the memo. */
export function svmDepositInstructions(parameters: SvmDepositParameters): TransactionInstruction[] {
  const user = svmAddress(parameters.user, 'user');
  const depository = svmAddress(parameters.depository, 'depository');
  if (parameters.amount < 0n || parameters.amount > U64_MAX) {
    throw new QuoteError('INVALID_INPUT', `amount does not fit an SVM transfer (u64): ${parameters.amount}`, {
      field: 'amount',
    });
  }
  const transfer = parameters.currency.isNative
    ? SystemProgram.transfer({ fromPubkey: user, toPubkey: depository, lamports: parameters.amount })
    : splTransfer(parameters, user, depository);
  return [...(parameters.swapInstructions ?? []), transfer, requestMemoInstruction(parameters.requestId)];
}

function splTransfer(parameters: SvmDepositParameters, user: PublicKey, depository: PublicKey) {
  const mint = svmAddress(parameters.currency.address, 'currency');
  return transferCheckedInstruction({
    source: associatedTokenAddress(user, mint),
    mint,
    destination: associatedTokenAddress(depository, mint),
    owner: user,
    amount: parameters.amount,
    decimals: parameters.currency.decimals,
  });
}

/**
 * The serialized size of an unsigned v0 transaction of `instructions` paid by `payer`, without lookup tables: the
 * signatures (64 bytes per signer), the message header, the account keys, the blockhash and the instructions. Counted
 * rather than serialized because web3.js cannot serialize a message over 1232 bytes, and a too-large size is exactly
 * what must be reported.
 */
export function svmTransactionSize(
  payer: PublicKey,
  instructions: readonly TransactionInstruction[],
): number {
  const keys = new Map<string, boolean>([[payer.toBase58(), true]]);
  for (const instruction of instructions) {
    for (const key of instruction.keys) {
      const pubkey = key.pubkey.toBase58();
      keys.set(pubkey, (keys.get(pubkey) ?? false) || key.isSigner);
    }
    const program = instruction.programId.toBase58();
    keys.set(program, keys.get(program) ?? false);
  }
  const signers = [...keys.values()].filter(Boolean).length;
  const instructionBytes = instructions.reduce(
    (total, { keys: metas, data }) =>
      total + 1 + shortVecLength(metas.length) + metas.length + shortVecLength(data.length) + data.length,
    0,
  );
  return (
    shortVecLength(signers) +
    64 * signers +
    1 + // version prefix (v0)
    3 + // header
    shortVecLength(keys.size) +
    32 * keys.size +
    32 + // recent blockhash
    shortVecLength(instructions.length) +
    instructionBytes +
    shortVecLength(0) // address table lookups
  );
}

/** Bytes of a compact-u16 length prefix. */
function shortVecLength(length: number): number {
  return length < 0x80 ? 1 : length < 0x4000 ? 2 : 3;
}

/** The unsigned v0 transaction of a deposit (no lookup tables). Only for transactions within 1232 bytes. */
export function buildSvmDepositTransaction(
  parameters: SvmDepositParameters,
  instructions: readonly TransactionInstruction[] = svmDepositInstructions(parameters),
): VersionedTransaction {
  const message = new TransactionMessage({
    payerKey: svmAddress(parameters.user, 'user'),
    recentBlockhash: parameters.recentBlockhash,
    instructions: [...instructions],
  }).compileToV0Message();
  return new VersionedTransaction(message);
}

/**
 * `deposit` (transaction) from the SVM chain: the serialized transaction and its instructions. A transaction over
 * 1172 bytes is refused with `ROUTE_TOO_LARGE` (`errorData: {size, limit}`): no calldata that cannot be sent.
 */
export function buildSvmDepositStep(parameters: SvmDepositParameters): Step<SvmTransactionData> {
  const instructions = svmDepositInstructions(parameters);
  const size = svmTransactionSize(svmAddress(parameters.user, 'user'), instructions);
  if (size > SVM_QUOTE_SIZE_LIMIT) {
    throw new QuoteError(
      'ROUTE_TOO_LARGE',
      `The deposit transaction would be ${size} bytes, over the ${SVM_QUOTE_SIZE_LIMIT}-byte limit; retry with maxRouteLength 3, or includedOriginSwapSources ["jupiter"]`,
      { size, limit: SVM_QUOTE_SIZE_LIMIT },
    );
  }
  const transaction = buildSvmDepositTransaction(parameters, instructions);
  return singleItemStep({
    id: 'deposit',
    action: 'Confirm transaction in your wallet',
    description: 'Deposit funds to the depository to execute the request',
    kind: 'transaction',
    requestId: parameters.requestId,
    data: {
      serializedTransaction: Buffer.from(transaction.serialize()).toString('base64'),
      instructions: instructions.map(instructionData),
      addressLookupTableAddresses: [],
    },
  });
}

/** An instruction as JSON: base58 keys and program id, data as hex without `0x` (as wallet adapters read it). */
export function instructionData(instruction: TransactionInstruction): SvmInstructionData {
  return {
    keys: instruction.keys.map((key) => ({
      pubkey: key.pubkey.toBase58(),
      isSigner: key.isSigner,
      isWritable: key.isWritable,
    })),
    programId: instruction.programId.toBase58(),
    data: Buffer.from(instruction.data).toString('hex'),
  };
}

/** A base58 SVM address; else `INVALID_ADDRESS` naming the field. */
export function svmAddress(value: string, field: string): PublicKey {
  try {
    const key = new PublicKey(value);
    if (key.toBase58() === value) return key;
  } catch {
    // reported below
  }
  throw new QuoteError('INVALID_ADDRESS', `${field} is not an SVM address: ${JSON.stringify(value)}`, {
    field,
  });
}
