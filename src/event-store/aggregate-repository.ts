import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { EventPublisher } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { AGGREGATE_SNAPSHOTS, type SnapshotStore } from './aggregate-snapshots.js';
import { eventData, eventTypeOf } from './domain-event.js';
import { EventRegistry } from './event-registry.js';
import type { EventSourcedAggregate } from './event-sourced-aggregate.js';
import {
  EVENT_STORE,
  type EventStore,
  type NewEvent,
  type RecordedEvent,
  WrongExpectedRevisionError,
} from './event-store.js';

/** A command kept losing the race for its stream; nothing it decided was written. */
export class ConcurrencyRetriesExhaustedError extends Error {
  constructor(
    readonly streamId: string,
    readonly attempts: number,
  ) {
    super(
      `${streamId} changed under every one of ${attempts} attempts; nothing was written. Try again later.`,
    );
    this.name = 'ConcurrencyRetriesExhaustedError';
  }
}

export interface ExecuteOptions {
  readonly maxAttempts?: number;
  readonly metadata?: Readonly<Record<string, unknown>>;
  /**
   * The caller has just made the stream's id up (a quote's id comes from a random salt): the first attempt decides on
   * the empty state without reading the stream and appends expecting none. Were the stream there after all, that
   * append fails and the next attempt reads it as usual: one round trip saved on the hot path, never a wrong decision.
   */
  readonly streamIsNew?: boolean;
}

/**
 * Loads aggregates from their streams and saves their new events with optimistic concurrency. Aggregates that opt in
 * to snapshots (`EventSourcedAggregate.snapshots`) load from their last snapshot when a snapshot store is given.
 */
@Injectable()
export class AggregateRepository {
  private readonly logger = new Logger(AggregateRepository.name);

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly registry: EventRegistry,
    @Optional() private readonly publisher?: EventPublisher,
    @Optional() @Inject(AGGREGATE_SNAPSHOTS) private readonly snapshots?: SnapshotStore,
  ) {}

  async load<A extends EventSourcedAggregate>(create: () => A): Promise<A> {
    const aggregate = create();
    const recorded = await this.readFromSnapshot(aggregate);
    aggregate.loadFromHistory(recorded.map((event) => this.registry.deserialize(event)));
    if (recorded.length > 0) aggregate.revision = recorded[recorded.length - 1].revision;
    return this.published(aggregate);
  }

  /** The aggregate wired to the event publisher, when there is one: how `load` and `execute` hand it out. */
  private published<A extends EventSourcedAggregate>(aggregate: A): A {
    return this.publisher ? this.publisher.mergeObjectContext(aggregate) : aggregate;
  }

  /**
   * Restores the aggregate's snapshot, if it has one this log still holds (the event at its revision has the id it
   * recorded), and returns the events after it; else the whole stream.
   */
  private async readFromSnapshot(aggregate: EventSourcedAggregate): Promise<RecordedEvent[]> {
    const policy = aggregate.snapshots;
    const snapshot =
      policy && this.snapshots ? await this.snapshots.read(aggregate.streamId, policy.schema) : null;
    if (!snapshot) return this.store.readStream(aggregate.streamId);
    const [at, ...after] = await this.store.readStream(aggregate.streamId, {
      fromRevision: snapshot.revision,
    });
    if (at?.revision !== snapshot.revision || at.id !== snapshot.eventId) {
      return this.store.readStream(aggregate.streamId);
    }
    aggregate.restoreSnapshot(snapshot.state);
    aggregate.revision = snapshot.revision;
    return after;
  }

  /** Appends the aggregate's new events, expecting the revision it was loaded at; publishes them once stored. */
  async save(
    aggregate: EventSourcedAggregate,
    metadata: Readonly<Record<string, unknown>> = {},
  ): Promise<void> {
    const events = aggregate.getUncommittedEvents();
    if (events.length === 0) return;
    const newEvents: NewEvent[] = events.map((event) => {
      const { type, schemaVersion } = eventTypeOf(event);
      return {
        id: aggregate.eventIdOf(event) ?? randomUUID(),
        type,
        schemaVersion,
        data: eventData(event),
        metadata,
      };
    });
    const loadedAt = aggregate.revision;
    const result = await this.store.appendToStream(aggregate.streamId, newEvents, {
      expectedRevision: loadedAt < 0n ? 'no_stream' : loadedAt,
    });
    aggregate.revision = result.nextExpectedRevision;
    aggregate.commit();
    // Only when these events were written now, after the ones loaded: a retried append the store recognised answers
    // an earlier revision, and the aggregate's state is not that revision's.
    if (result.nextExpectedRevision === loadedAt + BigInt(newEvents.length)) {
      await this.snapshotAfter(aggregate, loadedAt, newEvents);
    }
  }

  /**
   * True when the events right after `loadedAt` are `newEvents` as decided here (same ids, types and data). The
   * store also answers "appended" when another writer appended the same event ids there first (two instances deciding
   * the same fact at once, e.g. a credit converted at another price): its events, not ours, are then the log's, and
   * the in-memory state may not be that revision's.
   */
  private async wroteThese(
    aggregate: EventSourcedAggregate,
    loadedAt: bigint,
    newEvents: readonly NewEvent[],
  ): Promise<boolean> {
    const stored = await this.store.readStream(aggregate.streamId, {
      fromRevision: loadedAt + 1n,
      maxCount: newEvents.length,
    });
    return (
      stored.length === newEvents.length &&
      stored.every(
        (event, index) =>
          event.id === newEvents[index].id &&
          event.type === newEvents[index].type &&
          event.schemaVersion === (newEvents[index].schemaVersion ?? 1) &&
          isDeepStrictEqual(event.data, JSON.parse(JSON.stringify(newEvents[index].data)) as unknown),
      )
    );
  }

  /** Takes a snapshot when the save carried the stream across a multiple of the aggregate's `every` events. */
  private async snapshotAfter(
    aggregate: EventSourcedAggregate,
    loadedAt: bigint,
    newEvents: readonly NewEvent[],
  ): Promise<void> {
    const policy = aggregate.snapshots;
    if (!policy || !this.snapshots) return;
    const every = BigInt(policy.every);
    if ((aggregate.revision + 1n) / every === (loadedAt + 1n) / every) return;
    try {
      if (!(await this.wroteThese(aggregate, loadedAt, newEvents))) return;
      await this.snapshots.write(aggregate.streamId, policy.schema, {
        revision: aggregate.revision,
        eventId: newEvents[newEvents.length - 1].id,
        state: aggregate.snapshotState(),
      });
    } catch (error) {
      // The events are stored; a snapshot missed only means the next loads read further back.
      this.logger.warn(`No snapshot of ${aggregate.streamId}@${aggregate.revision}: ${String(error)}`);
    }
  }

  /**
   * Runs a decision on fresh state and saves it. When another writer got there first, the decision is re-run on the
   * reloaded stream (never overwritten), up to `maxAttempts` times. A domain error thrown by `decide` appends nothing.
   */
  async execute<A extends EventSourcedAggregate>(
    create: () => A,
    decide: (aggregate: A) => void | Promise<void>,
    options: ExecuteOptions = {},
  ): Promise<A> {
    const maxAttempts = options.maxAttempts ?? 5;
    for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
      // A new stream starts at no revision, as `load` would answer for it, without reading.
      const aggregate =
        attempt === 1 && options.streamIsNew ? this.published(create()) : await this.load(create);
      await decide(aggregate);
      try {
        await this.save(aggregate, options.metadata);
        return aggregate;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
      }
    }
    throw new ConcurrencyRetriesExhaustedError(create().streamId, maxAttempts);
  }
}
