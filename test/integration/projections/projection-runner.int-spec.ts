import type { Database } from '../../../src/database/database.js';
import { PostgresDatabase } from '../../../src/database/postgres-database.js';
import type { NewEvent, Position, RecordedEvent } from '../../../src/event-store/event-store.js';
import { PostgresEventStore } from '../../../src/event-store/postgres/postgres-event-store.js';
import type { Projection } from '../../../projections/projection.js';
import { ProjectionRunner } from '../../../projections/runner/projection-runner.js';
import { projectionStatus, projectionStatuses } from '../../../projections/runner/projection-status.js';
import { rebuildProjection, rebuildProjections } from '../../../projections/runner/rebuild.js';
import { processSharedFold, type SharedFoldMember } from '../../../projections/runner/shared-fold-batch.js';
import { streamSummariesProjection } from '../../../projections/stream-summaries/stream-summaries.projection.js';
import { migratedDatabase, type MigratedDatabase, waitForReadable } from '../../support/postgres.js';

const summaries = streamSummariesProjection as Projection;
let ids = 0;
const events = (count: number, type = 'Counted'): NewEvent[] =>
  Array.from({ length: count }, () => ({ id: `e-${(ids += 1)}-${Math.random()}`, type, data: { n: ids } }));

/**
 * Two projections that share the stream summaries' fold: `left` (the summaries' columns, in `left_rows`) and `right`
 * (in `right_rows`: `doubled`, twice the events, and otherwise left's), with `right` overriding what it names.
 */
const sharedFold = (right: Partial<Projection> = {}): [Projection, Projection] => {
  const left: Projection = { ...summaries, name: 'left', table: 'left_rows', fold: 'summaries' };
  return [
    left,
    {
      ...left,
      name: 'right',
      table: 'right_rows',
      columns: [
        { name: 'doubled', type: 'bigint', value: (state) => 2 * (state as { events: number }).events },
      ],
      ...right,
    },
  ];
};

const runnerFor = (db: Database, store: PostgresEventStore, batchSize = 50) =>
  new ProjectionRunner(db, store, { batchSize, pollIntervalMs: 5, rebuildOnVersionChange: true });

async function drain(runner: ProjectionRunner, projection: Projection, db: Database): Promise<void> {
  await waitForReadable(db);
  while ((await runner.tick(projection)) > 0);
}

async function rowCounts(db: Database): Promise<Map<string, number>> {
  const { rows } = await db.query<{ id: string; events: number }>('SELECT id, events FROM stream_summaries');
  return new Map(rows.map((row) => [row.id, row.events]));
}

describe(ProjectionRunner.name, () => {
  let database: MigratedDatabase;
  let store: PostgresEventStore;

  beforeEach(async () => {
    database = await migratedDatabase('postgres');
    store = new PostgresEventStore(database.db);
  });
  afterEach(async () => {
    await database.close();
  });

  it('builds the first generation at start-up, serves it through a stable view and follows new events', async () => {
    await store.appendToStream('order-1', events(3));
    const sut = runnerFor(database.db, store);
    await sut.prepare(summaries);
    await drain(sut, summaries, database.db);
    expect(await sut.registry.get(summaries.name)).toMatchObject({
      liveGeneration: 1,
      liveVersion: 1,
      buildingGeneration: null,
    });

    await store.appendToStream('order-1', events(2));
    await store.appendToStream('payment-9', events(1, 'PaymentTaken'));
    await drain(sut, summaries, database.db);
    const { rows } = await database.db.query<{
      id: string;
      category: string;
      events: number;
      last_event_type: string;
    }>('SELECT id, category, events, last_event_type FROM stream_summaries ORDER BY id');
    expect(rows).toEqual([
      { id: 'order-1', category: 'order', events: 5, last_event_type: 'Counted' },
      { id: 'payment-9', category: 'payment', events: 1, last_event_type: 'PaymentTaken' },
    ]);
  });

  it('applies every event exactly once with two instances following the same projection', async () => {
    const other = new PostgresDatabase({ url: database.url!, poolSize: 5 });
    const first = runnerFor(database.db, store, 20);
    const second = runnerFor(other, new PostgresEventStore(other), 20);
    try {
      await first.start([summaries]);
      await second.start([summaries]);
      const expected = new Map<string, number>();
      await Promise.all(
        Array.from({ length: 8 }, async (_, writer) => {
          for (let i = 0; i < 40; i += 1) {
            const stream = `w${writer}-${i % 7}`;
            const count = 1 + (i % 3);
            await store.appendToStream(stream, events(count));
            expected.set(stream, (expected.get(stream) ?? 0) + count);
          }
        }),
      );
      const total = [...expected.values()].reduce((a, b) => a + b, 0);
      await waitForReadable(database.db);
      for (let waited = 0; waited < 20_000; waited += 50) {
        const status = await projectionStatus(database.db, store, summaries);
        if (status.live?.lagEvents === 0 && status.live.eventsProcessed === total) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await rowCounts(database.db)).toEqual(expected);
      const status = await projectionStatus(database.db, store, summaries);
      expect(status.live).toMatchObject({ eventsProcessed: total, lagEvents: 0 });
    } finally {
      await first.stop();
      await second.stop();
      await other.close();
    }
  });

  it('writes neither rows nor checkpoint when a batch fails', async () => {
    const poisoned: Projection = {
      ...summaries,
      name: 'poisoned',
      table: 'poisoned',
      evolve: (state, event: RecordedEvent, key) => {
        if (event.type === 'Poison') throw new Error('cannot apply');
        return summaries.evolve(state, event, key);
      },
    };
    const sut = runnerFor(database.db, store, 100);
    await sut.prepare(poisoned);
    await store.appendToStream('a', events(2));
    await drain(sut, poisoned, database.db);
    await store.appendToStream('a', [...events(1), ...events(1, 'Poison')]);
    await waitForReadable(database.db);
    await expect(sut.tick(poisoned)).rejects.toThrow('cannot apply');
    const { rows } = await database.db.query<{ events: number }>('SELECT events FROM poisoned');
    expect(rows).toEqual([{ events: 2 }]);
    const status = await projectionStatus(database.db, store, poisoned);
    expect(status.live).toMatchObject({ eventsProcessed: 2, lagEvents: 2 });
  });

  it('rebuilds blue/green: the live generation keeps serving until the new one is swapped in', async () => {
    for (let i = 0; i < 30; i += 1) await store.appendToStream(`s-${i}`, events(1 + (i % 4)));
    const sut = runnerFor(database.db, store, 10);
    await sut.prepare(summaries);
    await drain(sut, summaries, database.db);
    const before = await rowCounts(database.db);

    const servedDuringRebuild: number[] = [];
    const result = await rebuildProjection(sut, store, summaries, {
      batchSize: 10,
      onProgress: () => {
        void database.db
          .query<{ count: bigint }>('SELECT count(*) AS count FROM stream_summaries')
          .then(({ rows }) => {
            servedDuringRebuild.push(Number(rows[0].count));
          });
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(result.generation).toBe(2);
    expect(result.events).toBe(73);
    expect(servedDuringRebuild.length).toBeGreaterThan(3);
    expect(servedDuringRebuild.every((count) => count === 30)).toBe(true);
    expect(await rowCounts(database.db)).toEqual(before);
    const tables = await database.db.query<{ tablename: string }>(
      "SELECT tablename FROM pg_tables WHERE tablename LIKE 'stream_summaries_g%' ORDER BY 1",
    );
    expect(tables.rows.map((row) => row.tablename)).toEqual(['stream_summaries_g2']);
  });

  it('builds a generation without secondary indexes, indexes it once caught up, then swaps it in', async () => {
    const indexed: Projection = {
      ...summaries,
      name: 'indexed',
      table: 'indexed',
      columns: [
        ...summaries.columns,
        {
          name: 'tags',
          type: 'text[]',
          value: (state) => ((state as { events: number }).events > 1 ? ['a', 'b'] : []),
        },
        { name: 'note', type: 'text', value: () => null },
      ],
      indexes: [
        { name: 'category_idx', columns: ['category', 'id'] },
        { name: 'tags_idx', columns: ['tags'], using: 'gin' },
      ],
    };
    for (let i = 0; i < 12; i += 1) await store.appendToStream(`t-${i}`, events(1 + (i % 3)));
    await waitForReadable(database.db);
    const sut = runnerFor(database.db, store, 5);
    await sut.prepare(indexed);
    const indexesOf = async (table: string) =>
      (
        await database.db.query<{ indexname: string }>(
          'SELECT indexname FROM pg_indexes WHERE tablename = $1 ORDER BY 1',
          [table],
        )
      ).rows.map((row) => row.indexname);

    expect(await sut.tick(indexed)).toBe(5);
    expect(await indexesOf('indexed_g1')).toEqual(['indexed_g1_pkey']);
    while ((await sut.registry.get('indexed'))?.liveGeneration === null) {
      expect(await sut.tick(indexed)).toBeGreaterThan(0);
    }
    expect(await indexesOf('indexed_g1')).toEqual([
      'indexed_g1_category_idx',
      'indexed_g1_pkey',
      'indexed_g1_tags_idx',
    ]);
    const { rows } = await database.db.query<{ id: string; tags: string[]; note: string | null }>(
      'SELECT id, tags, note FROM indexed WHERE id IN ($1, $2) ORDER BY id',
      ['t-0', 't-1'],
    );
    expect(rows).toEqual([
      { id: 't-0', tags: [], note: null },
      { id: 't-1', tags: ['a', 'b'], note: null },
    ]);
  });

  it('rebuilds projections that share a fold from one read, each into its own table, and swaps them all in', async () => {
    const [left, right] = sharedFold({ indexes: [{ name: 'doubled_idx', columns: ['doubled'] }] });
    for (let i = 0; i < 25; i += 1) await store.appendToStream(`f-${i % 9}`, events(1 + (i % 2)));
    await waitForReadable(database.db);
    const sut = runnerFor(database.db, store, 7);
    for (const projection of [left, right]) {
      await sut.prepare(projection);
      while ((await sut.tick(projection)) > 0);
    }
    const rowsOf = async (table: string, column: string) =>
      (await database.db.query(`SELECT id, ${column} AS value FROM ${table} ORDER BY id`)).rows;
    const leftBefore = await rowsOf('left_rows', 'events');
    const rightBefore = await rowsOf('right_rows', 'doubled');

    const reads: number[] = [];
    const counting = Object.create(store) as PostgresEventStore;
    counting.readAll = (options) => {
      reads.push(1);
      return store.readAll(options);
    };
    const results = await rebuildProjections(sut, counting, [left, right], { batchSize: 7 });

    expect(results.map((result) => [result.generation, result.events])).toEqual([
      [2, 37],
      [2, 37],
    ]);
    // One read per batch, plus one after indexing (for what arrived meanwhile): not one per projection.
    expect(reads.length).toBe(Math.ceil(37 / 7) + 1);
    expect(await rowsOf('left_rows', 'events')).toEqual(leftBefore);
    expect(await rowsOf('right_rows', 'doubled')).toEqual(rightBefore);
    expect(rightBefore).toHaveLength(9);
    expect(await sut.registry.get('right')).toMatchObject({ liveGeneration: 2, buildingGeneration: null });
    const { rows } = await database.db.query('SELECT indexname FROM pg_indexes WHERE tablename = $1', [
      'right_rows_g2',
    ]);
    expect(rows).toHaveLength(2);
    await expect(rebuildProjections(sut, store, [left, summaries])).rejects.toThrow('share a fold');
  });

  it("writes no member of a shared fold while another instance holds one member's checkpoint", async () => {
    const [left, right] = sharedFold();
    for (let i = 0; i < 25; i += 1) await store.appendToStream(`l-${i % 9}`, events(1 + (i % 2)));
    await waitForReadable(database.db);
    const sut = runnerFor(database.db, store, 7);
    const members: SharedFoldMember[] = [];
    for (const projection of [left, right]) {
      await sut.registry.ensure(projection);
      members.push({ projection, generation: await sut.registry.startBuild(projection) });
    }
    const alone = () => Promise.reject(new Error('the members stand at the same position'));
    const written = async () => {
      const { rows } = await database.db.query<{ name: string; rows: number; events: string }>(
        `SELECT c.name, c.events_processed AS events,
                (SELECT count(*)::int FROM left_rows_g1) + (SELECT count(*)::int FROM right_rows_g1) AS rows
           FROM projection_checkpoints c WHERE c.name IN ('left', 'right') ORDER BY c.name`,
      );
      return rows.map((row) => [row.name, Number(row.events), row.rows]);
    };
    const other = new PostgresDatabase({ url: database.url!, poolSize: 1 });
    try {
      await other.transaction(async (tx) => {
        await tx.query("SELECT 1 FROM projection_checkpoints WHERE name = 'right' FOR UPDATE");
        const result = await processSharedFold(database.db, store, members, 7, alone);
        expect(result).toMatchObject({ caughtUp: false, contended: true });
        expect(await written()).toEqual([
          ['left', 0, 0],
          ['right', 0, 0],
        ]);
      });
    } finally {
      await other.close();
    }

    expect(await processSharedFold(database.db, store, members, 7, alone)).toEqual({
      processed: 37,
      caughtUp: true,
      contended: false,
    });
    expect(await written()).toEqual([
      ['left', 37, 18],
      ['right', 37, 18],
    ]);
    const { rows } = await database.db.query('SELECT id, doubled FROM right_rows_g1 ORDER BY id');
    expect(rows).toHaveLength(9);
    expect(rows[0]).toEqual({ id: 'l-0', doubled: 8n });
  });

  it('rebuilds itself at start-up when its version changed, serving the old version until the new one is ready', async () => {
    await store.appendToStream('x-1', events(4));
    const v1 = runnerFor(database.db, store);
    await v1.prepare(summaries);
    await drain(v1, summaries, database.db);

    const v2: Projection<{ events: number; doubled: number }> = {
      name: summaries.name,
      version: 2,
      table: summaries.table,
      columns: [{ name: 'doubled', type: 'integer', value: (state) => state.doubled }],
      keysOf: (event) => [event.streamId],
      evolve: (state) => ({ events: (state?.events ?? 0) + 1, doubled: ((state?.events ?? 0) + 1) * 2 }),
    };
    const sut = runnerFor(database.db, store, 2);
    await sut.prepare(v2 as Projection);
    expect(await sut.registry.get(summaries.name)).toMatchObject({
      liveGeneration: 1,
      liveVersion: 1,
      buildingGeneration: 2,
      buildingVersion: 2,
    });
    const stale = await projectionStatus(database.db, store, v2 as Projection);
    expect(stale.stale).toBe(true);
    expect((await database.db.query('SELECT events FROM stream_summaries')).rows).toEqual([{ events: 4 }]);

    await drain(sut, v2 as Projection, database.db);
    expect(await sut.registry.get(summaries.name)).toMatchObject({
      liveGeneration: 2,
      liveVersion: 2,
      buildingGeneration: null,
    });
    expect((await database.db.query('SELECT id, doubled FROM stream_summaries')).rows).toEqual([
      { id: 'x-1', doubled: 8 },
    ]);
  });

  it('rebuilds projections that share a fold together at start-up after a version change, from one read', async () => {
    const [left, right] = sharedFold({ indexes: [{ name: 'doubled_idx', columns: ['doubled'] }] });
    for (let i = 0; i < 25; i += 1) await store.appendToStream(`s-${i % 9}`, events(1 + (i % 2)));
    await waitForReadable(database.db);
    const before = runnerFor(database.db, store, 7);
    for (const projection of [left, right]) {
      await before.prepare(projection);
      while ((await before.tick(projection)) > 0);
    }
    const rowsOf = async (table: string, column: string) =>
      (await database.db.query(`SELECT id, ${column} AS value FROM ${table} ORDER BY id`)).rows;
    const leftBefore = await rowsOf('left_rows', 'events');
    const rightBefore = await rowsOf('right_rows', 'doubled');

    const reads: number[] = [];
    const counting = Object.create(store) as PostgresEventStore;
    counting.readAll = async (options) => {
      const batch = await store.readAll(options);
      if (batch.events.length > 0) reads.push(batch.events.length);
      return batch;
    };
    const next = [left, right].map((projection) => ({ ...projection, version: 2 }));
    const sut = runnerFor(database.db, counting, 7);
    await sut.start(next);
    try {
      const deadline = Date.now() + 15_000;
      while (
        (await sut.registry.get('left'))?.liveVersion !== 2 ||
        (await sut.registry.get('right'))?.liveVersion !== 2
      ) {
        if (Date.now() > deadline) throw new Error('not rebuilt within 15 s');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    } finally {
      await sut.stop();
    }
    // Each batch of the log read once for both, not once per projection.
    expect(reads).toEqual([7, 7, 7, 7, 7, 2]);
    expect(await rowsOf('left_rows', 'events')).toEqual(leftBefore);
    expect(await rowsOf('right_rows', 'doubled')).toEqual(rightBefore);
    expect(await sut.registry.get('right')).toMatchObject({ liveGeneration: 2, buildingGeneration: null });
  });

  it('reports lag in events and seconds', async () => {
    const sut = runnerFor(database.db, store);
    await sut.prepare(summaries);
    await drain(sut, summaries, database.db);
    await store.appendToStream('lagging', events(3));
    await waitForReadable(database.db);
    const status = await projectionStatus(database.db, store, summaries, {
      now: new Date(Date.now() + 10_000),
    });
    expect(status.live?.lagEvents).toBe(3);
    expect(status.live?.lagSeconds).toBeGreaterThanOrEqual(9);
    await drain(sut, summaries, database.db);
    expect((await projectionStatus(database.db, store, summaries)).live).toMatchObject({
      lagEvents: 0,
      lagSeconds: 0,
    });
  });

  it('reports every projection from one registry read and the head, counting the lag only behind the head', async () => {
    const ahead: Projection = { ...summaries, name: 'ahead', table: 'ahead_rows' };
    const behind: Projection = { ...summaries, name: 'behind', table: 'behind_rows' };
    const alsoBehind: Projection = { ...summaries, name: 'also-behind', table: 'also_behind_rows' };
    const unknown: Projection = { ...summaries, name: 'never-prepared', table: 'never_rows' };
    await store.appendToStream('s-1', events(2));
    const sut = runnerFor(database.db, store);
    for (const projection of [ahead, behind, alsoBehind]) {
      await sut.prepare(projection);
      await drain(sut, projection, database.db);
    }
    await store.appendToStream('s-2', events(3));
    await drain(sut, ahead, database.db);
    const counted: Position[] = [];
    const counting = Object.create(store) as PostgresEventStore;
    counting.countAfter = async (position, cap) => {
      counted.push(position);
      return store.countAfter(position, cap);
    };
    const now = new Date(Date.now() + 10_000);

    const statuses = await projectionStatuses(database.db, counting, [ahead, behind, unknown, alsoBehind], {
      now,
    });

    expect(statuses.map((status) => [status.name, status.live?.lagEvents ?? null])).toEqual([
      ['ahead', 0],
      ['behind', 3],
      ['never-prepared', null],
      ['also-behind', 3],
    ]);
    // The two behind share a checkpoint: counted once; the one at the head not at all.
    expect(counted).toHaveLength(1);
    expect(statuses[1].live?.lagSeconds).toBeGreaterThanOrEqual(9);
    for (const [index, projection] of [ahead, behind, unknown, alsoBehind].entries()) {
      expect(await projectionStatus(database.db, store, projection, { now })).toEqual(statuses[index]);
    }
  });
});

describe(`${ProjectionRunner.name} on PGlite`, () => {
  it('builds, follows and rebuilds on the embedded database', async () => {
    const database = await migratedDatabase('pglite');
    try {
      const store = new PostgresEventStore(database.db);
      await store.appendToStream('p-1', events(3));
      const sut = runnerFor(database.db, store);
      await sut.prepare(summaries);
      await drain(sut, summaries, database.db);
      await store.appendToStream('p-2', events(2));
      await drain(sut, summaries, database.db);
      const result = await rebuildProjection(sut, store, summaries);
      expect(result).toMatchObject({ generation: 2, events: 5 });
      expect(await rowCounts(database.db)).toEqual(
        new Map([
          ['p-1', 3],
          ['p-2', 2],
        ]),
      );
    } finally {
      await database.close();
    }
  });

  it('rebuilds projections that share a fold with one statement per batch on the embedded database', async () => {
    const database = await migratedDatabase('pglite');
    try {
      const store = new PostgresEventStore(database.db);
      for (let i = 0; i < 12; i += 1) await store.appendToStream(`q-${i % 5}`, events(1 + (i % 2)));
      type Summary = { streamId: string; category: string; events: number };
      const [left, right] = sharedFold({
        // `events` is left's column (sent once); `category` has left's name but not always its value.
        columns: [
          { name: 'doubled', type: 'bigint', value: (state) => 2 * (state as Summary).events },
          { name: 'events', type: 'integer', value: (state) => (state as Summary).events },
          {
            name: 'category',
            type: 'text',
            value: (state) => ((state as Summary).streamId === 'q-1' ? 'odd' : (state as Summary).category),
          },
        ],
        indexes: [{ name: 'doubled_idx', columns: ['doubled'] }],
      });
      const sut = runnerFor(database.db, store, 4);
      const results = await rebuildProjections(sut, store, [left, right], { batchSize: 4 });
      expect(results.map((result) => result.events)).toEqual([18, 18]);
      const { rows } = await database.db.query<{
        id: string;
        events: number;
        doubled: bigint;
        right_events: number;
        category: string;
      }>(
        `SELECT l.id, l.events, r.doubled, r.events AS right_events, r.category
           FROM left_rows l JOIN right_rows r USING (id) ORDER BY l.id`,
      );
      expect(
        rows.map((row) => [row.id, row.events, Number(row.doubled), row.right_events, row.category]),
      ).toEqual([
        ['q-0', 4, 8, 4, 'q'],
        ['q-1', 5, 10, 5, 'odd'],
        ['q-2', 3, 6, 3, 'q'],
        ['q-3', 3, 6, 3, 'q'],
        ['q-4', 3, 6, 3, 'q'],
      ]);
    } finally {
      await database.close();
    }
  });
});
