/**
 * The event store port. Two adapters implement it (PostgreSQL/PGlite and EventStoreDB) and pass one contract
 * suite (`test/integration/event-store.contract.ts`). Only `event-store/` writes events.
 */

/** Optimistic concurrency for an append: anything, a new stream, an existing stream, or an exact last revision. */
export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | bigint;

/**
 * A place in the global log. PostgreSQL: `commit` = the writing transaction id, `prepare` = the global position
 * (read order is by both, below the oldest running transaction). EventStoreDB: its commit and prepare positions.
 */
export interface Position {
  readonly commit: bigint;
  readonly prepare: bigint;
}

/** Before the first event: reading from here returns the whole log. */
export const START: Position = Object.freeze({ commit: 0n, prepare: 0n });

export function comparePositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

export interface NewEvent {
  /** Unique across the store; deterministic where the cause is external (e.g. `deposit:<chainId>:<txHash>`). */
  readonly id: string;
  /** The stored type name: explicit, past tense, never a class name. */
  readonly type: string;
  readonly schemaVersion?: number;
  readonly data: unknown;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

export interface RecordedEvent {
  readonly streamId: string;
  readonly revision: bigint;
  readonly position: Position;
  readonly id: string;
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: unknown;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly createdAt: Date;
}

export interface AppendOptions {
  readonly expectedRevision?: ExpectedRevision;
}

export interface AppendResult {
  /** The stream's revision after the append (the revision of its last event). */
  readonly nextExpectedRevision: bigint;
  /** Where the last appended event sits in the global log. */
  readonly position: Position;
}

export interface ReadStreamOptions {
  readonly direction?: 'forwards' | 'backwards';
  /** Inclusive. Defaults to the start (forwards) or the end (backwards). */
  readonly fromRevision?: bigint;
  readonly maxCount?: number;
}

export interface EventFilter {
  readonly streamPrefixes?: readonly string[];
  readonly eventTypes?: readonly string[];
}

export interface ReadAllOptions {
  /** Exclusive: events after this position. Defaults to START. */
  readonly from?: Position;
  readonly maxCount?: number;
  readonly filter?: EventFilter;
}

export interface ReadAllResult {
  /** Events after `from`, in log order, that pass the filter. */
  readonly events: RecordedEvent[];
  /** The last position scanned (filtered-out events included); read on from here. Equals `from` when nothing new. */
  readonly position: Position;
  /** True when the read reached the end of what is readable now (fewer than `maxCount` events scanned). */
  readonly isEnd: boolean;
}

export interface SubscribeOptions extends ReadAllOptions {
  /** How long to wait before polling again once caught up. */
  readonly pollIntervalMs?: number;
}

/** A catch-up subscription: iterate it to receive every event after `from`, then each new one, in log order. */
export interface Subscription extends AsyncIterable<RecordedEvent> {
  /** The position of the last event handed out. */
  readonly position: Position;
  stop(): Promise<void>;
}

export interface EventStore {
  readonly kind: 'postgres' | 'pglite' | 'esdb';
  appendToStream(
    streamId: string,
    events: readonly NewEvent[],
    options?: AppendOptions,
  ): Promise<AppendResult>;
  /** The events of one stream; an empty array when the stream does not exist. */
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  readAll(options?: ReadAllOptions): Promise<ReadAllResult>;
  subscribeToAll(options?: SubscribeOptions): Subscription;
  /** The position of the last readable event (START for an empty log): where a new consumer that skips history starts. */
  headPosition(): Promise<Position>;
  /** How many events lie after `position`, counting at most `cap` (lag is reported as "≥ cap" beyond it). */
  countAfter(position: Position, cap: number): Promise<number>;
  /** Resolves when this process appends, after `timeoutMs`, or when `signal` aborts: how idle readers wait. */
  waitForAppend(timeoutMs: number, signal: AbortSignal): Promise<void>;
  /** Throws when the store cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export const EVENT_STORE = Symbol('EventStore');

/** The append did not meet its expected revision; nothing was written. */
export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: bigint | 'no_stream',
  ) {
    super(
      `Append to ${streamId} expected revision ${String(expected)} but the stream is at ${String(actual)}; ` +
        'reload the stream and decide again.',
    );
    this.name = 'WrongExpectedRevisionError';
  }
}

/** Event ids were reused for different events (another stream or another position); nothing was written. */
export class EventIdConflictError extends Error {
  constructor(
    readonly streamId: string,
    readonly eventIds: readonly string[],
  ) {
    super(`Event ids ${eventIds.join(', ')} already belong to other events than this append to ${streamId}.`);
    this.name = 'EventIdConflictError';
  }
}

export function expectedRevisionToString(expected: ExpectedRevision): string {
  return typeof expected === 'bigint' ? expected.toString() : expected;
}
