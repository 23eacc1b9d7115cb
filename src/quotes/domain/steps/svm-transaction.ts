import { Buffer } from 'node:buffer';
import {
  type Address,
  appendTransactionMessageInstructions,
  type Blockhash,
  compileTransaction,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getTransactionEncoder,
  type Instruction,
  isSignerRole,
  isWritableRole,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit';
import { QuoteError } from '../quote-error.js';
import type { SvmInstructionData } from './step.js';

/** Hard size limit of an SVM transaction, the bytes wallets may prepend (compute budget), and what is left. */
export const SVM_TRANSACTION_SIZE_LIMIT = 1232;
export const SVM_COMPUTE_BUDGET_RESERVE = 60;
export const SVM_QUOTE_SIZE_LIMIT = SVM_TRANSACTION_SIZE_LIMIT - SVM_COMPUTE_BUDGET_RESERVE;

export interface CompiledSvmTransaction {
  /** The wire transaction, base64, with an empty (zeroed) signature slot per signer. */
  readonly base64: string;
  /** Its exact size in bytes: what the wallet sends, apart from compute-budget instructions it adds. */
  readonly size: number;
}

/**
 * Compiles `instructions` into an unsigned v0 transaction paid by `payer` on `recentBlockhash` (no lookup tables)
 * and measures it by serializing it. Throws `ROUTE_TOO_LARGE` (`errorData: {size, limit: 1172}`) above the quote
 * limit, so no transaction a wallet could not send is ever returned.
 */
export function compileSvmTransaction(
  payer: Address,
  recentBlockhash: string,
  instructions: readonly Instruction[],
): CompiledSvmTransaction {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (draft) => setTransactionMessageFeePayer(payer, draft),
    // The last valid block height is not part of the wire format; the wallet and the chain enforce the lifetime.
    (draft) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: recentBlockhash as Blockhash, lastValidBlockHeight: 0n },
        draft,
      ),
    (draft) => appendTransactionMessageInstructions(instructions, draft),
  );
  const transaction = compileTransaction(message);
  const size = getTransactionEncoder().getSizeFromValue(transaction);
  if (size > SVM_QUOTE_SIZE_LIMIT) {
    throw new QuoteError(
      'ROUTE_TOO_LARGE',
      `The deposit transaction would be ${size} bytes, over the ${SVM_QUOTE_SIZE_LIMIT}-byte limit`,
      { size, limit: SVM_QUOTE_SIZE_LIMIT },
    );
  }
  return { base64: getBase64EncodedWireTransaction(transaction), size };
}

/** An instruction as JSON: base58 keys and program id, data as hex without `0x` (as wallet adapters read it). */
export function instructionData(instruction: Instruction): SvmInstructionData {
  return {
    keys: (instruction.accounts ?? []).map((account) => ({
      pubkey: account.address,
      isSigner: isSignerRole(account.role),
      isWritable: isWritableRole(account.role),
    })),
    programId: instruction.programAddress,
    data: Buffer.from(instruction.data ?? new Uint8Array()).toString('hex'),
  };
}
