import type { Hex } from 'viem';
import { ApiKeysService } from '../../../src/api-keys/api-keys.service.js';
import type { Database } from '../../../src/database/database.js';
import { SolverJobs } from '../../../src/solver/solver-jobs.js';
import { type TestApp, waitForProjections } from '../../support/app.js';
import { type ChainClients, postJson, requestStatus, waitFor } from '../../support/chain-clients.js';
import type { Devnet } from '../../support/devnet.js';
import type { TestDatabase } from '../../support/postgres.js';
import { startSettlementSuite, stopSettlementSuite } from '../../support/settlement-suite.js';
import {
  depositNativeFor,
  ETH,
  ethQuoteBody,
  eventTypesOf,
  freshRecipient,
  journalOf,
  type Quote,
  solverJobOf,
  waitForRefundFiller,
  waitForRefundGivenUp,
  waitForWatcherRound,
} from './settlement-support.js';

interface OutTx {
  readonly txHash: string;
  readonly status: string;
}

/**
 * A refund job that recorded its refund on the request (`RefundSubmitted`) and then gave up before the refund left
 * (its release failed every time: a database in trouble), played on two real local chains with the app's own solver.
 * The journal voids the held refund (decision 0028); the request must not keep showing a refund in flight.
 */
describe('a refund recorded as submitted whose job gave up before it left', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let database: TestDatabase;
  let app: TestApp;
  let db: Database;
  let apiKey: string;
  let requestId: Hex;
  const refundTo = freshRecipient(0x7a);

  beforeAll(async () => {
    ({ a, b, clients, database, app, db } = await startSettlementSuite('ferry_refund_given_up'));
    apiKey = (await app.app.get(ApiKeysService).create({ label: 'refund-given-up' })).key;
    await waitForWatcherRound(db, a);
  }, 120_000);
  afterAll(() => stopSettlementSuite({ a, b, database, app }));

  const refundJob = () => solverJobOf(db, requestId, 'refund');
  const record = async () => {
    await waitForProjections(app);
    const response = await app.http.inject({
      method: 'GET',
      url: `/requests/v3?id=${requestId}`,
      headers: { 'x-api-key': apiKey },
    });
    return (
      response.json() as {
        requests: { status: string; data: { refundFailReason: string | null; outTxs: OutTx[] } }[];
      }
    ).requests[0];
  };

  it('shows the request failed with REFUND_NOT_SENT and the voided refund failed, not a refund pending for ever', async () => {
    const { code, body } = await postJson(app, '/quote/v2', {
      ...ethQuoteBody(a, b, a.accounts.user.address, freshRecipient(0x7b)),
      refundTo,
    });
    expect(code).toBe(200);
    requestId = (body as Quote).protocol.v2.orderId;
    // The journal cannot mark this request's refund broadcast: the job journals it, records RefundSubmitted, and
    // its release fails, every attempt.
    await db.query(`
      CREATE FUNCTION refund_given_up_refuse_release() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'release refused (test)'; END $$`);
    await db.query(`
      CREATE TRIGGER refund_given_up_refuse_release BEFORE UPDATE ON solver_transactions FOR EACH ROW
        WHEN (NEW.state = 'broadcast' AND NEW.purpose = 'refund' AND NEW.request_id = '${requestId.toLowerCase()}')
        EXECUTE FUNCTION refund_given_up_refuse_release()`);

    // A short deposit: the request fails (DEPOSIT_AMOUNT_TOO_LOW) and its 0.01 ETH is to be refunded.
    await depositNativeFor(clients, a, requestId, 10n ** 16n);
    await waitFor(
      async () => (await refundJob())?.last_error?.includes('release refused'),
      'the refund job to fail its release',
    );
    expect(await eventTypesOf(db, requestId)).toContain('RefundSubmitted');
    // Earlier attempts spent: the next failure is its last.
    await waitForRefundGivenUp(db, requestId);
    const journal = await waitForRefundFiller(db, requestId, 20_000);
    expect(journal.map((entry) => [entry.purpose, entry.state])).toEqual([
      ['refund', 'void'],
      ['gap', 'mined'],
    ]);

    const voided = journal[0].tx_hash.toLowerCase();
    const shown = await waitFor(
      async () => {
        const current = await record();
        return current.data.refundFailReason !== null ? current : null;
      },
      'the request to record the refund not sent',
      10_000,
    ).catch(() => record());
    expect(shown.status).toBe('failure');
    expect(shown.data.refundFailReason).toBe('REFUND_NOT_SENT');
    expect(shown.data.outTxs.filter((tx) => tx.txHash.toLowerCase() === voided)).toEqual([
      expect.objectContaining({ status: 'failure' }),
    ]);
    expect(await requestStatus(app, requestId)).toMatchObject({
      status: 'failure',
      refundFailReason: 'REFUND_NOT_SENT',
    });
    // The funds are still in the depository: nothing reached refundTo.
    expect(await clients.balanceOf(a.chainId, ETH, refundTo)).toBe(0n);
  }, 90_000);

  it('once retried by an operator, refunds for real; the voided refund stays failed beside the one that mined', async () => {
    await db.query('DROP TRIGGER refund_given_up_refuse_release ON solver_transactions');
    expect(await new SolverJobs(db, { leaseMs: 60_000, maxAttempts: 12 }).retry(`refund:${requestId}`)).toBe(
      1,
    );
    await waitFor(async () => (await refundJob())?.state === 'done', 'the retried refund to finish', 30_000);

    expect(await clients.balanceOf(a.chainId, ETH, refundTo)).toBe(10n ** 16n);
    const journal = await journalOf(db, requestId);
    expect(journal.map((entry) => [entry.purpose, entry.state])).toEqual([
      ['refund', 'void'],
      ['gap', 'mined'],
      ['refund', 'mined'],
    ]);
    const shown = await record();
    expect(shown.status).toBe('refund');
    expect(shown.data.outTxs.map((tx) => [tx.txHash.toLowerCase(), tx.status])).toEqual(
      expect.arrayContaining([
        [journal[0].tx_hash.toLowerCase(), 'failure'],
        [journal[2].tx_hash.toLowerCase(), 'success'],
      ]),
    );
  }, 60_000);
});
