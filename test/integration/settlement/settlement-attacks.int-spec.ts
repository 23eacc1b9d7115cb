import { type Hex, parseTransaction } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ManualClock } from '../../../src/common/clock.js';
import { DATABASE, type Database } from '../../../src/database/database.js';
import { DeadlineSweeper } from '../../../src/requests/sweeper/deadline-sweeper.js';
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
  journalOf,
  type Quote,
  depositNativeFor,
} from './settlement-support.js';
import { signPermit } from '../../support/permits.js';

/**
 * The ways a solver gets robbed or pays twice, played against Ferry on two real local chains with real PostgreSQL:
 * a fill in flight when its deadline passes, a fill replaced from outside, broadcasts whose answer is lost, two
 * instances sharing one key, a refund that fails before it succeeds.
 */
describe('settlement under attack', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  const apps: TestApp[] = [];
  const databases: TestDatabase[] = [];
  let seed = 0x60;

  const start = async (
    env: Record<string, string> = {},
    clock?: ManualClock,
    existing?: TestDatabase,
  ): Promise<TestApp> => {
    const database = existing ?? (await createTestDatabase('ferry_attacks'));
    if (!existing) databases.push(database);
    const app = await startTestApp(
      settlementEnv(a, b, { SOLVER_LEASE_MS: '3000', ...env }),
      [],
      clock,
      database,
    );
    apps.push(app);
    return app;
  };
  const quoteOn = async (app: TestApp): Promise<{ quote: Quote; recipient: `0x${string}`; id: string }> => {
    const recipient = freshRecipient(seed++);
    const { code, body } = await postJson(
      app,
      '/quote/v2',
      ethQuoteBody(a, b, a.accounts.user.address, recipient),
    );
    expect(code).toBe(200);
    const quote = body as Quote;
    return { quote, recipient, id: quote.protocol.v2.orderId };
  };
  const statusIs = (app: TestApp, id: string, status: string, what = status, timeoutMs = 30_000) =>
    waitFor(async () => (await requestStatus(app, id)).status === status, `${id} to be ${what}`, timeoutMs);
  const received = (recipient: `0x${string}`) => clients.balanceOf(b.chainId, ETH, recipient);

  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = new ChainClients([a, b]);
  }, 120_000);
  afterEach(async () => {
    await b.setAutomine(true);
    while (apps.length > 0) await apps.pop()!.close();
  });
  afterAll(async () => {
    for (const database of databases) await database.drop();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('a fill in flight when its deadline passes is cancelled with its own nonce before anything is refunded: one payment', async () => {
    const clock = new ManualClock(new Date());
    const app = await start({}, clock);
    const db = app.app.get<Database>(DATABASE);
    await b.setAutomine(false);
    const { quote, recipient, id } = await quoteOn(app);
    await deposit(clients, a, quote);
    await statusIs(app, id, 'submitted');

    // The deadline passes while the fill sits in the mempool: the sweeper may not fail the request (the fill may
    // still mine), so no refund can start.
    clock.advance(3 * 3600_000);
    await app.app.get(DeadlineSweeper).sweep();
    expect(await eventTypesOf(db, id)).not.toContain('RequestExpired');
    // The solver replaces the fill with a zero-value transaction of the same nonce; only once that one mined is the
    // fill dead, the request failed, and the deposit refunded.
    await waitFor(
      async () => (await journalOf(db, id)).some((entry) => entry.purpose === 'cancel'),
      'a cancel',
    );
    await b.mine(1);
    await statusIs(app, id, 'refund');
    expect(await received(recipient)).toBe(0n);
    const journal = await journalOf(db, id);
    expect(
      journal
        .filter((entry) => entry.state === 'mined')
        .map((entry) => entry.purpose)
        .sort(),
    ).toEqual(['cancel', 'refund']);
    expect(journal.find((entry) => entry.purpose === 'fill')?.state).toBe('dropped');
    expect((await requestStatus(app, id)).failReason).toBe('FILL_CANCELLED');
  });

  it('a fill replaced from outside (same nonce, another transaction) is not taken for a success', async () => {
    const app = await start();
    const db = app.app.get<Database>(DATABASE);
    await b.setAutomine(false);
    const { quote, recipient, id } = await quoteOn(app);
    await deposit(clients, a, quote);
    await statusIs(app, id, 'submitted');
    const fill = (await journalOf(db, id)).find((entry) => entry.purpose === 'fill')!;
    const { rows } = await db.query<{ raw_tx: Hex }>(
      'SELECT raw_tx FROM solver_transactions WHERE tx_hash = $1',
      [fill.tx_hash],
    );
    const original = parseTransaction(rows[0].raw_tx);
    const solver = privateKeyToAccount(a.accounts.solver.privateKey);
    const replacement = await solver.signTransaction({
      type: 'eip1559',
      chainId: b.chainId,
      nonce: original.nonce,
      to: solver.address,
      value: 0n,
      gas: 21_000n,
      maxFeePerGas: original.maxFeePerGas! * 2n,
      maxPriorityFeePerGas: original.maxPriorityFeePerGas! * 2n,
    });
    await b.request('eth_sendRawTransaction', [replacement]);
    await b.mine(1);
    await statusIs(app, id, 'refund');
    expect(await received(recipient)).toBe(0n);
    expect((await requestStatus(app, id)).failReason).toBe('FILL_CANCELLED');
    expect((await journalOf(db, id)).find((entry) => entry.purpose === 'fill')?.state).toBe('dropped');
  });

  it.each([
    ['"already known"', { kind: 'error-after-forward', message: 'already known' } as const],
    ['a time-out (the connection drops after the node took it)', { kind: 'hang-up-after-forward' } as const],
    // The node never saw it: the journal sends the same bytes again (every 2 s while the fill is open).
    [
      'an error before the node saw it (a lost broadcast)',
      { kind: 'error', message: 'upstream unavailable' } as const,
    ],
  ])(
    'a broadcast answered with %s is an unknown outcome, not a failure: paid once, never refunded',
    async (_, fault) => {
      let faulted = false;
      const proxy = new RpcProxy(b.rpcUrl, (method) => {
        if (method !== 'eth_sendRawTransaction' || faulted) return null;
        faulted = true;
        return fault;
      });
      const app = await start({ DEVNET_B_RPC_URL: await proxy.start() });
      try {
        const db = app.app.get<Database>(DATABASE);
        const { quote, recipient, id } = await quoteOn(app);
        await deposit(clients, a, quote);
        await statusIs(app, id, 'success');
        expect(faulted).toBe(true);
        expect(await received(recipient)).toBe(BigInt(quote.details.currencyOut.amount));
        expect(await eventTypesOf(db, id)).not.toContain('FillFailed');
        expect((await journalOf(db, id)).map((entry) => `${entry.purpose}:${entry.state}`)).toEqual([
          'fill:mined',
        ]);
      } finally {
        await proxy.stop();
      }
    },
  );

  it('a receipt read that fails (RPC error) is not taken for "never mined": the fill is paid once, never refunded', async () => {
    // Every receipt read fails for two seconds from the first one, while the fill is already mined.
    let failed = 0;
    let firstFailure = 0;
    const proxy = new RpcProxy(b.rpcUrl, (method) => {
      if (method !== 'eth_getTransactionReceipt') return null;
      firstFailure ||= Date.now();
      if (Date.now() - firstFailure > 2_000) return null;
      failed += 1;
      return { kind: 'error', message: 'upstream unavailable' };
    });
    const app = await start({ DEVNET_B_RPC_URL: await proxy.start() });
    try {
      const db = app.app.get<Database>(DATABASE);
      const { quote, recipient, id } = await quoteOn(app);
      await deposit(clients, a, quote);
      await statusIs(app, id, 'success');
      expect(failed).toBeGreaterThan(0);
      expect(await received(recipient)).toBe(BigInt(quote.details.currencyOut.amount));
      expect(await eventTypesOf(db, id)).not.toContain('FillFailed');
    } finally {
      await proxy.stop();
    }
  });

  it('two instances sharing one key and one database pay each deposit once, with no nonce used twice', async () => {
    const first = await start();
    await start({}, undefined, databases[databases.length - 1]);
    const db = first.app.get<Database>(DATABASE);
    const requests = await Promise.all([0, 1, 2, 3, 4, 5].map(() => quoteOn(first)));
    for (const request of requests) await deposit(clients, a, request.quote);
    for (const request of requests) await statusIs(first, request.id, 'success');
    for (const request of requests) {
      expect(await received(request.recipient)).toBe(BigInt(request.quote.details.currencyOut.amount));
    }
    const { rows } = await db.query<{ nonce: string; n: string }>(
      `SELECT nonce::text, count(*)::text AS n FROM solver_transactions WHERE chain_id = $1 AND state <> 'void'
        GROUP BY nonce HAVING count(*) > 1`,
      [b.chainId],
    );
    expect(rows).toEqual([]);
    // One live fill per request. A fill journaled by an instance whose job the other took over is abandoned (void:
    // never sent, its nonce filled) and may sit beside it when the machine is slow enough for leases to lapse.
    const fills = await db.query<{ request_id: string; n: string }>(
      `SELECT request_id, count(*)::text AS n FROM solver_transactions
        WHERE purpose = 'fill' AND state <> 'void' AND request_id = ANY($1) GROUP BY request_id`,
      [requests.map((request) => request.id.toLowerCase())],
    );
    expect(fills.rows.map((row) => row.n)).toEqual(['1', '1', '1', '1', '1', '1']);
  });

  it('a permit deposit posted three times at once is sent once: every answer names the one journaled transaction', async () => {
    const app = await start({ RELAYER_PRIVATE_KEY: a.accounts.relayer.privateKey });
    const db = app.app.get<Database>(DATABASE);
    const user = privateKeyToAccount(a.accounts.user.privateKey);
    const { body } = await postJson(app, '/quote/v2', {
      user: user.address,
      originChainId: a.chainId,
      destinationChainId: b.chainId,
      originCurrency: a.deployment.usdc,
      destinationCurrency: b.deployment.usdc,
      amount: '2000000',
      tradeType: 'EXACT_INPUT',
      usePermit: true,
    });
    const permit = await signPermit(body, user);
    const answers = await Promise.all([0, 1, 2].map(() => postJson(app, permit.path, permit.body)));
    const hashes = new Set(answers.map((answer) => (answer.body as { txHash?: string }).txHash));
    expect(answers.map((answer) => answer.code)).toEqual([200, 200, 200]);
    expect(hashes.size).toBe(1);
    const id = permit.id;
    await statusIs(app, id, 'success');
    // One relayer transaction, settled by the journal's pump once it is in a block.
    await waitFor(async () => {
      const permits = (await journalOf(db, id)).filter((entry) => entry.purpose === 'permit');
      return permits.length === 1 && permits[0].state === 'mined';
    }, 'the permit transaction settled in the journal');
    expect((await journalOf(db, id)).filter((entry) => entry.purpose === 'permit')).toHaveLength(1);
  });

  it('deposits for ids this database never quoted, made before it watched the chain (in its first head block, or indexed by hand), are not returned: another Ferry took them; one made since is', async () => {
    // Deposits for another Ferry on the same depository (a reused chain), the newest in the head block when this
    // database starts.
    const depositFor = (id: Hex) => depositNativeFor(clients, a, id, 10n ** 15n);
    const older = await depositFor(`0x${'a6'.repeat(32)}`);
    const theirs = await depositFor(`0x${'a7'.repeat(32)}`);
    const app = await start();
    const db = app.app.get<Database>(DATABASE);
    const unmatched = async (txHash: string) =>
      (
        await db.query<{ reason: string; state: string }>(
          'SELECT reason, state FROM unmatched_deposits WHERE tx_hash = $1',
          [txHash.toLowerCase()],
        )
      ).rows;
    // The watcher's first round on chain a has confirmed what it scans (a round records its deposits, then moves the
    // cursors); indexing the transactions by hand changes nothing.
    await waitFor(async () => {
      const { rows } = await db.query<{ final_block: string }>(
        'SELECT final_block::text FROM chain_cursors WHERE chain_id = $1',
        [a.chainId],
      );
      return rows.length > 0 && BigInt(rows[0].final_block) >= theirs.blockNumber;
    }, "the watcher's first round");
    for (const receipt of [older, theirs]) {
      const indexed = await postJson(app, '/transactions/index', {
        chainId: a.chainId,
        txHash: receipt.transactionHash,
      });
      expect(indexed.code).toBe(200);
      expect(await unmatched(receipt.transactionHash)).toEqual([]);
    }

    // A deposit for an id no quote issued, made once this database watches the chain, is still returned.
    const stray = await depositFor(`0x${'a8'.repeat(32)}`);
    await waitFor(async () => (await unmatched(stray.transactionHash))[0]?.state === 'done', 'the return');
    expect(await unmatched(stray.transactionHash)).toEqual([{ reason: 'UNKNOWN_REQUEST', state: 'done' }]);
    expect([
      ...(await unmatched(older.transactionHash)),
      ...(await unmatched(theirs.transactionHash)),
    ]).toEqual([]);
    const returns = await db.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM solver_transactions WHERE purpose = 'return'`,
    );
    expect(returns.rows[0].n).toBe('1');
  });

  it('a refund that fails twice (RPC errors) is retried with backoff and then paid, once', async () => {
    let failures = 0;
    const solver = a.accounts.solver.address.toLowerCase();
    // Only this request's refund fails: a native payment from the solver whose data is the order id. Any other
    // transaction of the solver on chain a (a return, say) must neither take these failures nor be sent at all.
    let refundData: string | null = null;
    const proxyA = new RpcProxy(a.rpcUrl, (method, params) => {
      const call = params[0] as { from?: string; data?: string } | undefined;
      const refund = call?.from?.toLowerCase() === solver && call.data?.toLowerCase() === refundData;
      if (method === 'eth_estimateGas' && refund && failures < 2) {
        failures += 1;
        return { kind: 'error', message: 'upstream unavailable' };
      }
      return null;
    });
    const app = await start({ DEVNET_A_RPC_URL: await proxyA.start() });
    try {
      const db = app.app.get<Database>(DATABASE);
      // A short deposit fails at once (DEPOSIT_AMOUNT_TOO_LOW), so it must come back.
      const recipient = freshRecipient(seed++);
      const { body } = await postJson(
        app,
        '/quote/v2',
        ethQuoteBody(a, b, a.accounts.user.address, recipient),
      );
      const quote = body as Quote;
      const id = quote.protocol.v2.orderId;
      refundData = id.toLowerCase();
      await depositNativeFor(clients, a, id, BigInt(quote.details.currencyIn.amount) - 1n);
      await statusIs(app, id, 'refund', 'refunded');
      expect(failures).toBe(2);
      const refunds = (await journalOf(db, id)).filter((entry) => entry.purpose === 'refund');
      expect(refunds.map((entry) => entry.state)).toEqual(['mined']);
      const types = await eventTypesOf(db, id);
      expect(types.filter((type) => type === 'RefundSucceeded')).toHaveLength(1);
      // Told on the first attempt that failed, before the one that was sent.
      expect(types.filter((type) => type.startsWith('Refund'))).toEqual([
        'RefundFailed',
        'RefundSubmitted',
        'RefundSucceeded',
      ]);
      const payments = await db.query<{ purpose: string }>(
        'SELECT purpose FROM solver_transactions ORDER BY id',
      );
      expect(payments.rows).toEqual([{ purpose: 'refund' }]);
    } finally {
      await proxyA.stop();
    }
  });
});
