import { AppFeeAccountAggregate } from '../../../src/app-fees/domain/app-fee-account.aggregate.js';
import type { AppFeeAccountCommand } from '../../../src/app-fees/domain/app-fee-account-decide.js';
import { APP_FEE_ACCOUNT_EVENTS } from '../../../src/app-fees/domain/app-fee-account-events.js';
import {
  type AppFeeAccountState,
  availableBalance,
} from '../../../src/app-fees/domain/app-fee-account-state.js';
import { AggregateRepository } from '../../../src/event-store/aggregate-repository.js';
import { SqlSnapshotStore } from '../../../src/event-store/aggregate-snapshots.js';
import { EventRegistry } from '../../../src/event-store/event-registry.js';
import type { ReadStreamOptions, RecordedEvent } from '../../../src/event-store/event-store.js';
import { PostgresEventStore } from '../../../src/event-store/postgres/postgres-event-store.js';
import { migratedDatabase, type MigratedDatabase } from '../../support/postgres.js';

const T0 = '2026-11-25T03:00:00.000Z';

/** The event store, counting the events its stream reads hand out. */
class CountingStore extends PostgresEventStore {
  eventsRead = 0;

  override async readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    const events = await super.readStream(streamId, options);
    this.eventsRead += events.length;
    return events;
  }
}

/** The account with a snapshot every two events, to reach the edges in few appends. */
class EveryOtherAccount extends AppFeeAccountAggregate {
  override readonly snapshots = { schema: 1, every: 2 };
}

const accrue = (index: number): AppFeeAccountCommand => ({
  type: 'AccrueAppFee',
  data: {
    requestId: `0xrequest${index}`,
    amount: '10',
    amountUsd: '0.00001',
    usdcPrice: '1',
    accruedAt: T0,
    source: { commit: '1', prepare: String(index) },
  },
});
const hold = (requestId: string): AppFeeAccountCommand => ({
  type: 'HoldSponsorship',
  data: { requestId, amount: '5', at: T0 },
});
const release = (requestId: string): AppFeeAccountCommand => ({
  type: 'ReleaseSponsorship',
  data: { requestId, reason: 'FILL_REVERTED', at: T0 },
});

/**
 * Aggregate snapshots on PostgreSQL, with the app-fee account (the one aggregate that opts in: it takes an event per
 * credited request for as long as it earns). A load reads the last snapshot and the events after it, and always
 * ends in the state the whole stream folds to.
 */
describe('Aggregate snapshots', () => {
  let database: MigratedDatabase;
  let store: CountingStore;
  let snapshots: SqlSnapshotStore;
  let sut: AggregateRepository;
  /** The same log without snapshots: the state every load must end in. */
  let whole: AggregateRepository;
  let n = 0;

  const address = () => `0x${(n += 1).toString(16).padStart(40, '0')}`;
  const handle = (create: () => AppFeeAccountAggregate, command: AppFeeAccountCommand) =>
    sut.execute(create, (account) => account.handle(command));
  const stateOf = async (address: string): Promise<AppFeeAccountState> =>
    (await whole.load(() => new AppFeeAccountAggregate(address))).state;

  beforeAll(async () => {
    database = await migratedDatabase('postgres');
    store = new CountingStore(database.db);
    snapshots = new SqlSnapshotStore(database.db);
    const registry = new EventRegistry().register(...APP_FEE_ACCOUNT_EVENTS);
    sut = new AggregateRepository(store, registry, undefined, snapshots);
    whole = new AggregateRepository(store, registry);
  });
  afterAll(async () => {
    await database.close();
  });

  it('an account credited 260 times loads from its last snapshot: 11 events read, not 260', async () => {
    const account = address();
    for (let index = 0; index < 260; index += 1) {
      await handle(() => new AppFeeAccountAggregate(account), accrue(index));
    }
    // One every 50 events: the last at the 250th (revision 249).
    const { rows } = await database.db.query<{ revision: bigint }>(
      'SELECT revision FROM aggregate_snapshots WHERE stream_id = $1',
      [`app-fee-account-${account}`],
    );
    expect(rows).toEqual([{ revision: 249n }]);

    store.eventsRead = 0;
    const loaded = await sut.load(() => new AppFeeAccountAggregate(account));
    expect(store.eventsRead).toBe(11);
    expect(loaded.revision).toBe(259n);
    expect(loaded.state).toEqual(await stateOf(account));
    expect(availableBalance(loaded.state)).toBe(2_600n);
    // The next credit decides on that state: a fill already taken is not taken again.
    await handle(() => new AppFeeAccountAggregate(account), accrue(259));
    expect((await sut.load(() => new AppFeeAccountAggregate(account))).revision).toBe(259n);
  });

  it('ignores a snapshot of another fold, or one whose event this log does not hold at its revision', async () => {
    const account = address();
    for (let index = 0; index < 60; index += 1) {
      await handle(() => new AppFeeAccountAggregate(account), accrue(index));
    }
    const streamId = `app-fee-account-${account}`;
    const expected = await stateOf(account);
    // An older fold's snapshot, however wrong its state, is not read.
    await database.db.query(
      `UPDATE aggregate_snapshots SET schema = 0, state = jsonb_set(state, '{accrued}', '"999999"') WHERE stream_id = $1`,
      [streamId],
    );
    store.eventsRead = 0;
    expect((await sut.load(() => new AppFeeAccountAggregate(account))).state).toEqual(expected);
    expect(store.eventsRead).toBe(60);
    // A snapshot of another log (the event store was replaced, the database kept) is not taken up either.
    await database.db.query(
      `UPDATE aggregate_snapshots SET schema = $2, event_id = 'another-log' WHERE stream_id = $1`,
      [streamId, new AppFeeAccountAggregate(account).snapshots.schema],
    );
    expect((await sut.load(() => new AppFeeAccountAggregate(account))).state).toEqual(expected);
  });

  it('takes no snapshot from an append the store answered with an earlier one (a retried hold)', async () => {
    const account = address();
    const create = () => new EveryOtherAccount(account);
    await handle(create, accrue(1));
    await handle(create, hold('0xs1'));
    await handle(create, release('0xs1'));
    await handle(create, accrue(2));
    await database.db.query('DELETE FROM aggregate_snapshots WHERE stream_id = $1', [
      `app-fee-account-${account}`,
    ]);
    // Asked again, the hold is its first event by id: the store answers revision 1, where the loaded state is not.
    const retried = await sut.execute(create, (aggregate) => aggregate.handle(hold('0xs1')));
    expect(retried.revision).toBe(1n);
    const { rows } = await database.db.query('SELECT 1 FROM aggregate_snapshots WHERE stream_id = $1', [
      `app-fee-account-${account}`,
    ]);
    expect(rows).toEqual([]);
    const loaded = await sut.load(create);
    expect(loaded.state).toEqual(await stateOf(account));
    expect(availableBalance(loaded.state)).toBe(20n);
  });
});
