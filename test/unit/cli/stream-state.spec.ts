import type { RecordedEvent } from '../../../src/event-store/event-store.js';
import { toJson } from '../../../src/cli/format.js';
import { foldStreamState, type StreamState } from '../../../src/cli/stream-state.js';

const recorded = (revision: bigint, type: string, data: unknown): RecordedEvent => ({
  streamId: 'order-1',
  revision,
  position: { commit: 10n + revision, prepare: revision },
  id: `e-${revision}`,
  type,
  schemaVersion: 1,
  data,
  metadata: {},
  createdAt: new Date('2025-01-01T00:00:00.000Z'),
});

describe('foldStreamState', () => {
  it('merges each event’s data over the state and records where the stream stands', () => {
    const first = foldStreamState(null, recorded(0n, 'OrderPlaced', { amount: '100', status: 'placed' }));
    expect(first).toEqual({
      amount: '100',
      status: 'placed',
      revision: 0n,
      lastEventType: 'OrderPlaced',
      events: 1,
    });

    const second = foldStreamState(first, recorded(1n, 'OrderPaid', { status: 'paid', paidAt: 't' }));
    expect(second).toEqual({
      amount: '100',
      status: 'paid',
      paidAt: 't',
      revision: 1n,
      lastEventType: 'OrderPaid',
      events: 2,
    });
  });

  it('is pure: the previous state is left as it was', () => {
    const first = foldStreamState(null, recorded(0n, 'A', { a: 1 }));
    const snapshot = { ...first };
    foldStreamState(first, recorded(1n, 'B', { a: 2 }));
    expect(first).toEqual(snapshot);
  });

  it('merges shallowly: a nested object is replaced, not merged', () => {
    const first = foldStreamState(null, recorded(0n, 'A', { nested: { x: 1, y: 2 } }));
    expect(foldStreamState(first, recorded(1n, 'B', { nested: { x: 3 } })).nested).toEqual({ x: 3 });
  });

  it('ignores data that is not a plain object, and its own fields win over data of the same names', () => {
    let state: StreamState | null = null;
    state = foldStreamState(state, recorded(0n, 'A', { a: 1 }));
    state = foldStreamState(state, recorded(1n, 'B', [1, 2]));
    state = foldStreamState(state, recorded(2n, 'C', null));
    state = foldStreamState(state, recorded(3n, 'D', { revision: 'x', events: -1, lastEventType: 'y' }));
    expect(state).toEqual({ a: 1, revision: 3n, lastEventType: 'D', events: 4 });
  });

  it('prints with bigint values as decimal strings', () => {
    const state = foldStreamState(null, recorded(12345678901234567890n, 'A', { big: 1n }));
    expect(toJson(state)).toBe(
      '{"big":"1","revision":"12345678901234567890","lastEventType":"A","events":1}',
    );
  });
});
