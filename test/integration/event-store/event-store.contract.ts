import {
  type EventStore,
  EventIdConflictError,
  type NewEvent,
  type RecordedEvent,
  START,
  WrongExpectedRevisionError,
} from '../../../src/event-store/event-store.js';

export interface ContractSubject {
  readonly store: EventStore;
  /** Appends, holding the write open for `delayMs` before it commits (where the store has transactions). */
  delayedAppend(streamId: string, events: NewEvent[], delayMs: number): Promise<unknown>;
  /** Resolves once everything appended so far is readable through readAll (no writer still in flight). */
  settle(): Promise<void>;
  /** Whether an event id is unique across all streams (PostgreSQL), or only within one (EventStoreDB). */
  readonly globalEventIds: boolean;
  close(): Promise<void>;
}

let counter = 0;
const unique = (label: string) => `${label}-${Date.now().toString(36)}-${(counter += 1)}`;
const event = (type = 'ThingHappened', data: unknown = { n: 1 }): NewEvent => ({
  id: `${unique('evt')}`,
  type,
  data,
  metadata: { correlationId: 'c-1' },
});

async function readEverything(store: EventStore, settle: () => Promise<void>): Promise<RecordedEvent[]> {
  await settle();
  const all: RecordedEvent[] = [];
  let from = START;
  for (;;) {
    const batch = await store.readAll({ from, maxCount: 500 });
    all.push(...batch.events);
    from = batch.position;
    if (batch.isEnd) return all;
  }
}

/**
 * The behaviour every event-store adapter must have. Each adapter's spec calls this with a fresh, empty store.
 */
export function eventStoreContract(open: () => Promise<ContractSubject>): void {
  let subject: ContractSubject;
  let sut: EventStore;

  beforeAll(async () => {
    subject = await open();
    sut = subject.store;
  });
  afterAll(async () => {
    await subject?.close();
  });

  describe('appendToStream', () => {
    it('appends to a new stream from revision 0 and reads the events back with their data', async () => {
      const stream = unique('order');
      const events = [event('OrderPlaced', { amount: '100' }), event('OrderPaid', { amount: '100' })];
      const result = await sut.appendToStream(stream, events, { expectedRevision: 'no_stream' });
      expect(result.nextExpectedRevision).toBe(1n);

      const read = await sut.readStream(stream);
      expect(read.map((e) => [e.revision, e.type, e.id, e.data, e.metadata, e.schemaVersion])).toEqual([
        [0n, 'OrderPlaced', events[0].id, { amount: '100' }, { correlationId: 'c-1' }, 1],
        [1n, 'OrderPaid', events[1].id, { amount: '100' }, { correlationId: 'c-1' }, 1],
      ]);
      expect(read[1].position).toEqual(result.position);
      expect(read[0].createdAt).toBeInstanceOf(Date);
    });

    it('keeps the schema version it is given', async () => {
      const stream = unique('versioned');
      await sut.appendToStream(stream, [{ ...event(), schemaVersion: 3 }]);
      expect((await sut.readStream(stream))[0].schemaVersion).toBe(3);
    });

    it('honours every kind of expected revision and writes nothing when it does not hold', async () => {
      const stream = unique('expect');
      await expect(
        sut.appendToStream(stream, [event()], { expectedRevision: 'stream_exists' }),
      ).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      await expect(sut.appendToStream(stream, [event()], { expectedRevision: 3n })).rejects.toMatchObject({
        actual: 'no_stream',
      });
      await sut.appendToStream(stream, [event()], { expectedRevision: 'any' });
      await expect(
        sut.appendToStream(stream, [event()], { expectedRevision: 'no_stream' }),
      ).rejects.toMatchObject({
        name: 'WrongExpectedRevisionError',
        actual: 0n,
      });
      await expect(sut.appendToStream(stream, [event()], { expectedRevision: 5n })).rejects.toMatchObject({
        actual: 0n,
      });
      await sut.appendToStream(stream, [event()], { expectedRevision: 'stream_exists' });
      await sut.appendToStream(stream, [event(), event()], { expectedRevision: 1n });
      const result = await sut.appendToStream(stream, [event()], { expectedRevision: 'any' });
      expect(result.nextExpectedRevision).toBe(4n);
      expect((await sut.readStream(stream)).map((e) => e.revision)).toEqual([0n, 1n, 2n, 3n, 4n]);
    });

    it('appends a retried append with the same event ids once', async () => {
      const stream = unique('retry');
      const events = [event(), event()];
      const first = await sut.appendToStream(stream, events, { expectedRevision: 'no_stream' });
      const again = await sut.appendToStream(stream, events, { expectedRevision: 'no_stream' });
      const anyAgain = await sut.appendToStream(stream, events, { expectedRevision: 'any' });
      expect(again).toEqual(first);
      expect(anyAgain).toEqual(first);
      expect(await sut.readStream(stream)).toHaveLength(2);
    });

    it('refuses event ids that already belong to other events', async () => {
      const taken = event();
      await sut.appendToStream(unique('first'), [taken]);
      await expect(sut.appendToStream(unique('second'), [taken])).rejects.toBeInstanceOf(
        EventIdConflictError,
      );
    });

    it('lets exactly one of many concurrent appends at one revision win', async () => {
      const stream = unique('race');
      await sut.appendToStream(stream, [event()], { expectedRevision: 'no_stream' });
      const outcomes = await Promise.allSettled(
        Array.from({ length: 12 }, () => sut.appendToStream(stream, [event()], { expectedRevision: 0n })),
      );
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      for (const outcome of outcomes.filter((o) => o.status === 'rejected')) {
        expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
      }
      expect(await sut.readStream(stream)).toHaveLength(2);
    });

    it('loses nothing when concurrent writers retry their conflicts on fresh state', async () => {
      const stream = unique('contended');
      const writers = 8;
      const appendsEach = 5;
      await Promise.all(
        Array.from({ length: writers }, async (_, writer) => {
          for (let i = 0; i < appendsEach; i += 1) {
            for (;;) {
              const last = (await sut.readStream(stream, { direction: 'backwards', maxCount: 1 }))[0];
              try {
                await sut.appendToStream(stream, [event('Counted', { writer, i })], {
                  expectedRevision: last ? last.revision : 'no_stream',
                });
                break;
              } catch (error) {
                if (!(error instanceof WrongExpectedRevisionError)) throw error;
              }
            }
          }
        }),
      );
      const read = await sut.readStream(stream);
      expect(read.map((e) => e.revision)).toEqual(
        Array.from({ length: writers * appendsEach }, (_, i) => BigInt(i)),
      );
      const seen = new Set(read.map((e) => JSON.stringify(e.data)));
      expect(seen.size).toBe(writers * appendsEach);
    });
  });

  describe('readStream', () => {
    it('reads forwards and backwards from a revision, at most maxCount events', async () => {
      const stream = unique('paged');
      await sut.appendToStream(
        stream,
        Array.from({ length: 5 }, (_, n) => event('Step', { n })),
      );
      const forwards = await sut.readStream(stream, { fromRevision: 1n, maxCount: 2 });
      expect(forwards.map((e) => e.revision)).toEqual([1n, 2n]);
      const backwards = await sut.readStream(stream, { direction: 'backwards', maxCount: 2 });
      expect(backwards.map((e) => e.revision)).toEqual([4n, 3n]);
      const backFrom = await sut.readStream(stream, { direction: 'backwards', fromRevision: 1n });
      expect(backFrom.map((e) => e.revision)).toEqual([1n, 0n]);
    });

    it('returns no events for a stream that does not exist', async () => {
      expect(await sut.readStream(unique('missing'))).toEqual([]);
    });
  });

  describe('readAll', () => {
    it('reads the log after an exclusive position, in pages, with a filter', async () => {
      const before = await readEverything(sut, subject.settle);
      const from = before.length > 0 ? before[before.length - 1].position : START;
      const stream = unique('feed');
      await sut.appendToStream(stream, [event('A'), event('B'), event('A')]);
      await sut.appendToStream(unique('other'), [event('A')]);
      await subject.settle();

      const page1 = await sut.readAll({ from, maxCount: 2 });
      expect(page1.events.map((e) => e.type)).toEqual(['A', 'B']);
      expect(page1.isEnd).toBe(false);
      const page2 = await sut.readAll({ from: page1.position, maxCount: 10 });
      expect(page2.events.map((e) => [e.streamId === stream, e.type])).toEqual([
        [true, 'A'],
        [false, 'A'],
      ]);
      expect(page2.isEnd).toBe(true);

      const filtered = await sut.readAll({
        from,
        maxCount: 10,
        filter: { streamPrefixes: [stream], eventTypes: ['A'] },
      });
      expect(filtered.events.map((e) => e.revision)).toEqual([0n, 2n]);
      expect(filtered.position).toEqual(page2.position);
      expect(await sut.countAfter(from, 100)).toBe(4);
      expect(await sut.countAfter(from, 3)).toBe(3);
    });
  });

  describe('subscribeToAll', () => {
    it('sees every event of 16 concurrent writers with randomly delayed commits exactly once, in log order', async () => {
      const before = await readEverything(sut, subject.settle);
      const from = before.length > 0 ? before[before.length - 1].position : START;
      const writers = 16;
      const appendsEach = 6;
      const expected = new Set<string>();
      const received: RecordedEvent[] = [];
      const subscription = sut.subscribeToAll({ from, maxCount: 7, pollIntervalMs: 5 });
      let total = 0;
      const consuming = (async () => {
        for await (const recorded of subscription) {
          received.push(recorded);
          if (received.length === total) break;
        }
      })();

      const plans = Array.from({ length: writers }, (_, writer) =>
        Array.from({ length: appendsEach }, (_, i) =>
          Array.from({ length: 1 + ((writer + i) % 3) }, () => event('Written', { writer, i })),
        ),
      );
      total = plans.flat(2).length;
      for (const e of plans.flat(2)) expected.add(e.id);
      await Promise.all(
        plans.map(async (appends, writer) => {
          for (const events of appends) {
            await subject.delayedAppend(
              `writer-${writer}-${unique('s')}`,
              events,
              Math.floor(Math.random() * 15),
            );
          }
        }),
      );
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('subscriber fell behind')), 20_000);
      });
      await Promise.race([consuming, deadline]).finally(() => clearTimeout(timer));
      await subscription.stop();

      const ids = received.map((e) => e.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(new Set(ids)).toEqual(expected);
      const log = (await readEverything(sut, subject.settle))
        .filter((e) => expected.has(e.id))
        .map((e) => e.id);
      expect(ids).toEqual(log);
    });

    it('stops when asked and resumes from a position without repeating', async () => {
      const stream = unique('resume');
      const before = await readEverything(sut, subject.settle);
      const from = before.length > 0 ? before[before.length - 1].position : START;
      await sut.appendToStream(stream, [event(), event(), event()]);
      const first = sut.subscribeToAll({ from, pollIntervalMs: 5 });
      const seen: string[] = [];
      for await (const recorded of first) {
        seen.push(recorded.id);
        if (seen.length === 2) break;
      }
      await first.stop();
      const second = sut.subscribeToAll({ from: first.position, pollIntervalMs: 5 });
      for await (const recorded of second) {
        seen.push(recorded.id);
        break;
      }
      await second.stop();
      expect(seen).toEqual((await sut.readStream(stream)).map((e) => e.id));
    });
  });
}
