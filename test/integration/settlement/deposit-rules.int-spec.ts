import { type Address, encodeFunctionData, type Hex } from 'viem';
import { depositoryAbi } from '../../../src/chains/abi/depository.js';
import { DATABASE, type Database } from '../../../src/database/database.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import {
  ChainClients,
  postJson,
  requestStatus,
  waitFor,
  settlementEnv,
} from '../../support/chain-clients.js';
import { type Devnet, startDevnets } from '../../support/devnet.js';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { RpcProxy } from '../../support/rpc-proxy.js';
import {
  deposit,
  ETH,
  ethQuoteBody,
  eventTypesOf,
  freshRecipient,
  type Quote,
  smartWalletAbi,
} from './settlement-support.js';

/**
 * Which deposit counts, on two real local chains: only one made on the quote's origin chain, into its depository, in
 * the quoted currency, identified by (chain, transaction, log). Anything else is returned where it was made.
 */
describe('deposit rules on local chains', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let database: TestDatabase;
  const apps: TestApp[] = [];
  let seed = 0xc0;

  const start = async (env: Record<string, string> = {}) => {
    const app = await startTestApp(settlementEnv(a, b, env), [], undefined, database);
    apps.push(app);
    return app;
  };
  const quoteOn = async (app: TestApp) => {
    const recipient = freshRecipient(seed++);
    const { code, body } = await postJson(
      app,
      '/quote/v2',
      ethQuoteBody(a, b, a.accounts.user.address, recipient),
    );
    expect(code).toBe(200);
    return { quote: body as Quote, recipient, id: (body as Quote).protocol.v2.orderId };
  };
  const depositNative = (id: Hex) =>
    encodeFunctionData({
      abi: depositoryAbi,
      functionName: 'depositNative',
      args: [a.accounts.user.address, id],
    });
  const unmatched = async (db: Database, txHash: string) =>
    (
      await db.query<{ log_index: number; state: string; reason: string; chain_id: string; amount: string }>(
        `SELECT log_index, state, reason, chain_id::text, amount::text FROM unmatched_deposits WHERE tx_hash = $1
          ORDER BY log_index`,
        [txHash.toLowerCase()],
      )
    ).rows;

  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = new ChainClients([a, b]);
    database = await createTestDatabase('ferry_deposit_rules');
  }, 120_000);
  afterEach(async () => {
    while (apps.length > 0) await apps.pop()!.close();
  });
  afterAll(async () => {
    await database?.drop();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it.each([
    ['the whole amount', 0n],
    ['a short amount', 1n],
  ])(
    'a deposit on the wrong chain (%s) buys nothing: no fill, no refund elsewhere, returned on that chain',
    async (_, short) => {
      const app = await start();
      const db = app.app.get<Database>(DATABASE);
      const { quote, recipient, id } = await quoteOn(app);
      const amount = BigInt(quote.details.currencyIn.amount) - short;
      // Chain b has a depository at the same address, and the same zero address for its native currency.
      const receipt = await clients.send(
        b.chainId,
        a.accounts.user.privateKey,
        b.deployment.depository,
        depositNative(id),
        amount,
      );
      await waitFor(
        async () => (await unmatched(db, receipt.transactionHash))[0]?.state === 'done',
        'the return on b',
      );
      expect(await unmatched(db, receipt.transactionHash)).toEqual([
        {
          log_index: expect.any(Number),
          state: 'done',
          reason: 'WRONG_CHAIN',
          chain_id: String(b.chainId),
          amount: amount.toString(),
        },
      ]);
      const returns = await db.query<{ chain_id: string; to_address: string; value: string }>(
        `SELECT chain_id::text, to_address, value::text FROM solver_transactions WHERE purpose = 'return' AND request_id = $1`,
        [id.toLowerCase()],
      );
      expect(returns.rows).toEqual([
        { chain_id: String(b.chainId), to_address: a.accounts.user.address, value: amount.toString() },
      ]);
      expect(await clients.balanceOf(b.chainId, ETH, recipient)).toBe(0n);
      expect((await requestStatus(app, id)).status).toBe('waiting');
      expect(await eventTypesOf(db, id)).toEqual(['RequestQuoted']);
    },
  );

  it('two deposit logs for one order in one transaction (a batched wallet call): one fills, the other is returned', async () => {
    const app = await start();
    const db = app.app.get<Database>(DATABASE);
    const { quote, recipient, id } = await quoteOn(app);
    const amount = BigInt(quote.details.currencyIn.amount);
    const call = { to: a.deployment.depository as Address, value: amount, data: depositNative(id) };
    const receipt = await clients.send(
      a.chainId,
      a.accounts.user.privateKey,
      a.deployment.smartWallet,
      encodeFunctionData({ abi: smartWalletAbi, functionName: 'executeBatch', args: [[call, call]] }),
      2n * amount,
    );
    expect(receipt.status).toBe('success');
    await waitFor(async () => (await requestStatus(app, id)).status === 'success', 'the fill');
    await waitFor(
      async () => (await unmatched(db, receipt.transactionHash))[0]?.state === 'done',
      'the return',
    );
    const rows = await unmatched(db, receipt.transactionHash);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      state: 'done',
      reason: 'REQUEST_CANNOT_TAKE_DEPOSIT',
      amount: amount.toString(),
    });
    expect(await clients.balanceOf(b.chainId, ETH, recipient)).toBe(BigInt(quote.details.currencyOut.amount));
    const confirmed = await db.query<{ log_index: number }>(
      `SELECT (data->>'logIndex')::int AS log_index FROM events WHERE stream_id = $1 AND event_type = 'DepositConfirmed'`,
      [`request-${id.toLowerCase()}`],
    );
    expect(confirmed.rows).toHaveLength(1);
    expect(confirmed.rows[0].log_index).not.toBe(rows[0].log_index);
  });

  it('with finality by tag, a deposit confirms only once the chain’s finalized block reaches it', async () => {
    let finalized: string | null = null;
    const proxy = new RpcProxy(a.rpcUrl, (method, params) =>
      method === 'eth_getBlockByNumber' && params[0] === 'finalized' && finalized !== null
        ? { kind: 'forward-as', params: [finalized, params[1]] }
        : null,
    );
    const app = await start({
      DEVNET_A_RPC_URL: await proxy.start(),
      DEVNET_FINALITY_TAG: 'finalized',
      DEVNET_FINALITY_BLOCKS: '1',
    });
    try {
      const db = app.app.get<Database>(DATABASE);
      finalized = await a.request<string>('eth_blockNumber');
      const { quote, id } = await quoteOn(app);
      await deposit(clients, a, quote);
      await waitFor(async () => (await eventTypesOf(db, id)).includes('DepositDetected'), 'the deposit seen');
      await new Promise((resolve) => setTimeout(resolve, 800));
      expect((await requestStatus(app, id)).status).toBe('waiting');
      expect(proxy.calls.some((call) => call.method === 'eth_getBlockByNumber' && call.fault)).toBe(true);
      finalized = null; // the chain finalizes its head
      await waitFor(async () => (await requestStatus(app, id)).status === 'success', 'success once final');
    } finally {
      await proxy.stop();
    }
  });
});
