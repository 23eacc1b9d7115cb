import { getTransferSolInstruction } from '@solana-program/system';
import { getTransferCheckedInstruction } from '@solana-program/token';
import { address, createNoopSigner, generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import type { Hex } from 'viem';
import type { ChainCurrency, ChainInfo } from '../../../src/chains/chain.js';
import {
  associatedTokenAddress,
  buildSteps,
  compileSvmTransaction,
  SVM_NATIVE_CURRENCY,
  SVM_RENT_EXEMPT_MINIMUM_LAMPORTS,
  type SvmTransactionData,
} from '../../../src/quotes/domain/steps/index.js';
import { SIGNATURE_FEE, SvmTestChain } from '../../support/litesvm.js';
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
 * Every SVM step Ferry can return, executed in LiteSVM (the real System, SPL Token, Associated Token and Memo
 * programs): the step is built by the same domain function the quote service uses, on the blockhash LiteSVM reports,
 * signed with the user's key and sent. It must succeed, move exactly the quoted amount into the vault, and carry
 * the request id in its memo. The attacks: deposits that would fail or mis-credit if a rule were dropped.
 */
describe('SVM deposit steps executed in LiteSVM', () => {
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
    svm.createMint(mint.address, 6);
    usdc = currency({ chainId: 792703809, address: mint.address, supportsPermit: false, eip712: undefined });
    origin = chain({
      id: 792703809,
      name: 'svm',
      vmType: 'svm',
      depository: vault.address,
      currencies: [sol, usdc],
    });
  });

  const depositStep = (id: Hex, deposited: ChainCurrency, amount: bigint, payer: string = user.address) => {
    const [step] = buildSteps({
      vmType: 'svm',
      requestId: id,
      origin,
      currency: deposited,
      amount,
      user: payer,
      recentBlockhash: svm.vm.latestBlockhash(),
    });
    return step!.items[0]!.data as SvmTransactionData;
  };
  /** The Memo program ran (top level) and logged exactly the request id. */
  const memoLogged = (logs: readonly string[], id: Hex) =>
    logs.some(
      (line, index) =>
        line === 'Program MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr invoke [1]' &&
        logs[index + 1] === 'Program log: Memo (len 66)' &&
        logs[index + 2] === `Program log: ${id}`,
    );

  it('a SOL deposit moves exactly the quoted lamports into the vault, with the request id in its memo', async () => {
    svm.airdrop(vault.address, SVM_RENT_EXEMPT_MINIMUM_LAMPORTS); // the vault is funded in advance
    const [userBefore, vaultBefore] = [svm.lamportsOf(user.address), svm.lamportsOf(vault.address)];
    const id = requestId('a1');
    const sent = await svm.send(depositStep(id, sol, 1_234_567_890n).serializedTransaction, user);
    expect(sent).toMatchObject({ ok: true });
    expect(svm.lamportsOf(vault.address) - vaultBefore).toBe(1_234_567_890n);
    expect(userBefore - svm.lamportsOf(user.address)).toBe(1_234_567_890n + SIGNATURE_FEE);
    expect(memoLogged(sent.logs, id)).toBe(true);
  });

  it('a SOL deposit of the rent-exempt minimum executes even when the vault account does not exist yet', async () => {
    expect(svm.vm.getAccount(vault.address).exists).toBe(false);
    const sent = await svm.send(
      depositStep(requestId('a2'), sol, SVM_RENT_EXEMPT_MINIMUM_LAMPORTS).serializedTransaction,
      user,
    );
    expect(sent).toMatchObject({ ok: true });
    expect(svm.lamportsOf(vault.address)).toBe(SVM_RENT_EXEMPT_MINIMUM_LAMPORTS);
  });

  it('attack: a SOL transfer below the rent-exempt minimum into a fresh vault fails on chain, so Ferry never quotes one', async () => {
    // What the step would be without the AMOUNT_TOO_LOW rule: the chain refuses it (the user would pay the fee for
    // nothing), which is why buildSteps refuses the amount first.
    const payer = createNoopSigner(user.address);
    const transaction = compileSvmTransaction(user.address, svm.vm.latestBlockhash(), [
      getTransferSolInstruction({ source: payer, destination: vault.address, amount: 1000n }),
    ]);
    const sent = await svm.send(transaction.base64, user);
    expect(sent.ok).toBe(false);
    expect(svm.vm.getAccount(vault.address).exists).toBe(false);
    expect(() => depositStep(requestId('a3'), sol, 1000n)).toThrow(/rent-exempt/);
  });

  it("an SPL deposit creates the vault's token account when missing and moves exactly the quoted amount", async () => {
    svm.fundTokens(user.address, mint.address, 50_000_000n);
    expect(svm.tokensOf(vault.address, mint.address)).toBeNull();
    const userLamports = svm.lamportsOf(user.address);
    const id = requestId('b1');
    const sent = await svm.send(depositStep(id, usdc, 25_000_001n).serializedTransaction, user);
    expect(sent).toMatchObject({ ok: true });
    expect(svm.tokensOf(vault.address, mint.address)).toBe(25_000_001n);
    expect(svm.tokensOf(user.address, mint.address)).toBe(24_999_999n);
    // The user paid the fee and, once, the rent of the vault's token account.
    expect(userLamports - svm.lamportsOf(user.address)).toBe(SIGNATURE_FEE + 2_039_280n);
    expect(memoLogged(sent.logs, id)).toBe(true);
  });

  it('an SPL deposit into an existing vault token account leaves it in place and adds exactly the amount', async () => {
    svm.fundTokens(user.address, mint.address, 50_000_000n);
    svm.fundTokens(vault.address, mint.address, 7n); // created by Ferry in advance
    const userLamports = svm.lamportsOf(user.address);
    const id = requestId('b2');
    const sent = await svm.send(depositStep(id, usdc, 10_000_000n).serializedTransaction, user);
    expect(sent).toMatchObject({ ok: true });
    expect(svm.tokensOf(vault.address, mint.address)).toBe(10_000_007n);
    expect(svm.tokensOf(user.address, mint.address)).toBe(40_000_000n);
    expect(userLamports - svm.lamportsOf(user.address)).toBe(SIGNATURE_FEE);
    expect(memoLogged(sent.logs, id)).toBe(true);
  });

  it('two deposits carry their own request ids and both credit the vault', async () => {
    svm.fundTokens(user.address, mint.address, 3_000_000n);
    const first = await svm.send(depositStep(requestId('c1'), usdc, 1_000_000n).serializedTransaction, user);
    svm.vm.expireBlockhash(); // a new blockhash, as a later quote would read
    const second = await svm.send(depositStep(requestId('c2'), usdc, 2_000_000n).serializedTransaction, user);
    expect([first.ok, second.ok]).toEqual([true, true]);
    expect(memoLogged(first.logs, requestId('c1'))).toBe(true);
    expect(memoLogged(second.logs, requestId('c2'))).toBe(true);
    expect(svm.tokensOf(vault.address, mint.address)).toBe(3_000_000n);
  });

  it('attack: a currency listed with the wrong decimals cannot move tokens (TransferChecked refuses it)', async () => {
    svm.fundTokens(user.address, mint.address, 50_000_000n);
    const wrong = { ...usdc, decimals: 9 };
    const sent = await svm.send(depositStep(requestId('d1'), wrong, 1_000_000n).serializedTransaction, user);
    expect(sent.ok).toBe(false);
    expect(svm.tokensOf(user.address, mint.address)).toBe(50_000_000n);
  });

  it('attack: a deposit of more tokens than the user holds fails whole: nothing moves, no memo lands', async () => {
    svm.fundTokens(user.address, mint.address, 5n);
    const sent = await svm.send(depositStep(requestId('d2'), usdc, 6n).serializedTransaction, user);
    expect(sent.ok).toBe(false);
    expect(svm.tokensOf(user.address, mint.address)).toBe(5n);
    expect(svm.tokensOf(vault.address, mint.address)).toBeNull(); // the ATA creation rolled back too
  });

  it("attack: a transfer to another token account of the mint never reaches the vault; the step names the vault's own", async () => {
    // The step names the vault's associated token account; a hand-built transfer to any other token account of the
    // same mint moves nothing into the vault (the watcher must check the destination, docs/svm.md).
    svm.fundTokens(user.address, mint.address, 5_000_000n);
    const data = depositStep(requestId('d3'), usdc, 1_000_000n);
    const transfer = data.instructions[1]!;
    expect(transfer.keys[2]!.pubkey).toBe(associatedTokenAddress(vault.address, mint.address));
    const other = await generateKeyPairSigner();
    const forged = compileSvmTransaction(user.address, svm.vm.latestBlockhash(), [
      getTransferCheckedInstruction({
        source: associatedTokenAddress(user.address, mint.address),
        mint: mint.address,
        destination: svm.fundTokens(other.address, mint.address, 0n),
        authority: createNoopSigner(user.address),
        amount: 1_000_000n,
        decimals: 6,
      }),
    ]);
    expect((await svm.send(forged.base64, user)).ok).toBe(true);
    expect(svm.tokensOf(vault.address, mint.address)).toBeNull();
    expect(address(transfer.keys[3]!.pubkey)).toBe(user.address);
  });

  it('attack: a user no key can sign for (a program-derived address, off the curve) gets no step: nobody could send it', () => {
    // The user pays the fee and signs; a program-derived address has no private key, so a transaction naming it as
    // fee payer can never be sent, and a quote would record a request nothing can pay.
    const pda = associatedTokenAddress(vault.address, mint.address);
    for (const deposited of [sol, usdc]) {
      expect(() => depositStep(requestId('e1'), deposited, 1_000_000_000n, pda)).toThrow(
        expect.objectContaining({
          errorCode: 'INVALID_ADDRESS',
          errorData: expect.objectContaining({ field: 'user' }),
        }),
      );
    }
  });
});
