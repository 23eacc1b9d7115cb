import { Buffer } from 'node:buffer';
import {
  PublicKey,
  SystemInstruction,
  SystemProgram,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  associatedTokenAddress,
  buildSteps,
  MEMO_PROGRAM_ID,
  modelOriginSwapInstructions,
  SVM_NATIVE_CURRENCY,
  svmDepositInstructions,
  svmTransactionSize,
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

function sut(overrides: Partial<SvmStepsInput> = {}) {
  const steps = buildSteps(input(overrides));
  const data = steps[0]?.items[0]?.data as SvmTransactionData;
  const transaction = VersionedTransaction.deserialize(Buffer.from(data.serializedTransaction, 'base64'));
  const message = TransactionMessage.decompile(transaction.message);
  return { steps, data, transaction, message };
}

/** Rebuilds instructions from the step's JSON, as SVM wallet adapters do. */
const fromJson = (data: SvmTransactionData) =>
  data.instructions.map(
    (instruction) =>
      new TransactionInstruction({
        programId: new PublicKey(instruction.programId),
        keys: instruction.keys.map((key) => ({ ...key, pubkey: new PublicKey(key.pubkey) })),
        data: Buffer.from(instruction.data, 'hex'),
      }),
  );

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

  it('transfers SOL from the user to the depository, then a memo with the request id; the user pays', () => {
    const { transaction, message } = sut();
    expect(transaction.version).toBe(0);
    expect(transaction.message.header.numRequiredSignatures).toBe(1);
    expect(message.payerKey.toBase58()).toBe(svmUser);
    expect(message.recentBlockhash).toBe(recentBlockhash);
    const [transfer, memo, ...rest] = message.instructions;
    expect(rest).toEqual([]);
    expect(transfer?.programId.equals(SystemProgram.programId)).toBe(true);
    const decoded = SystemInstruction.decodeTransfer(transfer!);
    expect(decoded.fromPubkey.toBase58()).toBe(svmUser);
    expect(decoded.toPubkey.toBase58()).toBe(svmDepository);
    expect(decoded.lamports).toBe(2_500_000_000n);
    expect(memo?.programId.equals(MEMO_PROGRAM_ID)).toBe(true);
    expect(Buffer.from(memo!.data).toString('utf8')).toBe(requestId);
  });

  it("transfers an SPL token with TransferChecked between the user's and the depository's token accounts", () => {
    const { data: step, message } = sut({ currency: usdc, amount: 7_000_001n });
    const [transfer, memo] = message.instructions;
    const mint = new PublicKey(SVM_USDC_MINT);
    expect(transfer?.programId.equals(TOKEN_PROGRAM_ID)).toBe(true);
    expect(transfer?.keys.map((key) => key.pubkey.toBase58())).toEqual(
      step.instructions[0]?.keys.map((key) => key.pubkey),
    );
    // The instruction's own flags (the compiled message marks the user writable as the fee payer).
    expect(step.instructions[0]?.keys.map((key) => [key.pubkey, key.isSigner, key.isWritable])).toEqual([
      [associatedTokenAddress(new PublicKey(svmUser), mint).toBase58(), false, true],
      [SVM_USDC_MINT, false, false],
      [associatedTokenAddress(new PublicKey(svmDepository), mint).toBase58(), false, true],
      [svmUser, true, false],
    ]);
    const data = Buffer.from(transfer!.data);
    expect(data.length).toBe(10);
    expect(data.readUInt8(0)).toBe(12);
    expect(data.readBigUInt64LE(1)).toBe(7_000_001n);
    expect(data.readUInt8(9)).toBe(6);
    expect(Buffer.from(memo!.data).toString('utf8')).toBe(requestId);
  });

  it('derives associated token accounts with the ATA program', () => {
    const owner = new PublicKey(svmUser);
    const mint = new PublicKey(SVM_USDC_MINT);
    const [expected] = PublicKey.findProgramAddressSync(
      [owner.toBuffer(), TOKEN_PROGRAM_ID.toBuffer(), mint.toBuffer()],
      ASSOCIATED_TOKEN_PROGRAM_ID,
    );
    expect(associatedTokenAddress(owner, mint).equals(expected)).toBe(true);
    expect(PublicKey.isOnCurve(expected.toBytes())).toBe(false);
  });

  it('serves instructions (hex data without 0x) that rebuild the same transaction', () => {
    const { data, transaction } = sut({ currency: usdc });
    const rebuilt = new TransactionMessage({
      payerKey: new PublicKey(svmUser),
      recentBlockhash,
      instructions: fromJson(data),
    }).compileToV0Message();
    expect(Buffer.from(rebuilt.serialize())).toEqual(Buffer.from(transaction.message.serialize()));
  });

  it('stays within 1172 bytes, and counts its size exactly', () => {
    for (const overrides of [{}, { currency: usdc }, { currency: usdc, originSwap: { maxRouteLength: 3 } }]) {
      const { data, message } = sut(overrides);
      const size = Buffer.from(data.serializedTransaction, 'base64').length;
      expect(size).toBeLessThanOrEqual(1172);
      expect(svmTransactionSize(message.payerKey, message.instructions)).toBe(size);
    }
  });

  describe('origin swap model', () => {
    it('adds one swap instruction per allowed hop before the transfer', () => {
      const { message } = sut({ currency: usdc, originSwap: { maxRouteLength: 3 } });
      expect(message.instructions.map((instruction) => instruction.programId.toBase58())).toEqual([
        message.instructions[0]?.programId.toBase58(),
        message.instructions[0]?.programId.toBase58(),
        message.instructions[0]?.programId.toBase58(),
        TOKEN_PROGRAM_ID.toBase58(),
        MEMO_PROGRAM_ID.toBase58(),
      ]);
    });

    it('uses 4 hops when maxRouteLength is not set, which fits', () => {
      const { message } = sut({ currency: usdc, originSwap: {} });
      expect(message.instructions).toHaveLength(6);
    });

    it('refuses a transaction over 1172 bytes with ROUTE_TOO_LARGE and no calldata', () => {
      expectQuoteError(
        () => buildSteps(input({ currency: usdc, originSwap: { maxRouteLength: 10 } })),
        'ROUTE_TOO_LARGE',
        { limit: 1172 },
      );
      try {
        buildSteps(input({ currency: usdc, originSwap: { maxRouteLength: 10 } }));
      } catch (error) {
        expect((error as { errorData: { size: number } }).errorData.size).toBeGreaterThan(1172);
      }
    });

    it('follows the documented mitigations: maxRouteLength 4, then 3, then the compact aggregator', () => {
      const tooLarge = { currency: usdc, originSwap: { maxRouteLength: 5 } };
      expectQuoteError(() => buildSteps(input(tooLarge)), 'ROUTE_TOO_LARGE');
      expect(() => buildSteps(input({ ...tooLarge, originSwap: { maxRouteLength: 4 } }))).not.toThrow();
      expect(() => buildSteps(input({ ...tooLarge, originSwap: { maxRouteLength: 3 } }))).not.toThrow();
      expect(() =>
        buildSteps(
          input({ ...tooLarge, originSwap: { maxRouteLength: 5, includedOriginSwapSources: ['jupiter'] } }),
        ),
      ).not.toThrow();
    });

    it('models the compact aggregator only when it is the only source allowed', () => {
      const both = { maxRouteLength: 5, includedOriginSwapSources: ['jupiter', 'other-dex'] };
      expectQuoteError(() => buildSteps(input({ currency: usdc, originSwap: both })), 'ROUTE_TOO_LARGE');
    });

    it('gives the sizes docs/steps.md tabulates', () => {
      const size = (native: boolean, source: 'compact' | 'other', hops: number) => {
        const payer = new PublicKey(svmUser);
        const instructions = svmDepositInstructions({
          requestId,
          user: svmUser,
          depository: svmDepository,
          currency: native
            ? { address: SVM_NATIVE_CURRENCY, decimals: 9, isNative: true }
            : { address: SVM_USDC_MINT, decimals: 6, isNative: false },
          amount: 1n,
          recentBlockhash,
          swapInstructions: hops ? modelOriginSwapInstructions(payer, { hops, source }) : [],
        });
        return svmTransactionSize(payer, instructions);
      };
      expect([0, 1, 2, 3, 4, 5].map((hops) => size(true, 'other', hops))).toEqual([
        318, 568, 754, 940, 1126, 1312,
      ]);
      expect([0, 1, 2, 3, 4, 5].map((hops) => size(false, 'other', hops))).toEqual([
        382, 600, 786, 972, 1158, 1344,
      ]);
      expect([5, 6, 7].map((hops) => size(true, 'compact', hops))).toEqual([982, 1102, 1222]);
      expect([5, 6, 7].map((hops) => size(false, 'compact', hops))).toEqual([1014, 1134, 1254]);
    });

    it('refuses a maxRouteLength that is not a positive integer', () => {
      expectQuoteError(() => buildSteps(input({ originSwap: { maxRouteLength: 0 } })), 'INVALID_INPUT', {
        field: 'maxRouteLength',
      });
    });
  });

  it('refuses a user that is not an SVM address', () => {
    expectQuoteError(
      () => buildSteps(input({ user: '0x1111111111111111111111111111111111111111' })),
      'INVALID_ADDRESS',
      {
        field: 'user',
      },
    );
  });
});
