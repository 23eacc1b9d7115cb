import { getCompiledTransactionMessageDecoder, getTransactionDecoder } from '@solana/kit';
import { address, generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { Buffer } from 'node:buffer';
import { Global, Module } from '@nestjs/common';
import { DEFAULT_SETTLEMENT, SETTLEMENT_SUPPORT } from '../../src/quotes/settlement-support.js';
import { DATABASE, type Database } from '../../src/database/database.js';
import {
  associatedTokenAddress,
  SVM_RENT_EXEMPT_MINIMUM_LAMPORTS,
} from '../../src/quotes/domain/steps/svm-programs.js';
import { SIGNATURE_FEE, SvmTestChain } from '../support/litesvm.js';
import { SvmRpcServer } from '../support/svm-rpc.js';
import { startTestApp, type TestApp } from '../support/app.js';

const SVM = 792703809;
const EVM_RECIPIENT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const ETH = '0x0000000000000000000000000000000000000000';
/** Blockhashes are cached for 2 s per chain (docs/svm.md); tests that change what the RPC answers wait it out. */
const BLOCKHASH_CACHE_MS = 2000;

/**
 * Ferry refuses SVM-origin quotes (SETTLEMENT_UNAVAILABLE) until an SVM chain reader credits the deposits. This suite
 * checks the quote path those quotes will take, so it declares SVM deposits readable, as that reader will.
 */
@Global()
@Module({
  providers: [
    {
      provide: SETTLEMENT_SUPPORT,
      useValue: { ...DEFAULT_SETTLEMENT, svm: { ...DEFAULT_SETTLEMENT.svm, deposits: true } },
    },
  ],
  exports: [SETTLEMENT_SUPPORT],
})
class SvmDepositsAheadOfTheirReader {}

interface ChainsBody {
  chains: {
    id: number;
    currency: { address: string };
    erc20Currencies?: { symbol: string; address: string; decimals: number }[];
  }[];
}

/**
 * The quote path of SVM deposits end to end: the app (real PostgreSQL) reads the blockhash from a JSON-RPC server on
 * loopback answered by LiteSVM, `POST /quote/v2` returns the deposit step, the user signs it and sends it to the same
 * LiteSVM, and the vault receives exactly the quoted amount with the order id in the memo.
 */
describe('SVM-origin quotes executed in LiteSVM (ahead of the SVM reader that will settle them)', () => {
  it('are refused in every real configuration until then: see test/e2e/quotes.e2e-spec.ts', () => {
    expect(DEFAULT_SETTLEMENT.svm.deposits).toBe(false);
  });

  let svm: SvmTestChain;
  let rpc: SvmRpcServer;
  let app: TestApp;
  let db: Database;
  let user: KeyPairSigner;
  let vault: string;
  let sol: string;
  let usdc: { address: string; decimals: number };

  const post = async (body: unknown) => {
    const response = await app.http.inject({ method: 'POST', url: '/quote/v2', payload: body as object });
    return { code: response.statusCode, body: response.json() };
  };
  const eventCount = async () =>
    Number((await db.query<{ n: string }>('SELECT count(*)::text AS n FROM events')).rows[0].n);
  const quote = (overrides: Record<string, unknown> = {}) => ({
    user: user.address,
    recipient: EVM_RECIPIENT,
    originChainId: SVM,
    destinationChainId: 31337,
    originCurrency: sol,
    destinationCurrency: ETH,
    amount: '2000000000',
    tradeType: 'EXACT_INPUT',
    ...overrides,
  });
  const memoLogged = (logs: readonly string[], id: string) =>
    logs.some(
      (line, index) => line === 'Program log: Memo (len 66)' && logs[index + 1] === `Program log: ${id}`,
    );

  beforeAll(async () => {
    svm = new SvmTestChain();
    rpc = await new SvmRpcServer(svm).start();
    // A generous RPC timeout: the machine is shared, and a slow first answer must not read as a dead RPC.
    app = await startTestApp({ RPC_URL_792703809: rpc.url, RPC_TIMEOUT_MS: '5000' }, [
      SvmDepositsAheadOfTheirReader,
    ]);
    db = app.app.get(DATABASE);
    user = await generateKeyPairSigner();
    svm.airdrop(user.address, 20_000_000_000n);
    const chains = (await app.http.inject({ method: 'GET', url: '/chains' })).json() as ChainsBody;
    const chain = chains.chains.find((candidate) => candidate.id === SVM)!;
    sol = chain.currency.address;
    usdc = chain.erc20Currencies!.find((currency) => currency.symbol === 'USDC')!;
    vault = app.config.chains.chain(SVM).depository;
    // The configured USDC mint, recreated in the VM (decimals 6), and the user's tokens.
    svm.createMint(address(usdc.address), usdc.decimals);
    svm.fundTokens(user.address, address(usdc.address), 100_000_000n);
  });
  afterAll(async () => {
    await app?.close();
    await rpc?.stop();
  });

  it('answers 400 CHAIN_RPC_UNAVAILABLE when the SVM RPC fails, and records nothing', async () => {
    rpc.mode = 'error';
    const before = await eventCount();
    const { code, body } = await post(quote());
    expect(code).toBe(400);
    expect(body).toMatchObject({
      errorCode: 'CHAIN_RPC_UNAVAILABLE',
      errorData: { chainId: SVM, reason: 'rpc-failed' },
    });
    expect(await eventCount()).toBe(before);
    rpc.mode = 'answer';
    await new Promise((resolve) => setTimeout(resolve, BLOCKHASH_CACHE_MS + 100));
  });

  it('a SOL quote returns a deposit the user signs and LiteSVM executes: exactly the quoted lamports, the order id in the memo', async () => {
    const { code, body } = await post(quote());
    expect(code).toBe(200);
    const orderId = body.protocol.v2.orderId as string;
    const amount = BigInt(body.protocol.v2.paymentDetails.amount as string);
    expect(body.protocol.v2.paymentDetails).toMatchObject({ depository: vault, currency: sol });
    expect(body.steps.map((step: { id: string }) => step.id)).toEqual(['deposit']);
    const data = body.steps[0].items[0].data;
    // The blockhash is the chain's, read through its RPC.
    const unsigned = getTransactionDecoder().decode(Buffer.from(data.serializedTransaction, 'base64'));
    const message = getCompiledTransactionMessageDecoder().decode(unsigned.messageBytes);
    expect(message.lifetimeToken).toBe(svm.vm.latestBlockhash());
    expect(rpc.calls).toContain('getLatestBlockhash');

    const [userBefore, vaultBefore] = [svm.lamportsOf(user.address), svm.lamportsOf(address(vault))];
    const sent = await svm.send(data.serializedTransaction, user);
    expect(sent).toMatchObject({ ok: true });
    expect(svm.lamportsOf(address(vault)) - vaultBefore).toBe(amount);
    expect(userBefore - svm.lamportsOf(user.address)).toBe(amount + SIGNATURE_FEE);
    expect(amount).toBe(2_000_000_000n);
    expect(memoLogged(sent.logs, orderId)).toBe(true);
  });

  it('a USDC quote returns a deposit that creates the vault token account and moves exactly the quoted amount', async () => {
    const { code, body } = await post(
      quote({
        originCurrency: usdc.address,
        destinationChainId: 31338,
        amount: '25000000',
        destinationCurrency: ETH,
      }),
    );
    expect(code).toBe(200);
    const orderId = body.protocol.v2.orderId as string;
    const amount = BigInt(body.protocol.v2.paymentDetails.amount as string);
    expect(amount).toBe(25_000_000n);
    const mint = address(usdc.address);
    const userBefore = svm.tokensOf(user.address, mint)!;
    const vaultBefore = svm.tokensOf(address(vault), mint) ?? 0n;
    const sent = await svm.send(body.steps[0].items[0].data.serializedTransaction, user);
    expect(sent).toMatchObject({ ok: true });
    expect(svm.tokensOf(address(vault), mint)! - vaultBefore).toBe(amount);
    expect(userBefore - svm.tokensOf(user.address, mint)!).toBe(amount);
    expect(memoLogged(sent.logs, orderId)).toBe(true);
  });

  it('never quotes a SOL deposit below the rent-exempt minimum (it could fail against a fresh vault)', async () => {
    const { code, body } = await post(quote({ amount: (SVM_RENT_EXEMPT_MINIMUM_LAMPORTS - 1n).toString() }));
    expect(code).toBe(400);
    expect(body.errorCode).toBe('AMOUNT_TOO_LOW');
    // Today the fees' own minimum is above the rent floor; the step builder refuses below the floor regardless.
    expect(BigInt(body.errorData.minimumAmount as string)).toBeGreaterThanOrEqual(
      SVM_RENT_EXEMPT_MINIMUM_LAMPORTS,
    );
  });

  it('answers 400 SWAP_AGGREGATOR_UNAVAILABLE for an SVM token the depository does not take, and records nothing', async () => {
    const before = await eventCount();
    const unlisted = (await generateKeyPairSigner()).address;
    for (const route of [
      quote({ originCurrency: unlisted }),
      quote({ originCurrency: unlisted, maxRouteLength: 3 }),
    ]) {
      const { code, body } = await post(route);
      expect(code).toBe(400);
      expect(body).toMatchObject({
        errorCode: 'SWAP_AGGREGATOR_UNAVAILABLE',
        errorData: { chainId: SVM, currency: unlisted },
      });
    }
    expect(await eventCount()).toBe(before);
  });

  it('a malformed SVM origin currency stays INVALID_ADDRESS', async () => {
    const { code, body } = await post(
      quote({ originCurrency: '0x0000000000000000000000000000000000000000' }),
    );
    expect(code).toBe(400);
    expect(body).toMatchObject({ errorCode: 'INVALID_ADDRESS', errorData: { field: 'originCurrency' } });
  });

  it('answers 400 INVALID_ADDRESS for a user no key can sign for (a program-derived address), and records nothing', async () => {
    const before = await eventCount();
    const pda = associatedTokenAddress(user.address, address(usdc.address));
    const { code, body } = await post(quote({ user: pda }));
    expect(code).toBe(400);
    expect(body).toMatchObject({
      errorCode: 'INVALID_ADDRESS',
      errorData: { field: 'user', reason: 'off-curve' },
    });
    expect(await eventCount()).toBe(before);
  });
});
