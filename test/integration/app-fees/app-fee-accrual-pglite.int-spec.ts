import { AppFeeAccrual } from '../../../src/app-fees/app-fee-accrual.js';
import { APP_FEE_ACCOUNT_EVENTS } from '../../../src/app-fees/domain/app-fee-account-events.js';
import type { ChainRegistry } from '../../../src/chains/chain-registry.js';
import { AggregateRepository } from '../../../src/event-store/aggregate-repository.js';
import { SqlSnapshotStore } from '../../../src/event-store/aggregate-snapshots.js';
import { EventRegistry } from '../../../src/event-store/event-registry.js';
import { PostgresEventStore } from '../../../src/event-store/postgres/postgres-event-store.js';
import type { PriceSource } from '../../../src/quotes/domain/pricing/price-source.js';
import { sampleQuote } from '../../../src/requests/domain/sample-requests.js';
import { migratedDatabase, type MigratedDatabase } from '../../support/postgres.js';

/**
 * Attack (embedded database): the accrual consumer writes accounts and reads request streams through the database
 * while its checkpoint transaction is open. PGlite is one connection whose queries wait for an open transaction to
 * end, so the first batch that names an ended request (or credits anything) waits on itself for ever, holding the
 * transaction: every other query of the process (API, solver, projections) waits behind it.
 */
describe('app-fee accrual on PGlite', () => {
  let database: MigratedDatabase;

  beforeAll(async () => {
    database = await migratedDatabase('pglite');
  });
  afterAll(async () => {
    // Closing waits for the transaction the stuck batch holds: give up after a second.
    await Promise.race([database?.close(), new Promise((resolve) => setTimeout(resolve, 1_000))]);
  });

  it('handles a batch with a failed request without waiting on its own transaction', async () => {
    const store = new PostgresEventStore(database.db);
    const accounts = new AggregateRepository(
      store,
      new EventRegistry().register(...APP_FEE_ACCOUNT_EVENTS),
      undefined,
      new SqlSnapshotStore(database.db),
    );
    const unused = {} as ChainRegistry & PriceSource;
    const accrual = new AppFeeAccrual(database.db, store, accounts, unused, unused, {
      baseChainId: 1,
      baseCurrency: '0x0000000000000000000000000000000000000001',
    });
    await accrual.ensureCheckpoint();
    const quote = sampleQuote(1, { appFeeBps: 0 });
    await store.appendToStream(`request-${quote.requestId}`, [
      { id: 'q1', type: 'RequestQuoted', data: quote },
      {
        id: 'f1',
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
    const outcome = await Promise.race([
      accrual.step().then((read) => (read ? 'read' : 'nothing')),
      new Promise<string>((resolve) => setTimeout(() => resolve('still waiting after 5 s'), 5_000)),
    ]);
    expect(outcome).toBe('read');
  });
});
