import { Buffer } from 'node:buffer';
import { getAddMemoInstruction, LEGACY_MEMO_PROGRAM_ADDRESS_V1 } from '@solana-program/memo';
import { getTransferSolInstruction } from '@solana-program/system';
import { getTransferCheckedInstruction } from '@solana-program/token';
import {
  type Address,
  type Base64EncodedWireTransaction,
  createNoopSigner,
  createSolanaRpc,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  signTransaction,
  generateKeyPairSigner,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import type { Hex } from 'viem';
import type { ChainCurrency, ChainInfo } from '../../../src/chains/chain.js';
import { fetchSvmTransaction } from '../../../src/chains/svm/fetch-svm-transaction.js';
import { readSvmDeposit, type SvmTransactionRecord } from '../../../src/chains/svm/svm-deposit-reader.js';
import {
  associatedTokenAddress,
  buildSteps,
  compileSvmTransaction,
  MEMO_PROGRAM_ID,
  SVM_NATIVE_CURRENCY,
  type SvmTransactionData,
} from '../../../src/quotes/domain/steps/index.js';
import { SIGNATURE_FEE, SvmTestChain } from '../../support/litesvm.js';
import { SvmRpcServer } from '../../support/svm-rpc.js';
import { chain, currency } from '../../unit/quotes/steps/fixtures.js';

const requestId = (byte: string): Hex => `0x${byte.repeat(32)}` as Hex;
const sol: ChainCurrency = currency({
  chainId: 792703809,
  address: SVM_NATIVE_CURRENCY,
  symbol: 'SOL',
  decimals: 9,
  metadata: { logoURI: '', verified: true, isNative: true },
  supportsPermit: false,
  eip712: undefined,
});

/**
 * The SVM deposit reader on transactions LiteSVM executed: the deposit steps Ferry returns are credited with exactly
 * the facts the EVM watcher produces (request id, depositor, currency, amount, transaction, slot); transactions
 * built to mis-credit are not.
 */
describe(readSvmDeposit.name, () => {
  let svm: SvmTestChain;
  let user: KeyPairSigner;
  let vault: KeyPairSigner;
  let mint: KeyPairSigner;
  let usdc: ChainCurrency;
  let origin: ChainInfo;

  beforeEach(async () => {
    svm = new SvmTestChain();
    [user, vault, mint] = await Promise.all([
      generateKeyPairSigner(),
      generateKeyPairSigner(),
      generateKeyPairSigner(),
    ]);
    svm.airdrop(user.address, 10_000_000_000n);
    svm.airdrop(vault.address, 1_000_000_000n);
    svm.createMint(mint.address, 6);
    svm.fundTokens(user.address, mint.address, 50_000_000n);
    usdc = currency({ chainId: 792703809, address: mint.address, supportsPermit: false, eip712: undefined });
    origin = chain({
      id: 792703809,
      name: 'svm',
      vmType: 'svm',
      depository: vault.address,
      currencies: [sol, usdc],
    });
  });

  const step = (id: Hex, deposited: ChainCurrency, amount: bigint) =>
    (
      buildSteps({
        vmType: 'svm',
        requestId: id,
        origin,
        currency: deposited,
        amount,
        user: user.address,
        recentBlockhash: svm.vm.latestBlockhash(),
      })[0]!.items[0]!.data as SvmTransactionData
    ).serializedTransaction;
  const custom = (instructions: Instruction[]) =>
    compileSvmTransaction(user.address, svm.vm.latestBlockhash(), instructions).base64;
  const payer = () => createNoopSigner(user.address);
  const memo = (id: string) => getAddMemoInstruction({ memo: id }, { programAddress: MEMO_PROGRAM_ID });
  const solTo = (destination: Address, amount: bigint) =>
    getTransferSolInstruction({ source: payer(), destination, amount });
  const usdcTo = (destination: Address, amount: bigint) =>
    getTransferCheckedInstruction({
      source: associatedTokenAddress(user.address, mint.address),
      mint: mint.address,
      destination,
      authority: payer(),
      amount,
      decimals: 6,
    });
  const read = (record: SvmTransactionRecord) => readSvmDeposit(record, origin);

  it("credits Ferry's SOL deposit step with the facts of the transaction", async () => {
    const record = await svm.sendAndRecord(step(requestId('a1'), sol, 3_000_000_000n), user);
    expect(read(record)).toEqual({
      requestId: requestId('a1'),
      depositor: user.address,
      currency: SVM_NATIVE_CURRENCY,
      amount: 3_000_000_000n,
      txHash: record.signature,
      blockNumber: record.slot,
      logIndex: 0,
      timestamp: record.blockTime,
      fee: SIGNATURE_FEE,
    });
  });

  it("credits Ferry's SPL deposit step (the transfer is the second instruction, after the account creation)", async () => {
    const record = await svm.sendAndRecord(step(requestId('a2'), usdc, 12_345_678n), user);
    expect(read(record)).toMatchObject({
      requestId: requestId('a2'),
      depositor: user.address,
      currency: mint.address,
      amount: 12_345_678n,
      logIndex: 1,
    });
  });

  it('ignores a failed deposit and a transfer without a memo', async () => {
    const failed = await svm.sendAndRecord(step(requestId('b1'), usdc, 60_000_000n), user);
    expect(failed.failed).toBe(true);
    expect(read(failed)).toBeNull();
    const noMemo = await svm.sendAndRecord(custom([solTo(vault.address, 1_000_000n)]), user);
    expect(read(noMemo)).toBeNull();
  });

  it('attack: a memo naming a request with a transfer elsewhere credits nothing', async () => {
    const other = await generateKeyPairSigner();
    const record = await svm.sendAndRecord(
      custom([solTo(other.address, 1_000_000n), memo(requestId('c1'))]),
      user,
    );
    expect(read(record)).toEqual({ rejected: 'NO_TRANSFER_TO_VAULT', requestIds: [requestId('c1')] });
  });

  it("attack: tokens sent to someone else's token account under a request memo are not a deposit", async () => {
    const stranger = await generateKeyPairSigner();
    const elsewhere = svm.fundTokens(stranger.address, mint.address, 0n);
    const record = await svm.sendAndRecord(
      custom([usdcTo(elsewhere, 1_000_000n), memo(requestId('c2'))]),
      user,
    );
    expect(read(record)).toMatchObject({ rejected: 'NO_TRANSFER_TO_VAULT' });
  });

  it("attack: TransferChecked's exact bytes and accounts sent to another program (not SPL Token) credit nothing", async () => {
    // The legacy Memo program takes any accounts and any UTF-8 data, so it stands in for a fake token program: the
    // transaction succeeds, names the vault's token account and a listed mint, and moves nothing.
    const vaultTokens = associatedTokenAddress(vault.address, mint.address);
    const fake = getTransferCheckedInstruction(
      {
        source: associatedTokenAddress(user.address, mint.address),
        mint: mint.address,
        destination: vaultTokens,
        authority: payer(),
        amount: 1_000_000n,
        decimals: 6,
      },
      { programAddress: LEGACY_MEMO_PROGRAM_ADDRESS_V1 },
    );
    const record = await svm.sendAndRecord(custom([fake, memo(requestId('c3'))]), user);
    expect(record.failed).toBe(false);
    expect(read(record)).toEqual({ rejected: 'NO_TRANSFER_TO_VAULT', requestIds: [requestId('c3')] });
    expect(svm.tokensOf(vault.address, mint.address)).toBeNull();
  });

  it('attack: one transfer with memos for two requests credits neither', async () => {
    const record = await svm.sendAndRecord(
      custom([solTo(vault.address, 1_000_000n), memo(requestId('d1')), memo(requestId('d2'))]),
      user,
    );
    expect(read(record)).toEqual({
      rejected: 'MEMO_AMBIGUOUS',
      requestIds: [requestId('d1'), requestId('d2')],
    });
  });

  it('attack: two transfers into the vault under one memo are not summed into one deposit', async () => {
    const record = await svm.sendAndRecord(
      custom([solTo(vault.address, 1_000_000n), solTo(vault.address, 2_000_000n), memo(requestId('d3'))]),
      user,
    );
    expect(read(record)).toMatchObject({ rejected: 'TRANSFER_AMBIGUOUS' });
  });

  it('attack: a mint the chain does not list is not credited, even into the vault’s own token account', async () => {
    const fake = await generateKeyPairSigner();
    svm.createMint(fake.address, 6);
    svm.fundTokens(user.address, fake.address, 5_000_000n);
    const vaultFake = svm.fundTokens(vault.address, fake.address, 0n);
    const record = await svm.sendAndRecord(
      custom([
        getTransferCheckedInstruction({
          source: associatedTokenAddress(user.address, fake.address),
          mint: fake.address,
          destination: vaultFake,
          authority: payer(),
          amount: 5_000_000n,
          decimals: 6,
        }),
        memo(requestId('e1')),
      ]),
      user,
    );
    expect(read(record)).toMatchObject({ rejected: 'CURRENCY_NOT_LISTED' });
  });

  it('attack: an instruction that claims more than the vault received is refused (the balances are the effect)', async () => {
    const record = await svm.sendAndRecord(step(requestId('f1'), sol, 1_000_000_000n), user);
    const vaultLamports = record.lamports.get(vault.address)!;
    const forged = {
      ...record,
      lamports: new Map([
        ...record.lamports,
        [vault.address, { ...vaultLamports, post: vaultLamports.post - 1n }],
      ]),
    };
    expect(read(forged)).toMatchObject({ rejected: 'BALANCE_MISMATCH' });
  });

  it('ignores memos that are not request ids (another app’s memo next to a plain transfer)', async () => {
    const record = await svm.sendAndRecord(
      custom([solTo(vault.address, 1_000_000n), memo(`0x${'A1'.repeat(32)}`), memo('hello')]),
      user,
    );
    expect(read(record)).toBeNull();
  });

  /** Starts the LiteSVM-backed JSON-RPC server, sends `serialized` signed by the user through it, runs `use`. */
  const overRpc = async (
    serialized: string,
    use: (sent: {
      server: SvmRpcServer;
      signature: string;
      fetch: (signature: string) => Promise<SvmTransactionRecord | null>;
    }) => Promise<void>,
  ) => {
    const server = await new SvmRpcServer(svm).start();
    try {
      const rpc = createSolanaRpc(server.url);
      const signed = await signTransaction(
        [user.keyPair],
        getTransactionDecoder().decode(Buffer.from(serialized, 'base64')),
      );
      const wire: Base64EncodedWireTransaction = getBase64EncodedWireTransaction(signed);
      const signature = await rpc.sendTransaction(wire, { encoding: 'base64' }).send();
      const fetch = (which: string) =>
        fetchSvmTransaction({ rpc, signature: which, timeoutMs: 5000, commitment: 'finalized' });
      await use({ server, signature, fetch });
    } finally {
      await server.stop();
    }
  };

  it('given a signature, fetches the transaction over the SVM RPC (getTransaction) and reads the same deposit', async () => {
    await overRpc(step(requestId('a9'), usdc, 4_000_000n), async ({ signature, fetch }) => {
      const record = await fetch(signature);
      expect(read(record!)).toMatchObject({
        requestId: requestId('a9'),
        depositor: user.address,
        currency: mint.address,
        amount: 4_000_000n,
        txHash: signature,
        logIndex: 1,
        timestamp: Number(svm.vm.getClock().unixTimestamp),
        fee: SIGNATURE_FEE,
      });
      expect(await fetch('1'.repeat(64))).toBeNull();
    });
  });

  it('attack: a deposit whose block time the node does not report is not read as made in 1970 (before any quote expired)', async () => {
    await overRpc(step(requestId('a8'), sol, 2_000_000_000n), async ({ server, signature, fetch }) => {
      server.reportsBlockTime = false;
      expect(await fetch(signature)).toBeNull();
      server.reportsBlockTime = true;
      expect(read((await fetch(signature))!)).toMatchObject({
        requestId: requestId('a8'),
        timestamp: Number(svm.vm.getClock().unixTimestamp),
      });
    });
  });
});
