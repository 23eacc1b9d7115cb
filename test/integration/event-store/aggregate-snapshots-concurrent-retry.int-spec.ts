import { AppFeeAccountAggregate } from '../../../src/app-fees/domain/app-fee-account.aggregate.js';
import type { AppFeeAccountCommand } from '../../../src/app-fees/domain/app-fee-account-decide.js';
import { APP_FEE_ACCOUNT_EVENTS } from '../../../src/app-fees/domain/app-fee-account-events.js';
import { availableBalance } from '../../../src/app-fees/domain/app-fee-account-state.js';
import { AggregateRepository } from '../../../src/event-store/aggregate-repository.js';
import { SqlSnapshotStore } from '../../../src/event-store/aggregate-snapshots.js';
import { EventRegistry } from '../../../src/event-store/event-registry.js';
import { PostgresEventStore } from '../../../src/event-store/postgres/postgres-event-store.js';
import { migratedDatabase, type MigratedDatabase } from '../../support/postgres.js';

const T0 = '2026-11-25T03:00:00.000Z';

/** The account with a snapshot every two events, to reach the edge in two appends. */
class EveryOtherAccount extends AppFeeAccountAggregate {
  override readonly snapshots = { schema: 1, every: 2 };
}

/** The app fee of one fill, converted at the USDC price the consumer instance read for its batch. */
const accrue = (index: number, amount: string, usdcPrice: string): AppFeeAccountCommand => ({
  type: 'AccrueAppFee',
  data: {
    requestId: `0xrequest${index}`,
    amount,
    amountUsd: '1000',
    usdcPrice,
    accruedAt: T0,
    source: { commit: '1', prepare: String(index) },
  },
});

/**
 * Attack: two accrual consumer instances handle the same batch at once (the first one's checkpoint transaction was
 * ended under it, e.g. by idle_in_transaction_session_timeout, and the second took the checkpoint). Each prepared the
 * batch with its own USDC price, so they decide the same fill's credit (same event id) with different amounts. The
 * first appends and dies before its snapshot write; the second's append conflicts, the store recognises the event id
 * at the revision right after the one it loaded, and the repository took that for "written now": it snapshotted its
 * own in-memory state, which the log does not hold.
 */
describe('Aggregate snapshots: an append another writer made with the same event ids', () => {
  let database: MigratedDatabase;
  let snapshots: SqlSnapshotStore;
  let withSnapshots: AggregateRepository;
  /** Instance A: appends, then crashes before any snapshot write (a repository that writes none). */
  let crashingBeforeSnapshot: AggregateRepository;
  /** The same log without snapshots: the state every load must end in. */
  let whole: AggregateRepository;

  beforeAll(async () => {
    database = await migratedDatabase('postgres');
    const store = new PostgresEventStore(database.db);
    snapshots = new SqlSnapshotStore(database.db);
    const registry = new EventRegistry().register(...APP_FEE_ACCOUNT_EVENTS);
    withSnapshots = new AggregateRepository(store, registry, undefined, snapshots);
    crashingBeforeSnapshot = new AggregateRepository(store, registry);
    whole = new AggregateRepository(store, registry);
  });
  afterAll(async () => {
    await database.close();
  });

  it('never snapshots a state decided on data other than what the log holds at that revision', async () => {
    const account = '0x00000000000000000000000000000000000000aa';
    const create = () => new EveryOtherAccount(account);
    await crashingBeforeSnapshot.execute(create, (a) => a.handle(accrue(1, '10', '1')));

    // Instance B loads the account (revision 0) and decides fill 2 at its price: 1000 USD = 2000 units (made-up
    // prices, large to make the difference plain; a real one is a few units per credit, kept for ever).
    const b = await withSnapshots.load(create);
    b.handle(accrue(2, '2000', '0.5'));
    // Instance A decided the same fill at its price and appended first (revision 1), then crashed.
    await crashingBeforeSnapshot.execute(create, (a) => a.handle(accrue(2, '1000', '1')));
    // B's append conflicts; the store answers A's event at revision 1 = B's loaded revision + 1.
    await withSnapshots.save(b);

    const expected = (await whole.load(create)).state;
    expect(expected.accrued).toBe('1010');
    const loaded = await withSnapshots.load(create);
    expect(loaded.state).toEqual(expected);
    expect(availableBalance(loaded.state)).toBe(1010n);
  });
});
