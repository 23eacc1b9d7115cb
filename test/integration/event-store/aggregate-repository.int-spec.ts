import { PostgresEventStore } from '../../../src/event-store/postgres/postgres-event-store.js';
import {
  AggregateRepository,
  ConcurrencyRetriesExhaustedError,
} from '../../../src/event-store/aggregate-repository.js';
import { DomainEvent, StoredEvent } from '../../../src/event-store/domain-event.js';
import { EventRegistry } from '../../../src/event-store/event-registry.js';
import { EventSourcedAggregate } from '../../../src/event-store/event-sourced-aggregate.js';
import { migratedDatabase, type MigratedDatabase } from '../../support/postgres.js';

@StoredEvent('TabOpened')
class TabOpened extends DomainEvent<{ tabId: string; table: number }> {
  declare readonly tabId: string;
  declare readonly table: number;
}

/** Schema version 2: `priceCents` became `price` (a decimal string); the upcaster below converts version 1. */
@StoredEvent('ItemOrdered', 2)
class ItemOrderedRenamedClass extends DomainEvent<{ item: string; price: string }> {
  declare readonly item: string;
  declare readonly price: string;
}

@StoredEvent('PaymentReceived')
class PaymentReceived extends DomainEvent<{ reference: string; amount: string }> {
  declare readonly reference: string;
  declare readonly amount: string;
}

class TabClosedError extends Error {}

class Tab extends EventSourcedAggregate {
  open = false;
  items: string[] = [];
  total = 0n;
  payments: string[] = [];

  constructor(readonly tabId: string) {
    super();
  }

  get streamId(): string {
    return `tab-${this.tabId}`;
  }

  openAt(table: number) {
    if (this.open) return;
    this.apply(new TabOpened({ tabId: this.tabId, table }));
  }

  order(item: string, price: bigint) {
    if (!this.open) throw new TabClosedError(`tab ${this.tabId} is not open`);
    this.apply(new ItemOrderedRenamedClass({ item, price: price.toString() }));
  }

  /** The same payment reported twice is recorded once. */
  pay(reference: string, amount: bigint) {
    if (this.payments.includes(reference)) return;
    this.applyWithId(new PaymentReceived({ reference, amount: amount.toString() }), `payment:${reference}`);
  }

  onTabOpened() {
    this.open = true;
  }
  onItemOrdered(event: ItemOrderedRenamedClass) {
    this.items.push(event.item);
    this.total += BigInt(event.price);
  }
  onPaymentReceived(event: PaymentReceived) {
    this.payments.push(event.reference);
  }
}

describe(AggregateRepository.name, () => {
  let database: MigratedDatabase;
  let store: PostgresEventStore;
  let sut: AggregateRepository;
  let registry: EventRegistry;

  beforeAll(async () => {
    database = await migratedDatabase('postgres');
    store = new PostgresEventStore(database.db);
    registry = new EventRegistry()
      .register(TabOpened, ItemOrderedRenamedClass, PaymentReceived)
      .upcast('ItemOrdered', 1, (data) => ({ item: data.item, price: String(data.priceCents) }));
    sut = new AggregateRepository(store, registry);
  });
  afterAll(async () => {
    await database.close();
  });

  it('creates a stream, stores explicit type names and schema versions, and loads state back', async () => {
    await sut.execute(
      () => new Tab('t1'),
      (tab) => {
        tab.openAt(4);
        tab.order('tea', 350n);
      },
    );
    const stored = await store.readStream('tab-t1');
    expect(stored.map((e) => [e.type, e.schemaVersion, e.data])).toEqual([
      ['TabOpened', 1, { tabId: 't1', table: 4 }],
      ['ItemOrdered', 2, { item: 'tea', price: '350' }],
    ]);
    const tab = await sut.load(() => new Tab('t1'));
    expect([tab.open, tab.items, tab.total, tab.revision]).toEqual([true, ['tea'], 350n, 1n]);
  });

  it('appends nothing when the decision throws a domain error', async () => {
    await expect(
      sut.execute(
        () => new Tab('t2'),
        (tab) => tab.order('cake', 500n),
      ),
    ).rejects.toBeInstanceOf(TabClosedError);
    expect(await store.readStream('tab-t2')).toEqual([]);
  });

  it('upcasts events stored with an older schema version', async () => {
    await store.appendToStream('tab-t3', [
      { id: 'old-1', type: 'TabOpened', data: { tabId: 't3', table: 1 } },
      { id: 'old-2', type: 'ItemOrdered', schemaVersion: 1, data: { item: 'soup', priceCents: 725 } },
    ]);
    const tab = await sut.load(() => new Tab('t3'));
    expect([tab.items, tab.total]).toEqual([['soup'], 725n]);
  });

  it('re-runs a decision on fresh state when another writer got there first, losing nothing', async () => {
    await sut.execute(
      () => new Tab('t4'),
      (tab) => tab.openAt(2),
    );
    // Each round of conflicts lets at least one writer through: six writers need at most six attempts (the default
    // five lost the race now and then on a loaded machine, when all six stayed in step).
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        sut.execute(
          () => new Tab('t4'),
          (tab) => tab.order(`item-${i}`, 100n),
          { maxAttempts: 6 },
        ),
      ),
    );
    const tab = await sut.load(() => new Tab('t4'));
    expect(tab.items.sort()).toEqual(['item-0', 'item-1', 'item-2', 'item-3', 'item-4', 'item-5']);
    expect(tab.total).toBe(600n);
  });

  it('records the same outside fact reported concurrently once', async () => {
    await sut.execute(
      () => new Tab('t5'),
      (tab) => tab.openAt(1),
    );
    await Promise.all(
      Array.from({ length: 5 }, () =>
        sut.execute(
          () => new Tab('t5'),
          (tab) => tab.pay('bank-77', 950n),
        ),
      ),
    );
    const stored = await store.readStream('tab-t5');
    expect(stored.filter((e) => e.type === 'PaymentReceived').map((e) => e.id)).toEqual(['payment:bank-77']);
  });

  it('gives up with a clear error after a bounded number of conflicting attempts', async () => {
    await sut.execute(
      () => new Tab('t6'),
      (tab) => tab.openAt(1),
    );
    let attempts = 0;
    const racing = sut.execute(
      () => new Tab('t6'),
      async (tab) => {
        attempts += 1;
        await store.appendToStream('tab-t6', [
          { id: `interloper-${attempts}`, type: 'TabOpened', data: { tabId: 't6', table: 9 } },
        ]);
        tab.order('bread', 1n);
      },
      { maxAttempts: 3 },
    );
    await expect(racing).rejects.toBeInstanceOf(ConcurrencyRetriesExhaustedError);
    await expect(racing).rejects.toThrow('tab-t6 changed under every one of 3 attempts');
    expect(attempts).toBe(3);
    expect((await store.readStream('tab-t6')).some((e) => e.type === 'ItemOrdered')).toBe(false);
  });

  it('decides a stream said to be new without reading it, and on its real state when it exists after all', async () => {
    const reads: string[] = [];
    const counting = Object.assign(Object.create(store) as PostgresEventStore, {
      readStream: (streamId: string, options?: Parameters<PostgresEventStore['readStream']>[1]) => {
        reads.push(streamId);
        return store.readStream(streamId, options);
      },
    });
    const repository = new AggregateRepository(counting, registry);
    await repository.execute(
      () => new Tab('t7'),
      (tab) => tab.openAt(3),
      { streamIsNew: true },
    );
    expect(reads).toEqual([]);

    // Opening is idempotent on the tab's state: a decision on the empty state would open it a second time.
    const again = await repository.execute(
      () => new Tab('t7'),
      (tab) => tab.openAt(3),
      { streamIsNew: true },
    );
    expect(reads).toEqual(['tab-t7']);
    expect(again.revision).toBe(0n);
    expect((await store.readStream('tab-t7')).map((e) => e.type)).toEqual(['TabOpened']);
  });
});
