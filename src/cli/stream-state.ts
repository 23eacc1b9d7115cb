import type { RecordedEvent } from '../event-store/event-store.js';

/**
 * How a replay folds a stream into "the state after each event". Pure: the state after `event` from the state
 * before it (null before the first event). `events:replay` uses the generic fold below; a replay of one kind of
 * stream (e.g. a Request) can pass its aggregate's own fold instead.
 */
export type StateFold<S> = (state: S | null, event: RecordedEvent) => S;

/** The generic state of any stream: every event's data merged in order, plus where the stream stands. */
export interface StreamState {
  readonly [field: string]: unknown;
  /** The revision of the last event folded. */
  readonly revision: bigint;
  readonly lastEventType: string;
  /** How many events were folded. */
  readonly events: number;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Shallow-merges each event's data object over the state (later fields win), then sets `revision`,
 * `lastEventType` and `events` (which win over data fields of the same names, and print last). Data that is not
 * a plain object (an array, a string, null) leaves the merged fields unchanged.
 */
export const foldStreamState: StateFold<StreamState> = (state, event) => {
  const { revision: _revision, lastEventType: _lastEventType, events = 0, ...fields } = state ?? {};
  return {
    ...fields,
    ...(isPlainObject(event.data) ? event.data : {}),
    revision: event.revision,
    lastEventType: event.type,
    events: (events as number) + 1,
  };
};
