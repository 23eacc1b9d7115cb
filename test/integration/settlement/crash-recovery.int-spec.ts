import type pg from 'pg';
import type { Hex } from 'viem';
import { type ChainClients, waitFor, settlementEnv } from '../../support/chain-clients.js';
import type { Devnet } from '../../support/devnet.js';
import type { TestDatabase } from '../../support/postgres.js';
import { startFerry, startProcessSuite, statusAt, stopProcessSuite } from '../../support/process-suite.js';
import {
  deposit,
  depositNativeFor,
  ETH,
  ethQuoteBody,
  freshRecipient,
  type Quote,
} from './settlement-support.js';

/**
 * `kill -9` of a real API process at each step of a fill (journaled, recorded on the request, broadcast), then a
 * restart on the same database: the recipient is paid exactly once, by the one journaled transaction.
 */
describe('a solver killed between the steps of a fill', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let database: TestDatabase;
  let sql: pg.Client;
  let seed = 0x90;

  const ferry = (failpoints: string) =>
    startFerry(database, {
      ...settlementEnv(a, b, { SOLVER_LEASE_MS: '2000' }),
      API_KEY_ENCRYPTION_SECRET: 'ab'.repeat(32),
      FERRY_FAILPOINTS: failpoints,
    });
  /** A 0.02 ETH bridge quoted by the Ferry at `url`, to a fresh recipient. */
  const quoteFrom = async (url: string, extra: Record<string, unknown> = {}) => {
    const recipient = freshRecipient(seed++);
    const response = await fetch(`${url}/quote/v2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ethQuoteBody(a, b, a.accounts.user.address, recipient), ...extra }),
    });
    expect(response.status).toBe(200);
    return { recipient, quote: (await response.json()) as Quote };
  };

  beforeAll(async () => {
    ({ a, b, clients, database, sql } = await startProcessSuite('ferry_crash'));
  }, 120_000);
  afterAll(() => stopProcessSuite({ a, b, database, sql }));

  it.each(['fill:after-record', 'fill:after-submit', 'fill:after-broadcast'])(
    'killed at %s, restarted: exactly one payment',
    async (failpoint) => {
      const first = await ferry(failpoint);
      const { recipient, quote } = await quoteFrom(first.url);
      const id = quote.protocol.v2.orderId;
      await deposit(clients, a, quote);
      expect(await first.process.exited).toBe('SIGKILL');

      const second = await ferry('');
      try {
        await waitFor(
          async () => (await statusAt(second.url, id)) === 'success',
          'success after the restart',
        );
        expect(await clients.balanceOf(b.chainId, ETH, recipient)).toBe(
          BigInt(quote.details.currencyOut.amount),
        );
        const { rows } = await sql.query<{ purpose: string; state: string }>(
          'SELECT purpose, state FROM solver_transactions WHERE request_id = $1 ORDER BY id',
          [id.toLowerCase()],
        );
        expect(rows).toEqual([{ purpose: 'fill', state: 'mined' }]);
      } finally {
        second.process.child.kill('SIGTERM');
        await second.process.exited;
      }
    },
  );

  it.each(['sweep:after-record', 'sweep:after-broadcast'])(
    'killed at %s (a deposit-address transfer being swept), restarted: swept once, filled once',
    async (failpoint) => {
      const first = await ferry(failpoint);
      const { recipient, quote } = await quoteFrom(first.url, { useDepositAddress: true });
      const id = quote.protocol.v2.orderId;
      await deposit(clients, a, quote); // the plain transfer to the deposit address
      expect(await first.process.exited).toBe('SIGKILL');

      const second = await ferry('');
      try {
        await waitFor(
          async () => (await statusAt(second.url, id)) === 'success',
          'success after the restart',
        );
        expect(await clients.balanceOf(b.chainId, ETH, recipient)).toBe(
          BigInt(quote.details.currencyOut.amount),
        );
        // The fill follows the sweep's deposit as soon as it mines; the sweep's own entry is settled when its job
        // resumes (after the dead process's lease), which may come later.
        const journal = async () =>
          (
            await sql.query<{ purpose: string; state: string }>(
              'SELECT purpose, state FROM solver_transactions WHERE request_id = $1 ORDER BY id',
              [id.toLowerCase()],
            )
          ).rows;
        await waitFor(
          async () => (await journal()).every((row) => row.state === 'mined'),
          'the sweep settled',
        );
        expect(await journal()).toEqual([
          { purpose: 'sweep', state: 'mined' },
          { purpose: 'fill', state: 'mined' },
        ]);
      } finally {
        second.process.child.kill('SIGTERM');
        await second.process.exited;
      }
    },
  );

  it.each(['refund:after-record', 'refund:after-broadcast'])(
    'killed at %s (a short deposit being refunded), restarted: refunded exactly once',
    async (failpoint) => {
      const first = await ferry(failpoint);
      const { recipient, quote } = await quoteFrom(first.url);
      const id = quote.protocol.v2.orderId;
      const short = BigInt(quote.details.currencyIn.amount) - 1n;
      const receipt = await depositNativeFor(clients, a, id as Hex, short);
      expect(receipt.status).toBe('success');
      expect(await first.process.exited).toBe('SIGKILL');

      const second = await ferry('');
      try {
        await waitFor(
          async () => (await statusAt(second.url, id)) === 'refund',
          'the refund after the restart',
        );
        const { rows } = await sql.query<{ purpose: string; state: string; value: string }>(
          'SELECT purpose, state, value::text FROM solver_transactions WHERE request_id = $1 ORDER BY id',
          [id.toLowerCase()],
        );
        expect(rows).toEqual([{ purpose: 'refund', state: 'mined', value: short.toString() }]);
        expect(await clients.balanceOf(b.chainId, ETH, recipient)).toBe(0n);
      } finally {
        second.process.child.kill('SIGTERM');
        await second.process.exited;
      }
    },
  );

  it('killed after deciding a refund is dust (1 wei) and before recording it, restarted: skipped, never sent', async () => {
    const first = await ferry('refund:after-dust');
    const { quote } = await quoteFrom(first.url);
    const id = quote.protocol.v2.orderId;
    const solver = a.accounts.solver.address;
    const nonce = await clients.reader(a.chainId).getTransactionCount({ address: solver });
    const receipt = await depositNativeFor(clients, a, id as Hex, 1n);
    expect(receipt.status).toBe('success');
    expect(await first.process.exited).toBe('SIGKILL');

    const second = await ferry('');
    try {
      const status = async () =>
        (await (await fetch(`${second.url}/intents/status/v3?requestId=${id}`)).json()) as {
          status: string;
          refundFailReason: string | null;
        };
      await waitFor(
        async () => (await status()).refundFailReason === 'AMOUNT_TOO_LOW_TO_REFUND',
        'the refund skipped after the restart',
      );
      expect(await status()).toMatchObject({ status: 'failure', failReason: 'DEPOSIT_AMOUNT_TOO_LOW' });
      const { rows } = await sql.query('SELECT 1 FROM solver_transactions WHERE request_id = $1', [
        id.toLowerCase(),
      ]);
      expect(rows).toEqual([]);
      expect(await clients.reader(a.chainId).getTransactionCount({ address: solver })).toBe(nonce);
    } finally {
      second.process.child.kill('SIGTERM');
      await second.process.exited;
    }
  });
});
