import type { Database } from '../../../src/database/database.js';
import type { NewEvent, ReadAllOptions, RecordedEvent } from '../../../src/event-store/event-store.js';
import { PostgresEventStore } from '../../../src/event-store/postgres/postgres-event-store.js';
import type { Projection } from '../../../projections/projection.js';
import { applyEvents } from '../../../projections/runner/apply-events.js';
import { LiveFollower } from '../../../projections/runner/live-follower.js';
import { ProjectionRunner } from '../../../projections/runner/projection-runner.js';
import { projectionStatus } from '../../../projections/runner/projection-status.js';
import { generationTable } from '../../../projections/runner/projection-table.js';
import { rebuildProjection } from '../../../projections/runner/rebuild.js';
import { streamSummariesProjection } from '../../../projections/stream-summaries/stream-summaries.projection.js';
import { migratedDatabase, type MigratedDatabase, waitForReadable } from '../../support/postgres.js';

const summaries = streamSummariesProjection as Projection;
const copy = (name: string, extra: Partial<Projection> = {}): Projection => ({
  ...summaries,
  name,
  table: `${name}_rows`,
  ...extra,
});
let ids = 0;
const events = (count: number, type = 'Counted'): NewEvent[] =>
  Array.from({ length: count }, () => ({ id: `l-${(ids += 1)}-${Math.random()}`, type, data: { n: ids } }));

/** The store, with each `readAll` counted (and how many events it returned). */
function countingStore(store: PostgresEventStore): { store: PostgresEventStore; reads: number[] } {
  const reads: number[] = [];
  const counting = Object.create(store) as PostgresEventStore;
  counting.readAll = async (options?: ReadAllOptions) => {
    const batch = await store.readAll(options);
    reads.push(batch.events.length);
    return batch;
  };
  return { store: counting, reads };
}

async function rowsOf(db: Database, table: string): Promise<Map<string, number>> {
  const { rows } = await db.query<{ id: string; events: number }>(`SELECT id, events FROM ${table}`);
  return new Map(rows.map((row) => [row.id, row.events]));
}

async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  // A condition that throws (the view does not exist yet) is not met yet.
  while (!(await condition().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe(LiveFollower.name, () => {
  let database: MigratedDatabase;
  let store: PostgresEventStore;
  const errors: string[] = [];
  const follower = (db: Database, reader: PostgresEventStore, projections: readonly Projection[]) =>
    new LiveFollower(db, reader, projections, {
      batchSize: 50,
      refreshMs: 60_000,
      retryMs: 0,
      apply: (tx, { projection, generation }, batch: readonly RecordedEvent[]) =>
        applyEvents(tx, projection, generationTable(projection, generation), batch),
      onError: (projection, error) => errors.push(`${projection.name}: ${String(error)}`),
    });
  const runnerFor = (reader: PostgresEventStore, batchSize = 50) =>
    new ProjectionRunner(database.db, reader, { batchSize, pollIntervalMs: 5, rebuildOnVersionChange: true });

  beforeEach(async () => {
    errors.length = 0;
    database = await migratedDatabase('postgres');
    store = new PostgresEventStore(database.db);
  });
  afterEach(async () => {
    await database.close();
  });

  async function built(projections: readonly Projection[]): Promise<void> {
    const runner = runnerFor(store);
    for (const projection of projections) {
      await runner.prepare(projection);
      while ((await runner.tick(projection)) > 0);
    }
  }

  it('reads each batch of the log once for every projection at the same checkpoint, and nothing more when idle', async () => {
    const projections = ['one', 'two', 'three'].map((name) => copy(name));
    await built(projections);
    const expected = new Map<string, number>();
    for (let i = 0; i < 12; i += 1) {
      await store.appendToStream(`s-${i % 5}`, events(1 + (i % 3)));
      expected.set(`s-${i % 5}`, (expected.get(`s-${i % 5}`) ?? 0) + 1 + (i % 3));
    }
    await waitForReadable(database.db);
    const { store: reader, reads } = countingStore(store);
    const sut = follower(database.db, reader, projections);

    while ((await sut.round()) > 0);
    expect(reads).toEqual([24, 0]);
    for (const projection of projections) {
      expect(await rowsOf(database.db, projection.table)).toEqual(expected);
      expect((await projectionStatus(database.db, store, projection)).live).toMatchObject({
        eventsProcessed: 24,
        lagEvents: 0,
      });
    }
    reads.length = 0;
    for (let round = 0; round < 5; round += 1) await sut.round();
    expect(reads).toEqual([0, 0, 0, 0, 0]);
    expect(errors).toEqual([]);
  });

  it('keeps the other projections moving while one cannot apply a batch, and writes nothing for that one', async () => {
    const healthy = copy('healthy');
    const poisoned = copy('poisoned', {
      evolve: (state, event: RecordedEvent, key) => {
        if (event.type === 'Poison') throw new Error('cannot apply');
        return summaries.evolve(state, event, key);
      },
    });
    await built([healthy, poisoned]);
    await store.appendToStream('a', events(2));
    await store.appendToStream('a', [...events(1), ...events(1, 'Poison')]);
    await store.appendToStream('b', events(3));
    await waitForReadable(database.db);
    const sut = follower(database.db, store, [healthy, poisoned]);

    await sut.round();
    await sut.round();
    expect(await rowsOf(database.db, healthy.table)).toEqual(
      new Map([
        ['a', 4],
        ['b', 3],
      ]),
    );
    expect(await rowsOf(database.db, poisoned.table)).toEqual(new Map());
    expect((await projectionStatus(database.db, store, poisoned)).live).toMatchObject({
      eventsProcessed: 0,
      lagEvents: 7,
    });
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((error) => error === 'poisoned: Error: cannot apply')).toBe(true);
  });

  it('applies every event exactly once beside another instance that moves the same checkpoints', async () => {
    const projections = [copy('shared_a'), copy('shared_b')];
    await built(projections);
    const first = follower(database.db, store, projections);
    const second = follower(database.db, store, projections);
    const expected = new Map<string, number>();
    for (let i = 0; i < 30; i += 1) {
      const stream = `x-${i % 4}`;
      await store.appendToStream(stream, events(1 + (i % 2)));
      expected.set(stream, (expected.get(stream) ?? 0) + 1 + (i % 2));
      if (i % 3 === 0) await waitForReadable(database.db);
      // Either instance may be behind the other's checkpoint: it must notice, read it again and never apply twice.
      await (i % 2 === 0 ? first : second).round();
    }
    await waitForReadable(database.db);
    while ((await first.round()) + (await second.round()) > 0);
    for (const projection of projections) {
      expect(await rowsOf(database.db, projection.table)).toEqual(expected);
    }
    expect(errors).toEqual([]);
  });

  it('follows the new live generation after another process swapped one in', async () => {
    await store.appendToStream('r-1', events(2));
    await waitForReadable(database.db);
    const sut = runnerFor(store);
    await sut.start([summaries]);
    try {
      await until(
        async () => (await rowsOf(database.db, 'stream_summaries')).get('r-1') === 2,
        'the first events applied',
      );
      // The CLI's rebuild, in "another process": its own runner.
      const result = await rebuildProjection(runnerFor(store), store, summaries);
      expect(result.generation).toBe(2);
      await store.appendToStream('r-1', events(3));
      await store.appendToStream('r-2', events(1));
      await until(async () => {
        const rows = await rowsOf(database.db, 'stream_summaries');
        return rows.get('r-1') === 5 && rows.get('r-2') === 1;
      }, 'events after the swap applied to generation 2');
      expect((await projectionStatus(database.db, store, summaries)).live).toMatchObject({
        generation: 2,
        lagEvents: 0,
      });
    } finally {
      await sut.stop();
    }
    expect(errors).toEqual([]);
  });
});
