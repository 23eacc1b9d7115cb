import { appendToStream } from '../../../src/event-store/postgres/append-to-stream.js';
import { PostgresEventStore } from '../../../src/event-store/postgres/postgres-event-store.js';
import { migratedDatabase, waitForReadable } from '../../support/postgres.js';
import { eventStoreContract } from './event-store.contract.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const kind of ['postgres', 'pglite'] as const) {
  describe(`PostgresEventStore on ${kind}`, () => {
    eventStoreContract(async () => {
      const database = await migratedDatabase(kind, 24);
      const store = new PostgresEventStore(database.db);
      return {
        store,
        delayedAppend: (streamId, events, delayMs) =>
          database.db.transaction(async (tx) => {
            const result = await appendToStream(tx, streamId, events, 'any');
            await sleep(delayMs);
            return result;
          }),
        settle: () => waitForReadable(database.db),
        globalEventIds: true,
        close: () => database.close(),
      };
    });
  });
}
