import { Inject, Injectable, Optional } from '@nestjs/common';
import { EventPublisher } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { eventData, eventTypeOf } from './domain-event.js';
import { EventRegistry } from './event-registry.js';
import type { EventSourcedAggregate } from './event-sourced-aggregate.js';
import { EVENT_STORE, type EventStore, type NewEvent, WrongExpectedRevisionError } from './event-store.js';

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
}

/** Loads aggregates from their streams and saves their new events with optimistic concurrency. */
@Injectable()
export class AggregateRepository {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly registry: EventRegistry,
    @Optional() private readonly publisher?: EventPublisher,
  ) {}

  async load<A extends EventSourcedAggregate>(create: () => A): Promise<A> {
    const aggregate = create();
    const recorded = await this.store.readStream(aggregate.streamId);
    aggregate.loadFromHistory(recorded.map((event) => this.registry.deserialize(event)));
    if (recorded.length > 0) aggregate.revision = recorded[recorded.length - 1].revision;
    return this.publisher ? this.publisher.mergeObjectContext(aggregate) : aggregate;
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
    const result = await this.store.appendToStream(aggregate.streamId, newEvents, {
      expectedRevision: aggregate.revision < 0n ? 'no_stream' : aggregate.revision,
    });
    aggregate.revision = result.nextExpectedRevision;
    aggregate.commit();
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
      const aggregate = await this.load(create);
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
