import type { RecordedEvent } from '../../../src/event-store/event-store.js';
import type { Projection } from '../../../projections/projection.js';
import { foldBatch } from '../../../projections/runner/apply-events.js';
import { diffValues } from '../../../projections/runner/audit.js';

let position = 0n;
const recorded = (streamId: string, type: string, data: Record<string, unknown> = {}): RecordedEvent => ({
  streamId,
  revision: 0n,
  position: { commit: 1n, prepare: (position += 1n) },
  id: `id-${position}`,
  type,
  schemaVersion: 1,
  data,
  metadata: {},
  createdAt: new Date('2026-11-22T00:00:00Z'),
});

/** Balances per account; a transfer touches two rows, a closure deletes one. */
type Data = Record<string, unknown>;
const balances: Projection<{ balance: number }> = {
  name: 'balances',
  version: 1,
  table: 'balances',
  columns: [],
  keysOf: (event) =>
    event.type === 'Transferred'
      ? [String((event.data as Data).from), String((event.data as Data).to)]
      : event.type === 'Ignored'
        ? []
        : [event.streamId],
  evolve: (state, event, key) => {
    if (event.type === 'Closed') return null;
    if (event.type === 'Opened') return { balance: 0 };
    const data = event.data as Data;
    const amount = Number(data.amount);
    return { balance: (state?.balance ?? 0) + (key === data.to ? amount : -amount) };
  },
};

describe(foldBatch.name, () => {
  it('folds events in order over loaded rows, touching several rows per event', () => {
    const sut = foldBatch(balances, new Map([['a', { balance: 10 }]]), [
      recorded('b', 'Opened'),
      recorded('x', 'Transferred', { from: 'a', to: 'b', amount: 4 }),
      recorded('x', 'Ignored'),
    ]);
    expect(sut.upserts).toEqual(
      new Map([
        ['b', { balance: 4 }],
        ['a', { balance: 6 }],
      ]),
    );
    expect(sut.deletes).toEqual(new Set());
  });

  it('deletes a loaded row whose state becomes null and never writes one created and deleted in the batch', () => {
    const sut = foldBatch(balances, new Map([['a', { balance: 1 }]]), [
      recorded('a', 'Closed'),
      recorded('c', 'Opened'),
      recorded('c', 'Closed'),
    ]);
    expect(sut.upserts.size).toBe(0);
    expect(sut.deletes).toEqual(new Set(['a']));
  });
});

describe(diffValues.name, () => {
  it('lists each differing leaf path with both values', () => {
    expect(
      diffValues(
        { id: 'x', state: { events: 3, tags: ['a', 'b'] }, extra: 1 },
        { id: 'x', state: { events: 4, tags: ['a', 'c'] } },
        '',
      ),
    ).toEqual([
      { path: 'extra', live: 1, rebuilt: undefined },
      { path: 'state.events', live: 3, rebuilt: 4 },
      { path: 'state.tags[1]', live: 'b', rebuilt: 'c' },
    ]);
    expect(diffValues({ a: [1] }, { a: [1] }, '')).toEqual([]);
  });
});
