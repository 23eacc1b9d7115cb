import type { Database } from '../../../src/database/database.js';
import {
  EventIdConflictError,
  type NewEvent,
  WrongExpectedRevisionError,
} from '../../../src/event-store/event-store.js';
import { PostgresEventStore } from '../../../src/event-store/postgres/postgres-event-store.js';
import { migratedDatabase, type MigratedDatabase } from '../../support/postgres.js';

let counter = 0;
const event = (n: number): NewEvent => ({ id: `group-evt-${(counter += 1)}`, type: 'Counted', data: { n } });

/** The database with every statement's text recorded, and the group statement failing while `failGroups` is set. */
function watched(db: Database): { db: Database; statements: string[]; failGroups: { on: boolean } } {
  const statements: string[] = [];
  const failGroups = { on: false };
  const query: Database['query'] = (text, params, options) => {
    statements.push(text);
    if (failGroups.on && text.includes('ferry_append_to_streams')) {
      return Promise.reject(new Error('the group statement failed'));
    }
    return db.query(text, params, options);
  };
  return {
    db: { ...db, kind: db.kind, query, transaction: (fn) => db.transaction(fn) },
    statements,
    failGroups,
  };
}

for (const kind of ['postgres', 'pglite'] as const) {
  describe(`Appends committed in groups (${kind})`, () => {
    let database: MigratedDatabase;
    let spy: ReturnType<typeof watched>;
    let store: PostgresEventStore;

    beforeAll(async () => {
      database = await migratedDatabase(kind, 8);
      spy = watched(database.db);
      store = new PostgresEventStore(spy.db);
    });
    afterAll(async () => {
      await database.close();
    });
    beforeEach(() => {
      spy.statements.length = 0;
      spy.failGroups.on = false;
    });

    it('writes appends asked together in fewer statements, each answered as if alone', async () => {
      await store.appendToStream('contested', [event(0)], { expectedRevision: 'no_stream' });
      const retried = [event(1)];
      await store.appendToStream('retried', retried, { expectedRevision: 'no_stream' });
      const taken = event(2);
      await store.appendToStream('owner', [taken]);
      spy.statements.length = 0;

      const fresh = Array.from({ length: 30 }, (_, i) =>
        store.appendToStream(`fresh-${i}`, [event(i), event(i)], { expectedRevision: 'no_stream' }),
      );
      const outcomes = await Promise.allSettled([
        ...fresh,
        store.appendToStream('contested', [event(100)], { expectedRevision: 0n }),
        store.appendToStream('contested', [event(101)], { expectedRevision: 0n }),
        store.appendToStream('retried', retried, { expectedRevision: 'no_stream' }),
        store.appendToStream('stranger', [taken]),
      ]);

      const answers = outcomes.map((outcome) =>
        outcome.status === 'fulfilled' ? outcome.value : outcome.reason,
      );
      const stored = answers.slice(0, 30) as {
        nextExpectedRevision: bigint;
        position: { prepare: bigint };
      }[];
      expect(stored.every((answer) => answer.nextExpectedRevision === 1n)).toBe(true);
      expect(new Set(stored.map((answer) => answer.position.prepare)).size).toBe(30);
      // Of two appends at one revision in one group, the first asked wins and the second is told so.
      expect(answers[30]).toMatchObject({ nextExpectedRevision: 1n });
      expect(answers[31]).toBeInstanceOf(WrongExpectedRevisionError);
      expect(answers[32]).toMatchObject({ nextExpectedRevision: 0n });
      expect(answers[33]).toBeInstanceOf(EventIdConflictError);

      const groups = spy.statements.filter((text) => text.includes('ferry_append_to_streams')).length;
      const alone = spy.statements.filter((text) => text.includes('ferry_append_to_stream(')).length;
      expect(groups).toBeGreaterThan(0);
      expect(groups + alone).toBeLessThan(34);
      for (let i = 0; i < 30; i += 1) expect(await store.readStream(`fresh-${i}`)).toHaveLength(2);
      expect((await store.readStream('contested')).map((e) => e.data)).toEqual([{ n: 0 }, { n: 100 }]);
      expect(await store.readStream('retried')).toHaveLength(1);
      expect(await store.readStream('stranger')).toEqual([]);
    });

    it('tries each append of a group again on its own when the group statement fails', async () => {
      await store.appendToStream('warm-up', [event(0)]);
      spy.failGroups.on = true;
      const outcomes = await Promise.all(
        Array.from({ length: 10 }, (_, i) => store.appendToStream(`after-failure-${i}`, [event(i)])),
      );
      expect(outcomes).toHaveLength(10);
      expect(spy.statements.some((text) => text.includes('ferry_append_to_streams'))).toBe(true);
      for (let i = 0; i < 10; i += 1) expect(await store.readStream(`after-failure-${i}`)).toHaveLength(1);
    });
  });
}
