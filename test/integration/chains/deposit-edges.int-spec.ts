import { type Address, encodeFunctionData, type Hex, parseAbi } from 'viem';
import { type LocalAccount, privateKeyToAccount } from 'viem/accounts';
import { sandboxOf } from '../../../src/solver/call-execution.js';
import { depositoryAbi } from '../../../src/chains/abi/depository.js';
import { erc20Abi } from '../../../src/chains/abi/erc20.js';
import { ManualClock } from '../../../src/common/clock.js';
import { DATABASE, type Database } from '../../../src/database/database.js';
import { DeadlineSweeper } from '../../../src/requests/sweeper/deadline-sweeper.js';
import { startTestApp, type TestApp, waitForProjections } from '../../support/app.js';
import { ChainClients, postJson, requestStatus, waitFor } from '../../support/chain-clients.js';
import { type Devnet, startDevnets } from '../../support/devnet.js';

const ETH = '0x0000000000000000000000000000000000000000';
const FINALITY = 3;
const wethAbi = parseAbi(['function deposit() payable']);

interface Quote {
  steps: {
    id: string;
    kind: string;
    items: { data: { to: Address; data?: Hex; value?: string; chainId: number } }[];
  }[];
  protocol: { v2: { orderId: Hex } };
}

/**
 * Deposits that must not be filled as quoted, and the finality window: devnets with 3-block finality (a deposit is
 * seen at once, final two blocks later), the app on a manual clock so deadlines can be passed at will.
 */
describe('deposits at the edges (3-block finality)', () => {
  let a: Devnet;
  let b: Devnet;
  let app: TestApp;
  let db: Database;
  let user: LocalAccount;
  const clock = new ManualClock(new Date());
  let clients: ChainClients;

  const post = (url: string, body: unknown) => postJson(app, url, body);
  const quoteOf = async (request: Record<string, unknown>): Promise<Quote> => {
    const { code, body } = await post('/quote/v2', {
      user: user.address,
      originChainId: a.chainId,
      destinationChainId: b.chainId,
      originCurrency: ETH,
      destinationCurrency: ETH,
      amount: '20000000000000000',
      tradeType: 'EXACT_INPUT',
      ...request,
    });
    expect(code).toBe(200);
    return body as Quote;
  };
  const send = async (devnet: Devnet, key: Hex, to: Address, data: Hex, value = 0n) => {
    const receipt = await clients.send(devnet.chainId, key, to, data, value);
    expect(receipt.status).toBe('success');
    return receipt;
  };
  const eventsOf = async (requestId: string) =>
    (
      await db.query<{ event_type: string; data: { reason?: string; failReason?: string } }>(
        'SELECT event_type, data FROM events WHERE stream_id = $1 ORDER BY stream_revision',
        [`request-${requestId.toLowerCase()}`],
      )
    ).rows;
  const statusOf = (requestId: string) => requestStatus(app, requestId);
  /** A few watcher rounds (poll interval 50 ms). */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 600));

  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = new ChainClients([a, b]);
    user = privateKeyToAccount(a.accounts.user.privateKey);
    app = await startTestApp(
      {
        DEVNET_A_RPC_URL: a.rpcUrl,
        DEVNET_B_RPC_URL: b.rpcUrl,
        DEVNET_FINALITY_BLOCKS: String(FINALITY),
        CHAIN_WATCHER_RUN: 'true',
        CHAIN_POLL_INTERVAL_MS: '50',
        SOLVER_RUN: 'true',
        SOLVER_PRIVATE_KEY: a.accounts.solver.privateKey,
        RELAYER_PRIVATE_KEY: a.accounts.relayer.privateKey,
      },
      [],
      clock,
    );
    db = app.app.get(DATABASE);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('sees a deposit at once but confirms it only once final; a reorg that drops it means it never confirms, then times out', async () => {
    const quote = await quoteOf({});
    const deposit = quote.steps[0].items[0].data;
    const snapshot = await a.snapshot();
    await send(a, a.accounts.user.privateKey, deposit.to, deposit.data!, BigInt(deposit.value!));
    await waitFor(
      async () => (await eventsOf(quote.protocol.v2.orderId)).some((e) => e.event_type === 'DepositDetected'),
      'the deposit to be seen',
    );
    await settle();
    expect((await statusOf(quote.protocol.v2.orderId)).status).toBe('waiting');

    await a.revert(snapshot);
    await a.mine(FINALITY + 2);
    await settle();
    const types = (await eventsOf(quote.protocol.v2.orderId)).map((e) => e.event_type);
    expect(types).toEqual(['RequestQuoted', 'DepositDetected']);

    clock.advance(app.config.quotes.depositConfirmationTimeoutSeconds * 1000 + 1000);
    await waitForProjections(app);
    await app.app.get(DeadlineSweeper).sweep();
    const expired = (await eventsOf(quote.protocol.v2.orderId)).find(
      (e) => e.event_type === 'RequestExpired',
    );
    expect(expired?.data.reason).toBe('DEPOSIT_CONFIRMATION_TIMEOUT');
  });

  it('confirms after the finality window and fills', async () => {
    const quote = await quoteOf({});
    const deposit = quote.steps[0].items[0].data;
    const receipt = await send(
      a,
      a.accounts.user.privateKey,
      deposit.to,
      deposit.data!,
      BigInt(deposit.value!),
    );
    await settle();
    expect((await statusOf(quote.protocol.v2.orderId)).status).toBe('waiting');
    await a.mine(FINALITY - 1);
    await waitFor(async () => (await statusOf(quote.protocol.v2.orderId)).status === 'success', 'success');

    const indexed = await post('/transactions/index', {
      chainId: String(a.chainId),
      txHash: receipt.transactionHash,
    });
    expect(indexed).toMatchObject({ code: 200, body: { deposits: 1, final: true } });
    const unknown = await post('/transactions/index', { chainId: a.chainId, txHash: `0x${'77'.repeat(32)}` });
    expect(unknown.code).toBe(404);
    const malformed = await post('/transactions/index', { chainId: a.chainId, txHash: '0x12' });
    expect(malformed.code).toBe(400);
  });

  it('refunds a deposit made after the quote expired (DEPOSIT_AFTER_EXPIRY)', async () => {
    const quote = await quoteOf({});
    clock.advance(app.config.quotes.quoteTtlSeconds * 1000 + 1000);
    await waitForProjections(app);
    await app.app.get(DeadlineSweeper).sweep();
    const deposit = quote.steps[0].items[0].data;
    await send(a, a.accounts.user.privateKey, deposit.to, deposit.data!, BigInt(deposit.value!));
    await a.mine(FINALITY);
    await waitFor(async () => (await statusOf(quote.protocol.v2.orderId)).status === 'refund', 'the refund');
    expect((await statusOf(quote.protocol.v2.orderId)).failReason).toBe('DEPOSIT_AFTER_EXPIRY');
  });

  it('returns a deposit in another currency than quoted to its depositor, in that currency (WRONG_CURRENCY)', async () => {
    const weth = a.deployment.weth;
    const wrap = encodeFunctionData({ abi: wethAbi, functionName: 'deposit' });
    await send(a, a.accounts.user.privateKey, weth, wrap, 10n ** 17n);
    await send(a, a.accounts.solver.privateKey, weth, wrap, 10n ** 17n);
    const quote = await quoteOf({
      originCurrency: a.deployment.usdc,
      destinationCurrency: b.deployment.usdc,
      amount: '2000000',
    });
    const id = quote.protocol.v2.orderId;
    const amount = 10n ** 16n;
    await send(
      a,
      a.accounts.user.privateKey,
      weth,
      encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [a.deployment.depository, amount] }),
    );
    const before = await clients.balanceOf(a.chainId, weth, user.address);
    const receipt = await send(
      a,
      a.accounts.user.privateKey,
      a.deployment.depository,
      encodeFunctionData({
        abi: depositoryAbi,
        functionName: 'depositErc20',
        args: [user.address, weth, amount, id],
      }),
    );
    await a.mine(FINALITY);
    await waitFor(async () => {
      const { rows } = await db.query<{ state: string; reason: string }>(
        'SELECT state, reason FROM unmatched_deposits WHERE tx_hash = $1',
        [receipt.transactionHash.toLowerCase()],
      );
      return rows[0]?.state === 'done' && rows[0].reason === 'WRONG_CURRENCY';
    }, 'the return');
    expect(await clients.balanceOf(a.chainId, weth, user.address)).toBe(before);
    expect((await statusOf(id)).status).toBe('waiting');
    expect((await eventsOf(id)).map((e) => e.event_type)).toEqual(['RequestQuoted']);
  });

  it("runs a quote's destination calls through the call executor, never from the solver's account", async () => {
    const spender = privateKeyToAccount(`0x${'31'.repeat(32)}` as Hex).address;
    const approve = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, 123n] });
    const quote = await quoteOf({ txs: [{ to: b.deployment.usdc, value: '0', data: approve }] });
    const deposit = quote.steps[0].items[0].data;
    await send(a, a.accounts.user.privateKey, deposit.to, deposit.data!, BigInt(deposit.value!));
    await a.mine(FINALITY);
    await waitFor(async () => (await statusOf(quote.protocol.v2.orderId)).status === 'success', 'success');
    const allowanceOf = (owner: Address) =>
      clients.reader(b.chainId).readContract({
        address: b.deployment.usdc,
        abi: erc20Abi,
        functionName: 'allowance',
        args: [owner, spender],
      });
    // The call ran from the executor's sandbox: the solver granted nothing.
    expect(await allowanceOf(a.accounts.solver.address)).toBe(0n);
    expect(await allowanceOf(sandboxOf(b.deployment.callExecutor))).toBe(123n);
  });
});
