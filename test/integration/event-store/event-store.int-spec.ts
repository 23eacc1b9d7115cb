import { runMigrations } from '../../../src/database/migrate.js';
import { PostgresDatabase } from '../../../src/database/postgres-database.js';
import { EsdbEventStore } from '../../../src/event-store/esdb/esdb-event-store.js';
import { appendToStream } from '../../../src/event-store/postgres/append-to-stream.js';
import { PostgresEventStore } from '../../../src/event-store/postgres/postgres-event-store.js';
import { startContainerPostgres } from '../../support/container-postgres.js';
import { findEventStoreDb } from '../../support/eventstoredb.js';
import { migratedDatabase, waitForReadable } from '../../support/postgres.js';
import { type ContractSubject, eventStoreContract } from './event-store.contract.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function postgresSubject(
  db: PostgresDatabase | Awaited<ReturnType<typeof migratedDatabase>>['db'],
  close: () => Promise<void>,
): ContractSubject {
  return {
    store: new PostgresEventStore(db),
    delayedAppend: (streamId, events, delayMs) =>
      db.transaction(async (tx) => {
        const result = await appendToStream(tx, streamId, events, 'any');
        await sleep(delayMs);
        return result;
      }),
    settle: () => waitForReadable(db),
    globalEventIds: true,
    close,
  };
}

for (const kind of ['postgres', 'pglite'] as const) {
  describe(`PostgresEventStore on ${kind}`, () => {
    eventStoreContract(async () => {
      const database = await migratedDatabase(kind, 24);
      return postgresSubject(database.db, () => database.close());
    });
  });
}

// The same suite on a PostgreSQL container and on EventStoreDB, where those can run; reported skipped otherwise.
const containerPostgres = await startContainerPostgres();
if ('skip' in containerPostgres) {
  describe.skip(`PostgresEventStore on a PostgreSQL container (${containerPostgres.skip})`, () => {
    it('passes the event store contract', () => undefined);
  });
} else {
  describe('PostgresEventStore on a PostgreSQL container', () => {
    eventStoreContract(async () => {
      const db = new PostgresDatabase({ url: containerPostgres.url, poolSize: 24 });
      await runMigrations(db, containerPostgres.url);
      return postgresSubject(db, async () => {
        await db.close();
        await containerPostgres.stop();
      });
    });
  });
}

const eventStoreDb = await findEventStoreDb();
if ('skip' in eventStoreDb) {
  describe.skip(`EsdbEventStore (${eventStoreDb.skip})`, () => {
    it('passes the event store contract', () => undefined);
  });
} else {
  describe('EsdbEventStore', () => {
    eventStoreContract(async () => {
      const store = new EsdbEventStore(eventStoreDb.url);
      return {
        store,
        delayedAppend: async (streamId, events, delayMs) => {
          await sleep(delayMs);
          return store.appendToStream(streamId, events, { expectedRevision: 'any' });
        },
        settle: async () => undefined,
        globalEventIds: false,
        close: async () => {
          await store.close();
          await eventStoreDb.stop();
        },
      };
    });
  });
}
