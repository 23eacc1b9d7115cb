import { type Address, encodeFunctionData, type Hex } from 'viem';
import { type LocalAccount, privateKeyToAccount } from 'viem/accounts';
import { depositoryAbi } from '../../../src/chains/abi/depository.js';
import { erc20Abi } from '../../../src/chains/abi/erc20.js';
import { DATABASE, type Database } from '../../../src/database/database.js';
import { startTestApp, type TestApp, waitForProjections } from '../../support/app.js';
import { ChainClients, postJson, requestStatus, waitFor } from '../../support/chain-clients.js';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { type Devnet, startDevnets } from '../../support/devnet.js';

const ETH = '0x0000000000000000000000000000000000000000';

interface StepItem {
  data: {
    from?: string;
    to: Address;
    data?: Hex;
    value?: string;
    chainId: number;
    sign?: {
      domain: Record<string, unknown>;
      types: Record<string, unknown>;
      primaryType: string;
      value: Record<string, unknown>;
    };
    post?: { endpoint: string; body: Record<string, unknown> };
  };
  check: { endpoint: string };
}
interface Quote {
  steps: { id: string; kind: string; items: StepItem[] }[];
  details: { currencyOut: { amount: string } };
  protocol: { v2: { orderId: Hex } };
}

/**
 * A wallet follows a quote's steps on one real local chain (Hardhat/EDR over JSON-RPC on loopback) and the value
 * arrives on the other: the app's chain watcher, solver and execute path against two devnets and real PostgreSQL.
 */
describe('cross-chain requests on two local chains', () => {
  let a: Devnet;
  let b: Devnet;
  let app: TestApp;
  let db: Database;
  let user: LocalAccount;
  let database: TestDatabase;
  let env: Record<string, string>;
  let clients: ChainClients;

  const post = (url: string, body: unknown) => postJson(app, url, body);
  const statusOf = (requestId: string) => requestStatus(app, requestId);
  const waitForStatus = async (requestId: string, wanted: readonly string[], timeoutMs = 30_000) => {
    const started = Date.now();
    let last = '';
    while (Date.now() - started < timeoutMs) {
      const status = await statusOf(requestId);
      last = status.status;
      if (wanted.includes(status.status)) return status;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`Request ${requestId} is ${last}, not ${wanted.join('/')} after ${timeoutMs} ms`);
  };
  /** Sends every transaction step as a wallet would, waiting for each receipt. */
  const followSteps = async (quote: Quote) => {
    for (const step of quote.steps) {
      if (step.kind !== 'transaction') continue;
      for (const item of step.items) {
        const receipt = await clients.send(
          item.data.chainId,
          userKey(),
          item.data.to,
          item.data.data,
          BigInt(item.data.value ?? '0'),
        );
        expect(receipt.status).toBe('success');
      }
    }
  };
  const balanceOf = (devnet: Devnet, currency: string, owner: Address) =>
    clients.balanceOf(devnet.chainId, currency, owner);
  const userKey = () => a.accounts.user.privateKey;

  const quoteOf = async (request: Record<string, unknown>): Promise<Quote> => {
    const { code, body } = await post('/quote/v2', {
      user: user.address,
      originChainId: a.chainId,
      destinationChainId: b.chainId,
      tradeType: 'EXACT_INPUT',
      ...request,
    });
    expect(code).toBe(200);
    return body as Quote;
  };
  const sendFrom = (devnet: Devnet, key: Hex, to: Address, data: Hex, value = 0n) =>
    clients.send(devnet.chainId, key, to, data, value);
  const unmatched = async (txHash: string) =>
    (
      await db.query<{ state: string; reason: string }>(
        'SELECT state, reason FROM unmatched_deposits WHERE tx_hash = $1',
        [txHash.toLowerCase()],
      )
    ).rows[0];
  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = new ChainClients([a, b]);
    user = privateKeyToAccount(a.accounts.user.privateKey);
    database = await createTestDatabase('ferry_chains');
    env = {
      DEVNET_A_RPC_URL: a.rpcUrl,
      DEVNET_B_RPC_URL: b.rpcUrl,
      CHAIN_WATCHER_RUN: 'true',
      CHAIN_POLL_INTERVAL_MS: '100',
      SOLVER_RUN: 'true',
      SOLVER_PRIVATE_KEY: a.accounts.solver.privateKey,
      RELAYER_PRIVATE_KEY: a.accounts.relayer.privateKey,
    };
    app = await startTestApp(env, [], undefined, database);
    db = app.app.get(DATABASE);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await database?.drop();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('bridges native ETH: deposit on A, the solver pays the recipient on B, success with both transactions recorded', async () => {
    const recipient = privateKeyToAccount(`0x${'42'.repeat(32)}` as Hex).address;
    const { code, body } = await post('/quote/v2', {
      user: user.address,
      recipient,
      originChainId: a.chainId,
      destinationChainId: b.chainId,
      originCurrency: ETH,
      destinationCurrency: ETH,
      amount: '100000000000000000',
      tradeType: 'EXACT_INPUT',
    });
    expect(code).toBe(200);
    const quote = body as Quote;
    const requestId = quote.protocol.v2.orderId;
    const before = await balanceOf(b, ETH, recipient);
    await followSteps(quote);
    await waitForStatus(requestId, ['success']);
    expect((await balanceOf(b, ETH, recipient)) - before).toBe(BigInt(quote.details.currencyOut.amount));

    await waitForProjections(app);
    const { rows } = await db.query<{
      state: { v3: { status: string; data: { inTxs: unknown[]; outTxs: unknown[] } } };
    }>('SELECT state FROM requests_v3 WHERE id = $1', [requestId.toLowerCase()]);
    expect(rows[0].state.v3.status).toBe('success');
    expect(rows[0].state.v3.data.inTxs).toHaveLength(1);
    expect(rows[0].state.v3.data.outTxs).toHaveLength(1);
  });

  it('swaps USDC with approve + deposit as the steps say, and pays USDC on B', async () => {
    const usdcA = a.deployment.usdc;
    const usdcB = b.deployment.usdc;
    const { code, body } = await post('/quote/v2', {
      user: user.address,
      originChainId: a.chainId,
      destinationChainId: b.chainId,
      originCurrency: usdcA,
      destinationCurrency: usdcB,
      amount: '25000000',
      tradeType: 'EXACT_INPUT',
    });
    expect(code).toBe(200);
    const quote = body as Quote;
    expect(quote.steps.map((step) => step.id)).toEqual(['approve', 'deposit']);
    const before = await balanceOf(b, usdcB, user.address);
    await followSteps(quote);
    await waitForStatus(quote.protocol.v2.orderId, ['success']);
    expect((await balanceOf(b, usdcB, user.address)) - before).toBe(BigInt(quote.details.currencyOut.amount));
  });

  it('reads the chain for quotes: the user balance, and no approve step when the allowance is enough', async () => {
    const usdcA = a.deployment.usdc;
    await sendFrom(
      a,
      a.accounts.user.privateKey,
      usdcA,
      encodeFunctionData({
        abi: erc20Abi,
        functionName: 'approve',
        args: [a.deployment.depository, 10n ** 12n],
      }),
    );
    const quote = (await quoteOf({
      originCurrency: usdcA,
      destinationCurrency: b.deployment.usdc,
      amount: '1000000',
    })) as Quote & {
      details: { userBalance?: string };
    };
    expect(quote.steps.map((step) => step.id)).toEqual(['deposit']);
    expect(quote.details.userBalance).toBe((await balanceOf(a, usdcA, user.address)).toString());
    await sendFrom(
      a,
      a.accounts.user.privateKey,
      usdcA,
      encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [a.deployment.depository, 0n] }),
    );
  });

  it('takes a gasless permit deposit through /execute/permits: depositing, then success', async () => {
    const { body } = await post('/quote/v2', {
      user: user.address,
      originChainId: a.chainId,
      destinationChainId: b.chainId,
      originCurrency: a.deployment.usdc,
      destinationCurrency: b.deployment.usdc,
      amount: '5000000',
      tradeType: 'EXACT_INPUT',
      usePermit: true,
    });
    const quote = body as Quote;
    const sign = quote.steps[0].items[0].data.sign!;
    const signature = await user.signTypedData({
      domain: sign.domain,
      types: sign.types,
      primaryType: sign.primaryType,
      message: sign.value,
    });
    const submitted = await post(
      `/execute/permits?signature=${signature}`,
      quote.steps[0].items[0].data.post!.body,
    );
    expect(submitted.code).toBe(200);
    const states = new Set<string>();
    const started = Date.now();
    for (;;) {
      const { status } = await statusOf(quote.protocol.v2.orderId);
      states.add(status);
      if (status === 'success' || Date.now() - started > 30_000) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(states).toContain('success');
    const { rows } = await db.query<{ event_type: string }>(
      'SELECT event_type FROM events WHERE stream_id = $1 ORDER BY stream_revision',
      [`request-${quote.protocol.v2.orderId.toLowerCase()}`],
    );
    expect(rows.map((row) => row.event_type)).toContain('DepositSubmitted');
  });

  it('refuses a permit signed by someone else, or for no quote, and sends nothing', async () => {
    const quote = await quoteOf({
      originCurrency: a.deployment.usdc,
      destinationCurrency: b.deployment.usdc,
      amount: '5000000',
      usePermit: true,
    });
    const sign = quote.steps[0].items[0].data.sign!;
    const stranger = privateKeyToAccount(`0x${'6b'.repeat(32)}` as Hex);
    const wrong = await stranger.signTypedData({
      domain: sign.domain,
      types: sign.types,
      primaryType: sign.primaryType,
      message: sign.value,
    });
    const body = quote.steps[0].items[0].data.post!.body;
    const refused = await post(`/execute/permits?signature=${wrong}`, body);
    expect(refused).toMatchObject({ code: 400, body: { errorCode: 'INVALID_SIGNATURE' } });
    const unknown = await post(`/execute/permits?signature=${wrong}`, {
      ...body,
      requestId: `0x${'12'.repeat(32)}`,
    });
    expect(unknown.code).toBe(404);
    const { rows } = await db.query<{ event_type: string }>(
      'SELECT event_type FROM events WHERE stream_id = $1 ORDER BY stream_revision',
      [`request-${quote.protocol.v2.orderId.toLowerCase()}`],
    );
    expect(rows.map((row) => row.event_type)).toEqual(['RequestQuoted']);
  });

  it('refunds a deposit of less than quoted on the origin chain (DEPOSIT_AMOUNT_TOO_LOW)', async () => {
    const { body } = await post('/quote/v2', {
      user: user.address,
      originChainId: a.chainId,
      destinationChainId: b.chainId,
      originCurrency: ETH,
      destinationCurrency: ETH,
      amount: '50000000000000000',
      tradeType: 'EXACT_INPUT',
    });
    const quote = body as Quote;
    const deposit = quote.steps[0].items[0].data;
    await sendFrom(a, userKey(), deposit.to, deposit.data!, BigInt(deposit.value!) - 1n);
    const status = await waitForStatus(quote.protocol.v2.orderId, ['refund']);
    expect(status.failReason).toBe('DEPOSIT_AMOUNT_TOO_LOW');
  });

  it('fails an impossible fill (the solver lacks the output) and refunds the deposit on the origin chain', async () => {
    const solverKey = a.accounts.solver.privateKey;
    const solverB = a.accounts.solver.address;
    const usdcB = b.deployment.usdc;
    // Quoted while the solver could pay; its balance is gone by the time the deposit lands (a real race: quotes do
    // not reserve liquidity).
    const quote = await quoteOf({
      originCurrency: a.deployment.usdc,
      destinationCurrency: usdcB,
      amount: '3000000',
    });
    const held = await balanceOf(b, usdcB, solverB);
    await sendFrom(
      b,
      solverKey,
      usdcB,
      encodeFunctionData({
        abi: erc20Abi,
        functionName: 'transfer',
        args: [a.accounts.deployer.address, held],
      }),
    );
    try {
      const before = await balanceOf(a, a.deployment.usdc, user.address);
      await followSteps(quote);
      const status = await waitForStatus(quote.protocol.v2.orderId, ['refund']);
      expect(status.failReason).toBe('FILL_REVERTED');
      expect(await balanceOf(a, a.deployment.usdc, user.address)).toBe(before);
    } finally {
      await sendFrom(
        b,
        a.accounts.deployer.privateKey,
        usdcB,
        encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [solverB, held] }),
      );
    }
  });

  it('records a refund that cannot be made (refundFailReason), leaving the request in failure', async () => {
    const solver = a.accounts.solver;
    const drain = async (devnet: Devnet) => {
      const held = await balanceOf(devnet, devnet.deployment.usdc, solver.address);
      await sendFrom(
        devnet,
        solver.privateKey,
        devnet.deployment.usdc,
        encodeFunctionData({
          abi: erc20Abi,
          functionName: 'transfer',
          args: [devnet.accounts.deployer.address, held],
        }),
      );
      return held;
    };
    const restore = (devnet: Devnet, amount: bigint) =>
      sendFrom(
        devnet,
        devnet.accounts.deployer.privateKey,
        devnet.deployment.usdc,
        encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [solver.address, amount] }),
      );
    const quote = await quoteOf({
      originCurrency: a.deployment.usdc,
      destinationCurrency: b.deployment.usdc,
      amount: '4000000',
    });
    const heldA = await drain(a);
    const heldB = await drain(b);
    try {
      await followSteps(quote);
      await waitFor(async () => {
        const { rows } = await db.query<{ data: { refundFailReason?: string } }>(
          "SELECT data FROM events WHERE stream_id = $1 AND event_type = 'RefundFailed'",
          [`request-${quote.protocol.v2.orderId.toLowerCase()}`],
        );
        return rows[0]?.data.refundFailReason === 'REFUND_NOT_SENT';
      }, 'the failed refund');
      expect(await statusOf(quote.protocol.v2.orderId)).toMatchObject({
        status: 'failure',
        failReason: 'FILL_REVERTED',
      });
    } finally {
      await restore(a, heldA);
      await restore(b, heldB);
    }
  });

  it('returns a deposit for an id no quote issued, and a second deposit for the same id, to the depositor', async () => {
    const stranger = `0x${'5a'.repeat(32)}` as Hex;
    const orphan = await sendFrom(
      a,
      a.accounts.user.privateKey,
      a.deployment.depository,
      encodeFunctionData({
        abi: depositoryAbi,
        functionName: 'depositNative',
        args: [user.address, stranger],
      }),
      10n ** 15n,
    );
    await waitFor(
      async () => (await unmatched(orphan.transactionHash))?.state === 'done',
      'the orphan refund',
    );
    expect((await unmatched(orphan.transactionHash)).reason).toBe('UNKNOWN_REQUEST');

    const quote = await quoteOf({
      originCurrency: ETH,
      destinationCurrency: ETH,
      amount: '20000000000000000',
    });
    await followSteps(quote);
    await waitForStatus(quote.protocol.v2.orderId, ['success']);
    const deposit = quote.steps[0].items[0].data;
    const twice = await sendFrom(
      a,
      a.accounts.user.privateKey,
      deposit.to,
      deposit.data!,
      BigInt(deposit.value!),
    );
    await waitFor(
      async () => (await unmatched(twice.transactionHash))?.state === 'done',
      'the second deposit returned',
    );
    expect((await statusOf(quote.protocol.v2.orderId)).status).toBe('success');
  });

  it('keeps 50 concurrent requests apart: all succeed, history and status agree', async () => {
    const quotes: Quote[] = [];
    for (let i = 0; i < 50; i += 1) {
      quotes.push(
        await quoteOf({
          originCurrency: ETH,
          destinationCurrency: ETH,
          amount: String(10n ** 15n + BigInt(i)),
        }),
      );
    }
    const reader = clients.reader(a.chainId);
    const wallet = clients.wallet(a.chainId);
    const hashes: Hex[] = [];
    for (const quote of quotes) {
      const item = quote.steps[0].items[0].data;
      hashes.push(
        await wallet.sendTransaction({
          account: user,
          chain: null,
          to: item.to,
          data: item.data,
          value: BigInt(item.value!),
        }),
      );
    }
    await Promise.all(hashes.map((hash) => reader.waitForTransactionReceipt({ hash })));
    await Promise.all(quotes.map((quote) => waitForStatus(quote.protocol.v2.orderId, ['success'], 60_000)));
    await waitForProjections(app);
    const { rows } = await db.query<{ status: string; n: string }>(
      'SELECT status, count(*)::text AS n FROM requests_v3 WHERE id = ANY($1) GROUP BY status',
      [quotes.map((quote) => quote.protocol.v2.orderId.toLowerCase())],
    );
    expect(rows).toEqual([{ status: 'success', n: '50' }]);
  }, 120_000);

  it('resumes from its cursor after a restart: a deposit made while Ferry was down still completes', async () => {
    const quote = await quoteOf({
      originCurrency: ETH,
      destinationCurrency: ETH,
      amount: '30000000000000000',
    });
    await app.close();
    await followSteps(quote);
    app = await startTestApp(env, [], undefined, database);
    db = app.app.get(DATABASE);
    await waitForStatus(quote.protocol.v2.orderId, ['success']);
  });
});
