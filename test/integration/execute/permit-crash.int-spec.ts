import type pg from 'pg';
import type { Hash, Hex } from 'viem';
import { type ChainClients, settlementEnv, waitFor } from '../../support/chain-clients.js';
import type { Devnet } from '../../support/devnet.js';
import type { TestDatabase } from '../../support/postgres.js';
import { startFerry, startProcessSuite, stopProcessSuite } from '../../support/process-suite.js';
import { permitUser, signPermit, usdcPermitQuoteBody } from '../../support/permits.js';

/**
 * `kill -9` of a real API process right after its relayer journaled a permit deposit (held, `signed`), before the
 * request recorded it (failpoint `permit:after-record`), then a restart on the same database. The held entry reserves
 * the relayer's nonce on the chain: left so, every later gasless deposit of that chain waits behind it for ever.
 */
describe('a relayer killed between journaling a permit deposit and recording it', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let database: TestDatabase;
  let sql: pg.Client;
  let seed = 0xd1;

  const ferry = (failpoints: string) =>
    startFerry(database, {
      ...settlementEnv(a, b, { RELAYER_PRIVATE_KEY: a.accounts.relayer.privateKey }),
      API_KEY_ENCRYPTION_KEY: 'ab'.repeat(32),
      FERRY_FAILPOINTS: failpoints,
    });
  const post = (url: string, path: string, body: unknown) =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  /** A fresh user with `usdc` of chain a's USDC, quoted `usePermit` by the Ferry at `url` and signed. */
  const signedPermit = async (url: string, usdc: bigint) => {
    const user = await permitUser(clients, a, seed++, usdc);
    const quoted = await post(url, '/quote/v2', usdcPermitQuoteBody(a, b, user.address, usdc));
    expect(quoted.status).toBe(200);
    const permit = await signPermit(await quoted.json(), user);
    return {
      id: permit.id,
      user: permit.user,
      execute: (to: string) => post(to, permit.path, permit.body),
    };
  };
  const journalOf = async (id: Hex) =>
    (
      await sql.query<{ purpose: string; state: string; tx_hash: string }>(
        'SELECT purpose, state, tx_hash FROM solver_transactions WHERE request_id = $1 ORDER BY id',
        [id.toLowerCase()],
      )
    ).rows;
  const receiptOf = (hash: string) =>
    clients
      .reader(a.chainId)
      .getTransactionReceipt({ hash: hash as Hash })
      .catch(() => null);

  beforeAll(async () => {
    ({ a, b, clients, database, sql } = await startProcessSuite('ferry_permit_crash'));
  }, 120_000);
  afterAll(() => stopProcessSuite({ a, b, database, sql }));

  it('killed at permit:after-record, restarted: later permits of the chain mine, and the held deposit is released', async () => {
    const first = await ferry('permit:after-record');
    const held = await signedPermit(first.url, 2_000_000n);
    await held.execute(first.url).catch(() => null);
    expect(await first.process.exited).toBe('SIGKILL');
    expect((await journalOf(held.id)).map((row) => [row.purpose, row.state])).toEqual([['permit', 'signed']]);

    const second = await ferry('');
    try {
      const later = await signedPermit(second.url, 1_000_000n);
      const answer = await later.execute(second.url);
      expect(answer.status).toBe(200);
      const { txHash } = (await answer.json()) as { txHash: string };
      const mined = await waitFor(() => receiptOf(txHash), 'the later permit deposit to mine', 45_000);
      expect(mined.status).toBe('success');

      // The request still waits for the held deposit and its quote is valid: it is released, not lost.
      const heldHash = (await journalOf(held.id))[0].tx_hash;
      const released = await waitFor(() => receiptOf(heldHash), 'the held permit deposit to mine', 45_000);
      expect(released.status).toBe('success');
      expect(await clients.balanceOf(a.chainId, a.deployment.usdc, held.user)).toBe(0n);
    } finally {
      second.process.child.kill('SIGTERM');
      await second.process.exited;
    }
  });
});
