import type pg from 'pg';
import type { Address, Hex } from 'viem';
import { type ChainClients, settlementEnv, waitFor } from '../../support/chain-clients.js';
import type { Devnet } from '../../support/devnet.js';
import type { TestDatabase } from '../../support/postgres.js';
import { startFerry, startProcessSuite, statusAt, stopProcessSuite } from '../../support/process-suite.js';
import { runBuiltCli, type Spawned } from '../../support/process.js';
import { deposit, freshRecipient, type Quote } from '../settlement/settlement-support.js';

const SECRET = 'ab'.repeat(32);
const SPONSOR = freshRecipient(0x81).toLowerCase();
/** The sponsor's balance: 1 bps of a 100 USDC bridge, less than one quote's fees (so a quote sponsors all of it). */
const B = 10_000n;

/**
 * `kill -9` of a real API process between a sponsored fill's hold on its sponsor's account and the fill's journal
 * entry (failpoint `fill:after-sponsor-hold`), then a restart on the same database: the retried fill finds its hold
 * (one `AppFeeSponsorshipHeld`), the recipient is paid once, and the account pays the sponsorship once, from the hold.
 */
describe('a solver killed between a sponsorship hold and its fill', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let database: TestDatabase;
  let sql: pg.Client;

  const ferry = (failpoints: string) =>
    startFerry(database, {
      ...settlementEnv(a, b, { SOLVER_LEASE_MS: '2000' }),
      API_KEY_ENCRYPTION_KEY: SECRET,
      FERRY_FAILPOINTS: failpoints,
    });
  const stop = async ({ process }: { process: Spawned }) => {
    process.child.kill('SIGTERM');
    await process.exited;
  };
  const usdcBridge = (recipient: Address, extra: Record<string, unknown>) => ({
    user: a.accounts.user.address,
    recipient,
    originChainId: a.chainId,
    destinationChainId: b.chainId,
    originCurrency: a.deployment.usdc,
    destinationCurrency: b.deployment.usdc,
    tradeType: 'EXACT_INPUT',
    ...extra,
  });
  const quote = async (url: string, body: unknown, key?: string) => {
    const response = await fetch(`${url}/quote/v2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as Quote & {
      feeSponsorship: { quoted: { sponsoredTotal: { amount: string } } };
    };
  };
  const available = async (url: string) =>
    BigInt(
      (
        (await (await fetch(`${url}/app-fees/${SPONSOR}/balances`)).json()) as {
          balances: { amount: string }[];
        }
      ).balances[0].amount,
    );
  const accountEvents = async () =>
    (
      await sql.query<{ event_type: string; data: { amount?: string; shortfall?: string } }>(
        'SELECT event_type, data FROM events WHERE stream_id = $1 ORDER BY stream_revision',
        [`app-fee-account-${SPONSOR}`],
      )
    ).rows;

  beforeAll(async () => {
    ({ a, b, clients, database, sql } = await startProcessSuite('ferry_sponsor_crash'));
  }, 120_000);
  afterAll(() => stopProcessSuite({ a, b, database, sql }));

  it('killed at fill:after-sponsor-hold, restarted: held once, filled once, paid once from the hold', async () => {
    // The sponsor earns B of app fees.
    const first = await ferry('');
    try {
      const earning = await quote(
        first.url,
        usdcBridge(freshRecipient(0x82), {
          amount: '100000000',
          appFees: [{ recipient: SPONSOR, fee: '1' }],
        }),
      );
      await deposit(clients, a, earning);
      await waitFor(
        async () => (await statusAt(first.url, earning.protocol.v2.orderId)) === 'success',
        'the earning request',
        60_000,
      );
      await waitFor(async () => (await available(first.url)) === B, 'the sponsor balance', 30_000);
    } finally {
      await stop(first);
    }
    const created = await runBuiltCli(
      ['api-keys:create', '--label', 'crash sponsor', '--sponsorship', '--sponsor-address', SPONSOR],
      { DATABASE_URL: database.url, API_KEY_ENCRYPTION_KEY: SECRET },
    );
    expect(created.code).toBe(0);
    const key = created.stdout.match(/fk_[A-Za-z0-9_-]{43}/)![0];

    const second = await ferry('fill:after-sponsor-hold');
    const recipient = freshRecipient(0x83);
    const sponsored = await quote(
      second.url,
      usdcBridge(recipient, { amount: '10000000', subsidizeFees: true }),
      key,
    );
    expect(BigInt(sponsored.feeSponsorship.quoted.sponsoredTotal.amount)).toBe(B);
    const id = sponsored.protocol.v2.orderId as Hex;
    await deposit(clients, a, sponsored);
    expect(await second.process.exited).toBe('SIGKILL');
    // The hold was written, the fill was not.
    expect((await accountEvents()).map((row) => row.event_type)).toEqual([
      'AppFeeAccrued',
      'AppFeeSponsorshipHeld',
    ]);
    const journal = async () =>
      (
        await sql.query<{ purpose: string; state: string }>(
          'SELECT purpose, state FROM solver_transactions WHERE request_id = $1 ORDER BY id',
          [id.toLowerCase()],
        )
      ).rows;
    expect(await journal()).toEqual([]);

    const third = await ferry('');
    try {
      await waitFor(
        async () => (await statusAt(third.url, id)) === 'success',
        'success after the restart',
        60_000,
      );
      expect(await clients.balanceOf(b.chainId, b.deployment.usdc, recipient)).toBe(
        BigInt(sponsored.details.currencyOut.amount),
      );
      expect(await journal()).toEqual([{ purpose: 'fill', state: 'mined' }]);
      await waitFor(
        async () => (await accountEvents()).some((row) => row.event_type === 'AppFeeSponsorshipPaid'),
        'the sponsor debit',
        30_000,
      );
      const events = await accountEvents();
      expect(events.map((row) => row.event_type)).toEqual([
        'AppFeeAccrued',
        'AppFeeSponsorshipHeld',
        'AppFeeSponsorshipPaid',
      ]);
      expect(events[2].data).toMatchObject({ amount: B.toString(), shortfall: '0' });
      expect(await available(third.url)).toBe(0n);
    } finally {
      await stop(third);
    }
  }, 300_000);
});
