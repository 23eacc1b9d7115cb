import { privateKeyToAccount } from 'viem/accounts';
import type { Database } from '../../../src/database/database.js';
import type { RecordedEvent } from '../../../src/event-store/event-store.js';
import { EvmClients } from '../../../src/solver/evm-clients.js';
import { type ClaimedJob, SolverJobs } from '../../../src/solver/solver-jobs.js';
import { LeaseLostError, TransactionJournal } from '../../../src/solver/transaction-journal.js';
import { loadAppConfig } from '../../../src/config/app-config.js';
import { type Devnet, startDevnet } from '../../support/devnet.js';
import { type MigratedDatabase, migratedDatabase } from '../../support/postgres.js';

const REQUEST = `0x${'ab'.repeat(32)}`;
let position = 0n;
const event = (type: string, data: Record<string, unknown>): RecordedEvent => ({
  streamId: `request-${REQUEST}`,
  revision: position,
  position: { commit: position, prepare: (position += 1n) },
  id: `e${position}`,
  type,
  schemaVersion: 1,
  data,
  metadata: {},
  createdAt: new Date(),
});
const deposit = { chainId: 31337, txHash: `0x${'cd'.repeat(32)}`, logIndex: 2 };

/** The solver's job queue on real PostgreSQL: refunds keyed by deposit, and leases fenced by a token. */
describe('solver jobs', () => {
  let database: MigratedDatabase;
  let db: Database;
  let jobs: SolverJobs;

  beforeAll(async () => {
    database = await migratedDatabase('postgres');
    db = database.db;
    jobs = new SolverJobs(db, { leaseMs: 60_000, maxAttempts: 3 });
  });
  afterAll(() => database?.close());
  const rows = async () =>
    (
      await db.query<{ kind: string; deposit_key: string; reason: string | null }>(
        'SELECT kind, deposit_key, reason FROM solver_jobs WHERE request_id = $1 ORDER BY kind',
        [REQUEST],
      )
    ).rows;

  it('queues a refund only for a confirmed deposit, keyed by it, even when the request expired before it confirmed', async () => {
    // The confirmation timed out before the deposit was final: nothing came in, so nothing to refund yet.
    await db.transaction((tx) =>
      jobs.queue(tx, [event('RequestExpired', { reason: 'DEPOSIT_CONFIRMATION_TIMEOUT' })]),
    );
    expect(await rows()).toEqual([]);
    // The deposit confirms later and its fill fails: its refund is queued (old code: ON CONFLICT swallowed it).
    await db.transaction((tx) =>
      jobs.queue(tx, [
        event('DepositConfirmed', deposit),
        event('FillFailed', { failReason: 'FILL_REVERTED' }),
      ]),
    );
    expect(await rows()).toEqual([
      { kind: 'fill', deposit_key: `31337:${deposit.txHash}:2`, reason: null },
      { kind: 'refund', deposit_key: `31337:${deposit.txHash}:2`, reason: null },
    ]);
    // The same facts again (a replay) queue nothing twice.
    await db.transaction((tx) =>
      jobs.queue(tx, [event('DepositConfirmed', deposit), event('FillFailed', {})]),
    );
    expect(await rows()).toHaveLength(2);
  });

  describe('fencing', () => {
    let chain: Devnet;
    beforeAll(async () => {
      chain = await startDevnet({ chainId: 31338 });
    }, 60_000);
    afterAll(() => chain?.stop());

    it('a worker whose lease was taken over can no longer renew, finish, or journal a transaction', async () => {
      await db.query(
        `UPDATE solver_jobs SET state = 'pending', next_attempt_at = now(), leased_until = NULL`,
      );
      const [first] = (await jobs.claim(10)).filter((job) => job.kind === 'fill');
      // The lease runs out (a long GC pause, a partition); another worker claims the job.
      await db.query(`UPDATE solver_jobs SET leased_until = now() - interval '1 second' WHERE kind = 'fill'`);
      const [second] = (await jobs.claim(10)).filter((job) => job.kind === 'fill');
      expect(second.fence).toBe(first.fence + 1n);

      expect(await jobs.renew(first)).toBe(false);
      await jobs.finish(first, 'done');
      const config = loadAppConfig({
        ENVIRONMENT: 'test',
        DATA_DIR: 'memory://fencing',
        DEVNET_B_RPC_URL: chain.rpcUrl,
      });
      const journal = new TransactionJournal(
        db,
        new EvmClients(),
        privateKeyToAccount(chain.accounts.solver.privateKey),
      );
      const intent = { to: chain.accounts.user.address, value: 1n, data: '0x' as const };
      const destination = config.chains.chain(31338);
      await expect(
        journal.record(
          destination,
          intent,
          { purpose: 'fill', jobKey: 'x' },
          jobs.guard(first as ClaimedJob),
        ),
      ).rejects.toBeInstanceOf(LeaseLostError);
      expect((await db.query(`SELECT 1 FROM solver_transactions WHERE job_key = 'x'`)).rowCount).toBe(0);

      // The current holder still can.
      expect(await jobs.renew(second)).toBe(true);
      const entry = await journal.record(
        destination,
        intent,
        { purpose: 'fill', jobKey: 'x' },
        jobs.guard(second),
      );
      expect(entry.state).toBe('signed');
      const state = await db.query<{ state: string }>(`SELECT state FROM solver_jobs WHERE kind = 'fill'`);
      expect(state.rows[0].state).toBe('pending');
    });

    it('stops waiting for a sent transaction when the solver stops, leaving it broadcast for the next worker', async () => {
      const config = loadAppConfig({
        ENVIRONMENT: 'test',
        DATA_DIR: 'memory://stopping',
        DEVNET_B_RPC_URL: chain.rpcUrl,
      });
      const destination = config.chains.chain(31338);
      // Another key than the test above's: its held entry took the solver's next nonce and was never sent.
      const journal = new TransactionJournal(
        db,
        new EvmClients(),
        privateKeyToAccount(chain.accounts.user.privateKey),
      );
      await chain.setAutomine(false);
      try {
        const entry = await journal.record(
          destination,
          { to: chain.accounts.solver.address, value: 1n, data: '0x' },
          { purpose: 'fill', jobKey: 'stopping' },
        );
        await journal.release(destination, entry);
        const stopping = new AbortController();
        setTimeout(() => stopping.abort(), 300);
        const started = Date.now();
        const settlement = await journal.awaitSettled(destination, entry, {
          maxWaitMs: 30_000,
          signal: stopping.signal,
        });
        expect(settlement).toEqual({ kind: 'pending' });
        expect(Date.now() - started).toBeLessThan(5_000);
        expect((await journal.entriesOf('stopping')).map((row) => row.state)).toEqual(['broadcast']);

        // Whoever takes the job next finds it mined.
        await chain.mine();
        const next = await journal.awaitSettled(destination, entry, { maxWaitMs: 5_000 });
        expect(next.kind).toBe('mined');
      } finally {
        await chain.setAutomine(true);
      }
    });
  });
});
