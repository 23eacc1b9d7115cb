import type { Hash, Hex } from 'viem';
import type { ChainInfo } from '../../../src/chains/chain.js';
import { loadAppConfig } from '../../../src/config/app-config.js';
import type { Database } from '../../../src/database/database.js';
import { abandonGivenUp } from '../../../src/solver/abandon-given-up.js';
import { EvmClients } from '../../../src/solver/evm-clients.js';
import { SolverJobs } from '../../../src/solver/solver-jobs.js';
import { type JournalEntry, TransactionJournal } from '../../../src/solver/transaction-journal.js';
import { type TestApp, waitForProjections } from '../../support/app.js';
import { type ChainClients, postJson, requestStatus, waitFor } from '../../support/chain-clients.js';
import { type Devnet, startDevnet } from '../../support/devnet.js';
import { type MigratedDatabase, migratedDatabase, type TestDatabase } from '../../support/postgres.js';
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
import { fundedKey, InterceptedClients, keysFrom } from './journal-support.js';

const freshKey = keysFrom(14);

/** Clients that run `beforeFees` (once) when the journal reads the chain's fees: a race staged at that moment. */
class HookedClients extends InterceptedClients {
  beforeFees: (() => Promise<void>) | null = null;

  protected intercept(property: string | symbol, value: unknown): unknown {
    if (property !== 'estimateFeesPerGas' || typeof value !== 'function') return value;
    const bound = value as (...args: unknown[]) => unknown;
    return async (...args: unknown[]) => {
      const hook = this.beforeFees;
      this.beforeFees = null;
      await hook?.();
      return bound(...args);
    };
  }
}

/**
 * A solver job that gives up for good (its attempts exhausted) while it holds a journaled transaction it never
 * released, played on two real local chains with the app's own solver.
 */
describe('a job that gives up while it holds a signed transaction', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let database: TestDatabase;
  let app: TestApp;
  let db: Database;
  let requestId: Hex;
  const refundTo = freshRecipient(0x6a);

  beforeAll(async () => {
    ({ a, b, clients, database, app, db } = await startSettlementSuite('ferry_journal_give_up'));
    await waitForWatcherRound(db, a);
  }, 120_000);
  afterAll(() => stopSettlementSuite({ a, b, database, app }));

  const refundJob = () => solverJobOf(db, requestId, 'refund');
  const transactionByHash = (hash: string) =>
    clients
      .reader(a.chainId)
      .getTransaction({ hash: hash as Hash })
      .catch(() => null);

  it("does not leave its nonce a gap: the key's later payments on that chain (a return) still mine", async () => {
    const { code, body } = await postJson(app, '/quote/v2', {
      ...ethQuoteBody(a, b, a.accounts.user.address, freshRecipient(0x6b)),
      refundTo,
    });
    expect(code).toBe(200);
    requestId = (body as Quote).protocol.v2.orderId;
    // The event store refuses this request's RefundSubmitted (a failing append, as a database in trouble would):
    // the refund job signs and journals its refund, then cannot record it, so it never releases it.
    await db.query(`
      CREATE FUNCTION give_up_refuse_append() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'append refused (test)'; END $$`);
    await db.query(`
      CREATE TRIGGER give_up_refuse_append BEFORE INSERT ON events FOR EACH ROW
        WHEN (NEW.event_type = 'RefundSubmitted' AND NEW.stream_id = 'request-${requestId.toLowerCase()}')
        EXECUTE FUNCTION give_up_refuse_append()`);

    // A short deposit: the request fails (DEPOSIT_AMOUNT_TOO_LOW) and its 0.01 ETH is to be refunded.
    await depositNativeFor(clients, a, requestId, 10n ** 16n);
    await waitFor(async () => {
      const job = await refundJob();
      return job?.last_error !== null && job?.last_error !== undefined && job.leased_until === null;
    }, 'the refund job to fail its first attempt');
    expect((await journalOf(db, requestId)).map((entry) => [entry.purpose, entry.state])).toEqual([
      ['refund', 'signed'],
    ]);
    // Earlier attempts spent (an RPC outage before this one): the next failure is its last.
    await waitForRefundGivenUp(db, requestId);

    // A later payment of the same key on the same chain: an unmatched deposit's return.
    const stray = await depositNativeFor(clients, a, `0x${'6c'.repeat(32)}`, 10n ** 16n);
    const returned = await waitFor(
      async () => {
        const { rows } = await db.query<{ state: string; refund_tx_hash: string | null }>(
          `SELECT state, refund_tx_hash FROM unmatched_deposits WHERE tx_hash = $1`,
          [stray.transactionHash.toLowerCase()],
        );
        return rows[0]?.state === 'done' ? rows[0] : null;
      },
      'the return behind the given-up refund to mine',
      20_000,
    ).catch(() => null);
    expect(returned).not.toBeNull();

    // The held refund never left; its nonce went to a zero-value filler (settled by the pump).
    const journal = await waitForRefundFiller(db, requestId, 10_000);
    expect(journal.map((entry) => [entry.purpose, entry.state])).toEqual([
      ['refund', 'void'],
      ['gap', 'mined'],
    ]);
    expect(journal[1].nonce).toBe(journal[0].nonce);
    expect(await transactionByHash(journal[0].tx_hash)).toBeNull();
    expect(await clients.balanceOf(a.chainId, ETH, refundTo)).toBe(0n);
  }, 90_000);

  it('once retried by an operator, refunds for real: the job does not take its own nonce filler for its refund', async () => {
    await db.query('DROP TRIGGER give_up_refuse_append ON events');
    const jobs = new SolverJobs(db, { leaseMs: 60_000, maxAttempts: 12 });
    const key = `refund:${requestId.toLowerCase()}`;
    expect(await jobs.retry(key)).toBe(1);
    await waitFor(async () => (await refundJob())?.state === 'done', 'the retried refund to finish', 30_000);

    expect(await clients.balanceOf(a.chainId, ETH, refundTo)).toBe(10n ** 16n);
    const journal = await journalOf(db, requestId);
    expect(journal.map((entry) => [entry.purpose, entry.state])).toEqual([
      ['refund', 'void'],
      ['gap', 'mined'],
      ['refund', 'mined'],
    ]);
    await waitForProjections(app);
    expect(await requestStatus(app, requestId)).toMatchObject({ status: 'refund' });
    const types = await eventTypesOf(db, requestId);
    // The job that gave up told the refund not sent (REFUND_NOT_SENT); the retried one then refunded.
    expect(types.filter((type) => type.startsWith('Refund'))).toEqual([
      'RefundFailed',
      'RefundSubmitted',
      'RefundSucceeded',
    ]);
    const { rows } = await db.query<{ tx_hash: string }>(
      `SELECT data->>'txHash' AS tx_hash FROM events WHERE stream_id = $1 AND event_type = 'RefundSucceeded'`,
      [`request-${requestId.toLowerCase()}`],
    );
    expect(rows[0].tx_hash.toLowerCase()).toBe(journal[2].tx_hash.toLowerCase());
  }, 60_000);
});

/**
 * The rule behind it, on its own (a key of its own, not the app's solver): a held entry is abandoned when its job has
 * ended, never while its job is alive, and never once it was released.
 */
describe(abandonGivenUp.name, () => {
  let chain: Devnet;
  let database: MigratedDatabase;
  let db: Database;
  let origin: ChainInfo;
  let jobs: SolverJobs;
  let job = 0;

  beforeAll(async () => {
    [database, chain] = await Promise.all([migratedDatabase('postgres'), startDevnet({ chainId: 31338 })]);
    db = database.db;
    origin = loadAppConfig({
      ENVIRONMENT: 'test',
      DATA_DIR: 'memory://abandon-given-up',
      DEVNET_B_RPC_URL: chain.rpcUrl,
    }).chains.chain(31338);
    jobs = new SolverJobs(db, { leaseMs: 60_000, maxAttempts: 12 });
  }, 60_000);
  afterAll(async () => {
    await chain?.stop();
    await database?.close();
  });

  /** A funded key of its own (10 ETH), and its journal. */
  const journalWith = async (clients: EvmClients) => {
    const account = await fundedKey(freshKey, chain.rpcUrl);
    return { account, journal: new TransactionJournal(db, clients, account) };
  };
  /** A refund job in `state`, and a refund journaled (held) under its key. */
  const heldRefund = async (journal: TransactionJournal, state: 'failed' | 'pending' | 'done') => {
    const requestId = `0x${(++job).toString(16).padStart(64, '0')}`;
    await db.query(
      `INSERT INTO solver_jobs (request_id, kind, deposit_key, state) VALUES ($1, 'refund', $2, $3)`,
      [requestId, `${origin.id}:0x${'ee'.repeat(32)}:0`, state],
    );
    const key = `refund:${requestId}:${origin.id}:0x${'ee'.repeat(32)}:0`;
    const entry = await journal.record(
      origin,
      { to: chain.accounts.user.address, value: 1n, data: '0x' },
      { purpose: 'refund', jobKey: key, requestId },
    );
    return { key, requestId, entry };
  };
  const statesOf = async (key: string) =>
    (
      await db.query<{ purpose: string; state: string }>(
        'SELECT purpose, state FROM solver_transactions WHERE job_key = $1 ORDER BY id',
        [key],
      )
    ).rows.map((row) => [row.purpose, row.state]);
  const minedOrNull = (entry: JournalEntry) =>
    new EvmClients()
      .of(origin)
      .getTransactionReceipt({ hash: entry.txHash })
      .catch(() => null);
  const transactionCount = (journal: TransactionJournal) =>
    new EvmClients().of(origin).getTransactionCount({ address: journal.address, blockTag: 'latest' });

  it('after a crash between giving up and abandoning, the sweep abandons the held entry of a job that gave up: the payments behind it mine', async () => {
    const { journal } = await journalWith(new EvmClients());
    const { key, entry } = await heldRefund(journal, 'failed');
    const later = await journal.record(
      origin,
      { to: chain.accounts.user.address, value: 2n, data: '0x' },
      { purpose: 'return', jobKey: 'return:behind-the-gap' },
    );
    await journal.release(origin, later);
    expect(BigInt(await transactionCount(journal))).toBe(entry.nonce);

    expect(await abandonGivenUp(db, journal, [origin])).toBe(1);
    const deadline = Date.now() + 8_000;
    while (Date.now() < deadline && BigInt(await transactionCount(journal)) <= later.nonce) {
      await journal.pump([origin]);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(await minedOrNull(later)).not.toBeNull();
    expect(await minedOrNull(entry)).toBeNull();
    expect((await statesOf(key))[0]).toEqual(['refund', 'void']);
    expect((await statesOf(key))[1][0]).toBe('gap');
    // Nothing left to abandon: a second sweep (another instance) signs no second filler.
    expect(await abandonGivenUp(db, journal, [origin])).toBe(0);
    expect(await statesOf(key)).toHaveLength(2);
  }, 30_000);

  it('never abandons the held entry of a job still alive (pending, or retried by an operator while the sweep signed its filler)', async () => {
    const clients = new HookedClients();
    const { journal } = await journalWith(clients);
    const alive = await heldRefund(journal, 'pending');
    expect(await abandonGivenUp(db, journal, [origin])).toBe(0);
    expect(await statesOf(alive.key)).toEqual([['refund', 'signed']]);

    // A job that gave up, retried (`solver:retry`) after the sweep found its entry, before its abandon commits.
    const retried = await heldRefund(journal, 'failed');
    clients.beforeFees = async () => {
      expect(await jobs.retry(`refund:${retried.requestId}`)).toBe(1);
    };
    expect(await abandonGivenUp(db, journal, [origin])).toBe(0);
    expect(clients.beforeFees).toBeNull();
    expect(await statesOf(retried.key)).toEqual([['refund', 'signed']]);
    // Its worker releases it, as the retried job does.
    await journal.release(origin, alive.entry);
    await journal.release(origin, retried.entry);
    expect(await minedOrNull(retried.entry)).not.toBeNull();
  }, 30_000);

  it('leaves an entry released meanwhile (by a worker that outlived its lease): it is sent, not voided, and gets no filler', async () => {
    const clients = new HookedClients();
    const { account, journal } = await journalWith(clients);
    const { key, entry } = await heldRefund(journal, 'failed');
    // The stale worker's own journal (same key): it releases the entry it holds in memory.
    const stale = new TransactionJournal(db, new EvmClients(), account);
    clients.beforeFees = () => stale.release(origin, entry);
    expect(await abandonGivenUp(db, journal, [origin])).toBe(0);
    expect(clients.beforeFees).toBeNull();
    expect(await minedOrNull(entry)).not.toBeNull();
    expect(await statesOf(key)).toEqual([['refund', 'broadcast']]);
    expect((await journal.settle(origin, entry)).kind).toBe('mined');
  }, 30_000);
});
