import type pg from 'pg';
import type { Hash } from 'viem';
import { type ChainClients, settlementEnv, waitFor } from '../support/chain-clients.js';
import type { Devnet } from '../support/devnet.js';
import type { TestDatabase } from '../support/postgres.js';
import { startProcessSuite, stopProcessSuite } from '../support/process-suite.js';
import { freePort, type Spawned, spawnNode } from '../support/process.js';
import {
  deposit,
  ETH,
  ethQuoteBody,
  freshRecipient,
  type Quote,
} from '../integration/settlement/settlement-support.js';

const MAIN = 'dist/src/main.js';
const REQUESTS = 6;
/** The destination chain mines a block every BLOCK_MS: a broadcast fill waits that long for its receipt. */
const BLOCK_MS = 8_000;
/** SIGTERM to exit: well under a block of the destination, so the solver cannot simply wait for its fills. */
const EXIT_BOUND_MS = 5_000;

interface JournalRow {
  readonly request_id: string;
  readonly purpose: string;
  readonly state: string;
  readonly tx_hash: Hash;
  readonly chain_id: number;
}

/**
 * SIGTERM to a real API process while its solver works fills (journaled, broadcast, waiting for a block of a slow
 * destination chain), then a second instance on the same database: the first exits in time leaving no job leased,
 * its journal says exactly what reached the chain, and every request is paid exactly once.
 */
describe('SIGTERM while the solver works fills', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let database: TestDatabase;
  let sql: pg.Client;

  const ferry = async (): Promise<{ process: Spawned; url: string }> => {
    const port = await freePort();
    const process = spawnNode(MAIN, [], {
      ENVIRONMENT: 'test',
      LOG_LEVEL: 'fatal',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: database.url,
      // The default lease: a lease the first instance kept would hold its job for a minute.
      ...settlementEnv(a, b, { SOLVER_LEASE_MS: '60000' }),
      API_KEY_ENCRYPTION_SECRET: 'ab'.repeat(32),
    });
    const url = `http://127.0.0.1:${port}`;
    let health = '';
    await waitFor(
      async () => {
        const response = await fetch(`${url}/health`).catch(() => null);
        health = (await response?.text()) ?? '';
        return response?.ok;
      },
      `Ferry on ${port}`,
      90_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}: ${health} ${process.stderr().slice(-500)}`);
    });
    return { process, url };
  };
  const journal = async () =>
    (
      await sql.query<JournalRow>(
        'SELECT request_id, purpose, state, tx_hash, chain_id::int FROM solver_transactions ORDER BY id',
      )
    ).rows;

  beforeAll(async () => {
    ({ a, b, clients, database, sql } = await startProcessSuite('ferry_solver_stop'));
    // The destination turns slow: fills sit in its mempool until the next block.
    await b.setAutomine(false);
    await b.setIntervalMining(BLOCK_MS);
  }, 120_000);
  afterAll(() => stopProcessSuite({ a, b, database, sql }));

  it('exits in time, leaves no lease and a consistent journal; the next instance pays each request once', async () => {
    const first = await ferry();
    let second: Awaited<ReturnType<typeof ferry>> | undefined;
    try {
      const requests: { recipient: `0x${string}`; quote: Quote }[] = [];
      for (let n = 0; n < REQUESTS; n += 1) {
        const recipient = freshRecipient(0xa0 + n);
        const response = await fetch(`${first.url}/quote/v2`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(ethQuoteBody(a, b, a.accounts.user.address, recipient)),
        });
        expect(response.status).toBe(200);
        requests.push({ recipient, quote: (await response.json()) as Quote });
      }
      // Deposits one after another; SIGTERM lands once fills are on their way, while later deposits still come.
      const deposits = (async () => {
        for (const { quote } of requests) await deposit(clients, a, quote);
      })();
      await waitFor(
        async () => (await journal()).filter((row) => row.state === 'broadcast').length >= 2,
        'two fills broadcast',
      );
      const sigtermAt = Date.now();
      first.process.child.kill('SIGTERM');
      let bound: NodeJS.Timeout | undefined;
      const code = await Promise.race([
        first.process.exited,
        new Promise((resolve) => (bound = setTimeout(() => resolve('timeout'), 30_000))),
      ]);
      clearTimeout(bound);
      const exitedAfterMs = Date.now() - sigtermAt;
      await deposits;

      expect({ code, stderr: first.process.stderr() }).toEqual({ code: 0, stderr: '' });
      expect(exitedAfterMs).toBeLessThan(EXIT_BOUND_MS);

      // No job is left leased by the instance that stopped.
      const leased = await sql.query(
        'SELECT request_id, kind, state FROM solver_jobs WHERE leased_until IS NOT NULL AND leased_until > now()',
      );
      expect(leased.rows).toEqual([]);

      // The journal says what reached the chain: a broadcast or mined entry is known to the node, a held (signed)
      // one is not (its stored bytes are safe to send).
      const stopped = await journal();
      expect(stopped.filter((row) => row.purpose === 'fill').length).toBeGreaterThanOrEqual(2);
      for (const row of stopped) {
        expect({ purpose: row.purpose, state: row.state }).toEqual({
          purpose: 'fill',
          state: expect.stringMatching(/^(signed|broadcast|mined)$/),
        });
        const known = await clients.reader(row.chain_id).request({
          method: 'eth_getTransactionByHash',
          params: [row.tx_hash],
        });
        expect({ hash: row.tx_hash, state: row.state, known: known !== null }).toEqual({
          hash: row.tx_hash,
          state: row.state,
          known: row.state !== 'signed',
        });
      }

      // The next instance finishes every request: each recipient paid exactly its output, by one mined fill.
      second = await ferry();
      const statusOf = async (id: string) =>
        (
          (await (await fetch(`${second!.url}/intents/status/v3?requestId=${id}`)).json()) as {
            status: string;
          }
        ).status;
      for (const { quote } of requests) {
        await waitFor(
          async () => (await statusOf(quote.protocol.v2.orderId)) === 'success',
          `success of ${quote.protocol.v2.orderId}`,
          90_000,
        );
      }
      for (const { recipient, quote } of requests) {
        expect(await clients.balanceOf(b.chainId, ETH, recipient)).toBe(
          BigInt(quote.details.currencyOut.amount),
        );
      }
      const settled = await journal();
      expect(settled.map((row) => `${row.purpose}:${row.state}`).sort()).toEqual(
        requests.map(() => 'fill:mined'),
      );
      expect(new Set(settled.map((row) => row.request_id)).size).toBe(REQUESTS);
      const successes = await sql.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM events WHERE event_type = 'FillSucceeded'",
      );
      expect(successes.rows[0].n).toBe(REQUESTS);
    } finally {
      first.process.child.kill('SIGKILL');
      if (second) {
        second.process.child.kill('SIGTERM');
        await second.process.exited;
      }
    }
  }, 240_000);
});
