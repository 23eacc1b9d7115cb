import type { RecordedEvent } from '../src/event-store/event-store.js';

/** SQL types a projection column may have. `text[]` columns are filled from JSON arrays. */
export type ColumnType =
  'text' | 'bigint' | 'integer' | 'numeric' | 'boolean' | 'timestamptz' | 'jsonb' | 'text[]';

export interface ProjectionColumn<S> {
  readonly name: string;
  readonly type: ColumnType;
  /** Derived from the row's state; never read from anywhere else, so a rebuild reproduces it. */
  value(state: S): unknown;
}

export interface ProjectionIndex {
  readonly name: string;
  /** Column names, or SQL expressions over them, in index order (e.g. `created_at DESC`). */
  readonly columns: readonly string[];
  readonly unique?: boolean;
  readonly using?: 'btree' | 'gin';
  readonly where?: string;
}

/**
 * How a projection's row state is stored, when not as it is: `encode` before a row is written, `decode` when a state
 * is read back (to fold further, or to answer). `decode(encode(s))` equals `s`; columns are derived from `s`.
 */
export interface StateCodec<S> {
  encode(state: S): unknown;
  /** `JSON.stringify(encode(state))`, when the codec can write that text more cheaply (rebuilds write millions). */
  serialize?(state: S): string;
  decode(stored: unknown): S;
}

/**
 * A read model: a name, a version, the rows it keeps and a pure fold from events to row states.
 * Each row is `(id text primary key, state jsonb, ...columns)`; columns are derived from state for filters and
 * sorts. The runner applies events in batches with set-based upserts; bump `version` when `evolve` or the columns
 * change and the projection rebuilds itself (blue/green) at the next start.
 */
export interface Projection<S = unknown> {
  readonly name: string;
  readonly version: number;
  /** The stable name readers query (a view over the live generation's table). */
  readonly table: string;
  readonly columns: readonly ProjectionColumn<S>[];
  readonly indexes?: readonly ProjectionIndex[];
  /**
   * Names the fold when other projections fold the same events into the same state (same `keysOf`, same `evolve`,
   * different columns): rebuilt together, they read the log and fold it once (`rebuildProjections`).
   */
  readonly fold?: string;
  /** The stored form of row states (default: the state itself). Readers of the table decode with it too. */
  readonly codec?: StateCodec<S>;
  /** The ids of the rows an event changes; empty when the event does not concern this projection. */
  keysOf(event: RecordedEvent): readonly string[];
  /** Pure: the row's state after the event (null deletes the row). No I/O, no clock: time comes from the event. */
  evolve(state: S | null, event: RecordedEvent, key: string): S | null;
}
