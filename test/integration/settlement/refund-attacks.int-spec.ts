import type { Hex } from 'viem';
import { DATABASE, type Database } from '../../../src/database/database.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { ChainClients, settlementEnv, waitFor } from '../../support/chain-clients.js';
import { type Devnet, startDevnets } from '../../support/devnet.js';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { depositNativeFor } from './settlement-support.js';

/**
 * Money going back to users, played by an attacker on two real local chains: returns that would cost the solver
 * more than they give back.
 */
describe('refunds and returns under attack', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let database: TestDatabase;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = new ChainClients([a, b]);
    database = await createTestDatabase('ferry_refund_attacks');
  }, 120_000);
  afterEach(async () => {
    while (apps.length > 0) await apps.pop()!.close();
  });
  afterAll(async () => {
    await database?.drop();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('dust deposited for an id no quote issued (1 wei each) is not returned: the solver spends no gas on it', async () => {
    const app = await startTestApp(settlementEnv(a, b), [], undefined, database);
    apps.push(app);
    const db = app.app.get<Database>(DATABASE);
    // Wait for the watcher's first round, so the deposits below are this database's to return.
    await waitFor(async () => {
      const { rows } = await db.query('SELECT 1 FROM chain_cursors WHERE chain_id = $1', [a.chainId]);
      return rows.length > 0;
    }, "the watcher's first round");
    const solverNonce = await clients
      .reader(a.chainId)
      .getTransactionCount({ address: a.accounts.solver.address });
    const dust: string[] = [];
    for (let i = 0; i < 3; i++) {
      const receipt = await depositNativeFor(clients, a, `0x${'d5'.repeat(31)}0${i}` as Hex, 1n);
      dust.push(receipt.transactionHash.toLowerCase());
    }
    const rowsOf = async () =>
      (
        await db.query<{ state: string; reason: string }>(
          'SELECT state, reason FROM unmatched_deposits WHERE tx_hash = ANY($1) ORDER BY tx_hash',
          [dust],
        )
      ).rows;
    // Each is kept (reason UNKNOWN_REQUEST) and settled without a transaction.
    await waitFor(
      async () => {
        const rows = await rowsOf();
        return rows.length === 3 && rows.every((row) => row.state !== 'pending' && row.state !== 'sent');
      },
      'the dust rows to be settled',
      20_000,
    );
    expect(await rowsOf()).toEqual(Array(3).fill({ state: 'dust', reason: 'UNKNOWN_REQUEST' }));
    const returns = await db.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM solver_transactions WHERE purpose = 'return'`,
    );
    expect(returns.rows[0].n).toBe('0');
    expect(await clients.reader(a.chainId).getTransactionCount({ address: a.accounts.solver.address })).toBe(
      solverNonce,
    );
  });
});
