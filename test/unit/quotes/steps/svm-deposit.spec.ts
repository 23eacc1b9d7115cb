import { Buffer } from 'node:buffer';
import { findAssociatedTokenPda } from '@solana-program/token';
import {
  AccountRole,
  address,
  appendTransactionMessageInstructions,
  type Blockhash,
  compileTransaction,
  createTransactionMessage,
  decompileTransactionMessage,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  getTransactionEncoder,
  type Instruction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit';
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  associatedTokenAddress,
  buildSteps,
  compileSvmTransaction,
  MEMO_PROGRAM_ID,
  SVM_NATIVE_CURRENCY,
  SVM_RENT_EXEMPT_MINIMUM_LAMPORTS,
  svmDepositInstructions,
  type SvmStepsInput,
  type SvmTransactionData,
  TOKEN_PROGRAM_ID,
} from '../../../../src/quotes/domain/steps/index.js';
import {
  chain,
  currency,
  expectQuoteError,
  recentBlockhash,
  requestId,
  SVM_USDC_MINT,
  svmDepository,
  svmUser,
} from './fixtures.js';

const sol = currency({
  chainId: 792703809,
  address: SVM_NATIVE_CURRENCY,
  symbol: 'SOL',
  decimals: 9,
  metadata: { logoURI: '', verified: true, isNative: true },
  supportsPermit: false,
  eip712: undefined,
});
const usdc = currency({
  chainId: 792703809,
  address: SVM_USDC_MINT,
  supportsPermit: false,
  eip712: undefined,
});
const svm = chain({
  id: 792703809,
  name: 'svm',
  vmType: 'svm',
  depository: svmDepository,
  currencies: [sol, usdc],
});
const input = (overrides: Partial<SvmStepsInput> = {}): SvmStepsInput => ({
  vmType: 'svm',
  requestId,
  origin: svm,
  currency: sol,
  amount: 2_500_000_000n,
  user: svmUser,
  recentBlockhash,
  ...overrides,
});
const SYSTEM_PROGRAM = address(SVM_NATIVE_CURRENCY);

/** Builds the steps and decodes the returned wire transaction as a wallet would. */
function sut(overrides: Partial<SvmStepsInput> = {}) {
  const steps = buildSteps(input(overrides));
  const data = steps[0]?.items[0]?.data as SvmTransactionData;
  const wire = Buffer.from(data.serializedTransaction, 'base64');
  const transaction = getTransactionDecoder().decode(wire);
  const message = decompileTransactionMessage(
    getCompiledTransactionMessageDecoder().decode(transaction.messageBytes),
  );
  return { steps, data, wire, transaction, message };
}

/** Rebuilds instructions from the step's JSON, as SVM wallet adapters do. */
const fromJson = (data: SvmTransactionData): Instruction[] =>
  data.instructions.map((instruction) => ({
    programAddress: address(instruction.programId),
    accounts: instruction.keys.map((key) => ({
      address: address(key.pubkey),
      role: key.isSigner
        ? key.isWritable
          ? AccountRole.WRITABLE_SIGNER
          : AccountRole.READONLY_SIGNER
        : key.isWritable
          ? AccountRole.WRITABLE
          : AccountRole.READONLY,
    })),
    data: Uint8Array.from(Buffer.from(instruction.data, 'hex')),
  }));

const accountsOf = (instruction: Instruction | undefined) =>
  (instruction?.accounts ?? []).map((account) => [account.address, account.role]);

describe('SVM deposit', () => {
  it('returns one deposit transaction step with the serialized transaction and its instructions', () => {
    const { steps, data } = sut();
    expect(steps.map((step) => [step.id, step.kind, step.depositAddress])).toEqual([
      ['deposit', 'transaction', ''],
    ]);
    expect(Object.keys(data).sort()).toEqual([
      'addressLookupTableAddresses',
      'instructions',
      'serializedTransaction',
    ]);
    expect(data.addressLookupTableAddresses).toEqual([]);
  });

  it('transfers SOL from the user to the depository, then a memo with the request id; the user pays and signs', () => {
    const { transaction, message } = sut();
    expect(message.version).toBe(0);
    expect(Object.entries(transaction.signatures)).toEqual([[svmUser, null]]);
    expect(message.feePayer.address).toBe(svmUser);
    expect((message.lifetimeConstraint as { blockhash: string }).blockhash).toBe(recentBlockhash);
    const [transfer, memo, ...rest] = message.instructions;
    expect(rest).toEqual([]);
    expect(transfer?.programAddress).toBe(SYSTEM_PROGRAM);
    expect(accountsOf(transfer)).toEqual([
      [svmUser, AccountRole.WRITABLE_SIGNER],
      [svmDepository, AccountRole.WRITABLE],
    ]);
    const data = Buffer.from(transfer!.data!);
    expect(data.readUInt32LE(0)).toBe(2); // System `Transfer`
    expect(data.readBigUInt64LE(4)).toBe(2_500_000_000n);
    expect(memo?.programAddress).toBe(MEMO_PROGRAM_ID);
    expect(memo?.accounts ?? []).toEqual([]);
    expect(Buffer.from(memo!.data!).toString('utf8')).toBe(requestId);
  });

  it("creates the vault's token account if missing, then TransferChecked from the user's, then the memo", () => {
    const { data: step, message } = sut({ currency: usdc, amount: 7_000_001n });
    const [create, transfer, memo, ...rest] = message.instructions;
    expect(rest).toEqual([]);
    const mint = address(SVM_USDC_MINT);
    const vaultTokens = associatedTokenAddress(address(svmDepository), mint);
    expect(create?.programAddress).toBe(ASSOCIATED_TOKEN_PROGRAM_ID);
    expect(Buffer.from(create!.data!)).toEqual(Buffer.from([1])); // `CreateIdempotent`
    expect(step.instructions[0]?.keys.map((key) => [key.pubkey, key.isSigner, key.isWritable])).toEqual([
      [svmUser, true, true],
      [vaultTokens, false, true],
      [svmDepository, false, false],
      [SVM_USDC_MINT, false, false],
      [SVM_NATIVE_CURRENCY, false, false],
      [TOKEN_PROGRAM_ID, false, false],
    ]);
    expect(transfer?.programAddress).toBe(TOKEN_PROGRAM_ID);
    expect(step.instructions[1]?.keys.map((key) => [key.pubkey, key.isSigner, key.isWritable])).toEqual([
      [associatedTokenAddress(address(svmUser), mint), false, true],
      [SVM_USDC_MINT, false, false],
      [vaultTokens, false, true],
      [svmUser, true, false],
    ]);
    const data = Buffer.from(transfer!.data!);
    expect(data.length).toBe(10);
    expect(data.readUInt8(0)).toBe(12); // SPL Token `TransferChecked`
    expect(data.readBigUInt64LE(1)).toBe(7_000_001n);
    expect(data.readUInt8(9)).toBe(6);
    expect(Buffer.from(memo!.data!).toString('utf8')).toBe(requestId);
  });

  it("derives associated token accounts as kit's findAssociatedTokenPda does", async () => {
    for (const [owner, mint] of [
      [svmUser, SVM_USDC_MINT],
      [svmDepository, SVM_USDC_MINT],
      [svmDepository, 'So11111111111111111111111111111111111111112'],
    ] as const) {
      const [expected] = await findAssociatedTokenPda({
        owner: address(owner),
        mint: address(mint),
        tokenProgram: TOKEN_PROGRAM_ID,
      });
      expect(associatedTokenAddress(address(owner), address(mint))).toBe(expected);
    }
  });

  it('serves instructions (hex data without 0x) that rebuild the same transaction', () => {
    for (const overrides of [{}, { currency: usdc }]) {
      const { data, transaction } = sut(overrides);
      const rebuilt = compileTransaction(
        pipe(
          createTransactionMessage({ version: 0 }),
          (draft) => setTransactionMessageFeePayer(address(svmUser), draft),
          (draft) =>
            setTransactionMessageLifetimeUsingBlockhash(
              { blockhash: recentBlockhash as Blockhash, lastValidBlockHeight: 0n },
              draft,
            ),
          (draft) => appendTransactionMessageInstructions(fromJson(data), draft),
        ),
      );
      expect(Buffer.from(rebuilt.messageBytes)).toEqual(Buffer.from(transaction.messageBytes));
    }
  });

  it('stays within 1172 bytes as serialized', () => {
    for (const overrides of [{}, { currency: usdc }]) {
      const { wire, transaction } = sut(overrides);
      expect(wire.length).toBe(getTransactionEncoder().encode(transaction).length);
      expect(wire.length).toBeLessThanOrEqual(1172);
    }
  });

  it('refuses a transaction over 1172 bytes with ROUTE_TOO_LARGE and the real size', () => {
    const payer = address(svmUser);
    const filler = (seed: number): Instruction => ({
      programAddress: MEMO_PROGRAM_ID,
      data: new Uint8Array(100).fill(seed),
    });
    const instructions = Array.from({ length: 11 }, (_, index) => filler(index));
    expectQuoteError(() => compileSvmTransaction(payer, recentBlockhash, instructions), 'ROUTE_TOO_LARGE', {
      limit: 1172,
    });
    try {
      compileSvmTransaction(payer, recentBlockhash, instructions);
    } catch (error) {
      expect((error as { errorData: { size: number } }).errorData.size).toBeGreaterThan(1172);
    }
    expect(compileSvmTransaction(payer, recentBlockhash, instructions.slice(0, 9)).size).toBeLessThanOrEqual(
      1172,
    );
  });

  it('refuses a SOL deposit below the rent-exempt minimum (it could not create a fresh vault account)', () => {
    expectQuoteError(
      () => buildSteps(input({ amount: SVM_RENT_EXEMPT_MINIMUM_LAMPORTS - 1n })),
      'AMOUNT_TOO_LOW',
      { minimumAmount: SVM_RENT_EXEMPT_MINIMUM_LAMPORTS.toString() },
    );
    expect(() => buildSteps(input({ amount: SVM_RENT_EXEMPT_MINIMUM_LAMPORTS }))).not.toThrow();
    // SPL amounts have no such floor: the vault's token account is rent-exempt whoever created it.
    expect(() => buildSteps(input({ currency: usdc, amount: 1n }))).not.toThrow();
  });

  it('refuses an amount that is not a u64', () => {
    expectQuoteError(() => buildSteps(input({ currency: usdc, amount: 1n << 64n })), 'INVALID_INPUT', {
      field: 'amount',
    });
  });

  it('refuses a user, depository or mint that is not an SVM address', () => {
    expectQuoteError(
      () => buildSteps(input({ user: '0x1111111111111111111111111111111111111111' })),
      'INVALID_ADDRESS',
      { field: 'user' },
    );
    expectQuoteError(
      () =>
        svmDepositInstructions({
          ...input(),
          depository: 'not-base58!',
          currency: { ...sol, isNative: true },
        }),
      'INVALID_ADDRESS',
      { field: 'depository' },
    );
    expectQuoteError(() => buildSteps(input({ currency: { ...usdc, address: '0OIl' } })), 'INVALID_ADDRESS', {
      field: 'currency',
    });
  });
});
