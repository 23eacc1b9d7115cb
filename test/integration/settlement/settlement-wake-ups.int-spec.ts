import type { Hex } from 'viem';
import { ChainRuntime } from '../../../src/chains/chain-runtime.service.js';
import { DATABASE, type Database } from '../../../src/database/database.js';
import type { AppConfig } from '../../../src/config/app-config.js';
import { APP_CONFIG } from '../../../src/config/config.module.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { ChainClients, postJson, settlementEnv, waitFor } from '../../support/chain-clients.js';
import { type Devnet, startDevnets } from '../../support/devnet.js';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.js';
import {
  depositNativeFor,
  ethQuoteBody,
  eventTypesOf,
  freshRecipient,
  journalOf,
  type Quote,
} from './settlement-support.js';

/** Ten minutes: no loop of the watcher or the solver polls again during a test. */
const NEVER = '600000';

/**
 * Settlement does not wait for polls where it need not: the solver is woken by a deposit confirmed in its process, and
 * one watcher round records the deposits of several requests at once (each request's own commands still in log order).
 */
describe('settlement without waiting for polls', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let database: TestDatabase;
  const apps: TestApp[] = [];
  let seed = 0xd0;

  const start = async (env: Record<string, string>) => {
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
    const quote = body as Quote;
    return { id: quote.protocol.v2.orderId, amount: BigInt(quote.details.currencyIn.amount), recipient };
  };
  const depositTo = (id: Hex, amount: bigint) => depositNativeFor(clients, a, id, amount);

  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = new ChainClients([a, b]);
    database = await createTestDatabase('ferry_settlement_wake_ups');
  }, 120_000);
  afterEach(async () => {
    while (apps.length > 0) await apps.pop()!.close();
  });
  afterAll(async () => {
    await database?.drop();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('fills a deposit confirmed in its process without waiting for its poll interval (10 minutes here)', async () => {
    const app = await start({ CHAIN_WATCHER_RUN: 'false', CHAIN_POLL_INTERVAL_MS: NEVER });
    const db = app.app.get<Database>(DATABASE);
    expect(app.app.get<AppConfig>(APP_CONFIG).chainRuntime.pollIntervalMs).toBe(Number(NEVER));
    // Both requests come after the solver's first rounds, so each fill is the work of a wake-up.
    for (let i = 0; i < 2; i++) {
      const { id, amount, recipient } = await quoteOn(app);
      const receipt = await depositTo(id, amount);
      const indexed = await postJson(app, '/transactions/index', {
        chainId: a.chainId,
        txHash: receipt.transactionHash,
      });
      expect(indexed).toMatchObject({ code: 200, body: { deposits: 1, final: true } });
      await waitFor(
        async () => (await eventTypesOf(db, id)).includes('FillSucceeded'),
        `request ${i + 1} filled`,
        60_000,
      );
      expect((await journalOf(db, id)).map((entry) => [entry.purpose, entry.state])).toEqual([
        ['fill', 'mined'],
      ]);
      expect(
        await clients.balanceOf(b.chainId, '0x0000000000000000000000000000000000000000', recipient),
      ).toBeGreaterThan(0n);
    }
  }, 150_000);

  it('one watcher round records the deposits of several requests; a second deposit of one request stays second', async () => {
    const app = await start({ CHAIN_WATCHER_RUN: 'false', SOLVER_RUN: 'false' });
    const db = app.app.get<Database>(DATABASE);
    const watcher = app.app.get(ChainRuntime).watcher;
    const chain = app.app.get<AppConfig>(APP_CONFIG).chains.chain(a.chainId);
    await watcher.poll(chain); // Sets the cursors at the head: the deposits below all fall in the next round.
    const requests = [await quoteOn(app), await quoteOn(app), await quoteOn(app)];
    const sent = [];
    for (const { id, amount } of requests) sent.push(await depositTo(id, amount));
    const again = await depositTo(requests[0].id, requests[0].amount);

    expect(await watcher.poll(chain)).toBeGreaterThan(0);

    for (const [index, { id }] of requests.entries()) {
      // Each deposit seen is recorded; only the first of request 0 confirms it.
      expect(await eventTypesOf(db, id)).toEqual([
        'RequestQuoted',
        ...(index === 0 ? ['DepositDetected'] : []),
        'DepositDetected',
        'DepositConfirmed',
      ]);
      const confirmed = await db.query<{ tx_hash: string }>(
        `SELECT data->>'txHash' AS tx_hash FROM events WHERE stream_id = $1 AND event_type = 'DepositConfirmed'`,
        [`request-${id.toLowerCase()}`],
      );
      expect(confirmed.rows[0].tx_hash.toLowerCase()).toBe(sent[index].transactionHash.toLowerCase());
    }
    const returned = await db.query<{ request_id: string; reason: string }>(
      'SELECT request_id, reason FROM unmatched_deposits WHERE tx_hash = $1',
      [again.transactionHash.toLowerCase()],
    );
    expect(returned.rows).toEqual([
      { request_id: requests[0].id.toLowerCase(), reason: 'REQUEST_CANNOT_TAKE_DEPOSIT' },
    ]);
  }, 120_000);
});
