import { getAddMemoInstruction } from '@solana-program/memo';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import { type Address, createNoopSigner, type Instruction } from '@solana/kit';
import type { Hex } from 'viem';
import { QuoteError } from '../quote-error.js';
import { singleItemStep, type Step, type SvmTransactionData } from './step.js';
import {
  associatedTokenAddress,
  MEMO_PROGRAM_ID,
  SVM_RENT_EXEMPT_MINIMUM_LAMPORTS,
  svmAddress,
  svmSignerAddress,
} from './svm-programs.js';
import { compileSvmTransaction, instructionData } from './svm-transaction.js';

const U64_MAX = (1n << 64n) - 1n;

export interface SvmDepositParameters {
  readonly requestId: Hex;
  /** The user's base58 address: pays the fee and the transfer, and signs. */
  readonly user: string;
  /** Ferry's depository vault (base58): receives SOL, or owns the associated token account receiving the token. */
  readonly depository: string;
  /** The deposited currency: SOL (`isNative`) or a classic SPL Token mint (base58) with its decimals. */
  readonly currency: { readonly address: string; readonly decimals: number; readonly isNative: boolean };
  readonly amount: bigint;
  /** The chain's latest blockhash (base58), read from its RPC when the quote is made. */
  readonly recentBlockhash: string;
}

/** The memo that ties a deposit to its request: the request id as text, `0x` + 64 lowercase hex digits. */
export function svmDepositMemo(requestId: Hex): string {
  if (!/^0x[0-9a-f]{64}$/.test(requestId)) {
    throw new TypeError(`A request id is 0x + 64 lowercase hex digits; got ${requestId}`);
  }
  return requestId;
}

/**
 * The instructions of a deposit, in order (docs/svm.md):
 * - SOL: System `Transfer` user → vault;
 * - SPL: Associated Token `CreateIdempotent` of the vault's token account (paid by the user, a no-op when it exists),
 *   then SPL Token `TransferChecked` from the user's associated token account to the vault's;
 * - then a Memo carrying the request id.
 * Throws `INVALID_ADDRESS` for a malformed address or a user that cannot sign (off the curve), `INVALID_INPUT` for
 * an amount that is not a u64, and `AMOUNT_TOO_LOW` for a SOL amount that could not create a fresh vault account.
 */
export function svmDepositInstructions(parameters: SvmDepositParameters): Instruction[] {
  const user = createNoopSigner(svmSignerAddress(parameters.user, 'user'));
  const vault = svmAddress(parameters.depository, 'depository');
  const { amount } = parameters;
  if (amount <= 0n || amount > U64_MAX) {
    throw new QuoteError('INVALID_INPUT', `amount does not fit an SVM transfer (1 to 2^64 − 1): ${amount}`, {
      field: 'amount',
    });
  }
  const memo = getAddMemoInstruction(
    { memo: svmDepositMemo(parameters.requestId) },
    { programAddress: MEMO_PROGRAM_ID },
  );
  if (parameters.currency.isNative) {
    // A transfer into an account that does not exist yet must leave it rent-exempt or the transaction fails; the
    // vault is funded in advance, but the step must execute even if it is not (docs/svm.md, "Rent").
    if (amount < SVM_RENT_EXEMPT_MINIMUM_LAMPORTS) {
      throw new QuoteError(
        'AMOUNT_TOO_LOW',
        `An SVM SOL deposit is at least ${SVM_RENT_EXEMPT_MINIMUM_LAMPORTS} lamports (the rent-exempt minimum of an account)`,
        { minimumAmount: SVM_RENT_EXEMPT_MINIMUM_LAMPORTS.toString(), amount: amount.toString() },
      );
    }
    return [getTransferSolInstruction({ source: user, destination: vault, amount }), memo];
  }
  const mint = svmAddress(parameters.currency.address, 'currency');
  const vaultTokens = associatedTokenAddress(vault, mint);
  return [
    getCreateAssociatedTokenIdempotentInstruction({ payer: user, ata: vaultTokens, owner: vault, mint }),
    getTransferCheckedInstruction({
      source: associatedTokenAddress(user.address, mint),
      mint,
      destination: vaultTokens,
      authority: user,
      amount,
      decimals: parameters.currency.decimals,
    }),
    memo,
  ];
}

/**
 * `deposit` (transaction) from the SVM chain: the unsigned v0 transaction (base64) and the instructions it was
 * compiled from. Over 1172 bytes it is refused with `ROUTE_TOO_LARGE`: no transaction that cannot be sent.
 */
export function buildSvmDepositStep(parameters: SvmDepositParameters): Step<SvmTransactionData> {
  const instructions = svmDepositInstructions(parameters);
  const payer: Address = svmSignerAddress(parameters.user, 'user');
  const transaction = compileSvmTransaction(payer, parameters.recentBlockhash, instructions);
  return singleItemStep({
    id: 'deposit',
    action: 'Confirm transaction in your wallet',
    description: 'Deposit funds to the depository to execute the request',
    kind: 'transaction',
    requestId: parameters.requestId,
    data: {
      serializedTransaction: transaction.base64,
      instructions: instructions.map(instructionData),
      addressLookupTableAddresses: [],
    },
  });
}
