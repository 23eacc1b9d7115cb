import { AppFeeAccrual } from '../../../src/app-fees/app-fee-accrual.js';
import { APP_FEE_ACCOUNT_EVENTS } from '../../../src/app-fees/domain/app-fee-account-events.js';
import type { ChainRegistry } from '../../../src/chains/chain-registry.js';
import { AggregateRepository } from '../../../src/event-store/aggregate-repository.js';
import { SqlSnapshotStore } from '../../../src/event-store/aggregate-snapshots.js';
import { EventRegistry } from '../../../src/event-store/event-registry.js';
import { type ReadStreamOptions, type RecordedEvent, START } from '../../../src/event-store/event-store.js';
import { PostgresEventStore } from '../../../src/event-store/postgres/postgres-event-store.js';
import type { PriceSource } from '../../../src/quotes/domain/pricing/price-source.js';
import { sampleQuote } from '../../../src/requests/domain/sample-requests.js';
import { migratedDatabase, type MigratedDatabase, waitForReadable } from '../../support/postgres.js';

/** The event store, holding the accrual's reads of request streams until `releaseReads()` (while its batch is handled). */
class GatedStore extends PostgresEventStore {
  private gate: Promise<void> | null = null;
  private release: () => void = () => undefined;
  reached = false;

  holdReads(): void {
    this.reached = false;
    this.gate = new Promise((resolve) => (this.release = resolve));
  }

  releaseReads(): void {
    this.release();
    this.gate = null;
  }

  override async readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    if (this.gate && streamId.startsWith('request-')) {
      this.reached = true;
      await this.gate;
    }
    return super.readStream(streamId, options);
  }
}

const within = async <T>(ms: number, work: Promise<T>): Promise<T | 'still waiting'> =>
  Promise.race([
    work,
    new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), ms)),
  ]);

/**
 * The app-fee accrual's batch holds nothing the rest of Ferry waits on while it is handled: its effects are appends
 * (reads of request streams, account commands) through the store, not writes in its checkpoint's transaction.
 * Before, the batch ran inside a transaction that locked its checkpoint row: on PGlite (one connection, whose queries
 * wait for an open transaction) the first batch naming an ended request waited on itself for ever, and every query of
 * the process behind it; on PostgreSQL the row lock's transaction id held back every reader of the log (projections,
 * webhooks, the solver's queue) until the batch ended.
 */
describe.each(['pglite', 'postgres'] as const)('app-fee accrual batches on %s', (kind) => {
  let database: MigratedDatabase;
  let store: GatedStore;
  let accrual: AppFeeAccrual;
  let n = 0;

  /** A request that was quoted and whose fill failed: the batch reads its stream to release a sponsor's hold. */
  const failedRequest = async () => {
    n += 1;
    const quote = sampleQuote(n, { appFeeBps: 0 });
    await store.appendToStream(`request-${quote.requestId}`, [
      { id: `q${n}`, type: 'RequestQuoted', data: quote },
      {
        id: `f${n}`,
        type: 'FillFailed',
        data: {
          failReason: 'FILL_REVERTED',
          failedTxHash: null,
          failedTxBlockNumber: null,
          failedCallData: null,
          details: null,
          failedAt: quote.quotedAt,
        },
      },
    ]);
    // Readers of the log stop below the cluster's oldest transaction, which another suite on the server may hold.
    await waitForReadable(database.db);
  };

  beforeAll(async () => {
    database = await migratedDatabase(kind);
    store = new GatedStore(database.db);
    const accounts = new AggregateRepository(
      store,
      new EventRegistry().register(...APP_FEE_ACCOUNT_EVENTS),
      undefined,
      new SqlSnapshotStore(database.db),
    );
    const unused = {} as ChainRegistry & PriceSource;
    accrual = new AppFeeAccrual(database.db, store, accounts, unused, unused, {
      baseChainId: 1,
      baseCurrency: '0x0000000000000000000000000000000000000001',
    });
    await accrual.ensureCheckpoint();
  });
  afterAll(async () => {
    store.releaseReads();
    // Closing waits for a transaction a stuck batch holds: give up after a second.
    await Promise.race([database?.close(), new Promise((resolve) => setTimeout(resolve, 1_000))]);
  });

  it('handles a batch with a failed request without waiting on its own transaction', async () => {
    await failedRequest();
    expect(await within(5_000, accrual.step())).toBe(true);
    expect(await within(5_000, accrual.step())).toBe(false);
  });

  it('lets the log be read while a batch is handled: an event appended meanwhile is readable at once', async () => {
    await failedRequest();
    store.holdReads();
    const step = accrual.step();
    for (let waited = 0; !store.reached && waited < 5_000; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(store.reached).toBe(true);
    const probe = `probe-${kind}`;
    await within(
      5_000,
      new PostgresEventStore(database.db).appendToStream(probe, [{ id: probe, type: 'Probed', data: {} }]),
    );
    const deadline = Date.now() + 3_000;
    const readable = async () => {
      while (Date.now() < deadline) {
        const { events } = await store.readAll({ from: START, filter: { streamPrefixes: [probe] } });
        if (events.length > 0) return events.length;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return 0;
    };
    expect(await within(3_000, readable())).toBe(1);
    store.releaseReads();
    expect(await within(5_000, step)).toBe(true);
  });

  if (kind === 'postgres') {
    it('two instances do not handle one batch at once: the second finds it taken and reads nothing', async () => {
      await failedRequest();
      store.holdReads();
      const first = accrual.step();
      for (let waited = 0; !store.reached && waited < 5_000; waited += 10) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const other = new AppFeeAccrual(
        database.db,
        new PostgresEventStore(database.db),
        new AggregateRepository(store, new EventRegistry().register(...APP_FEE_ACCOUNT_EVENTS)),
        {} as ChainRegistry,
        {} as PriceSource,
        { baseChainId: 1, baseCurrency: '0x0000000000000000000000000000000000000001' },
      );
      expect(await within(5_000, other.step())).toBe(false);
      store.releaseReads();
      expect(await within(5_000, first)).toBe(true);
      expect(await within(5_000, other.step())).toBe(false);
    });
  }
});
