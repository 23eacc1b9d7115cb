import { AggregateRoot } from '@nestjs/cqrs';
import { type DomainEvent, eventTypeOf } from './domain-event.js';

/**
 * An aggregate rebuilt from its stream. `on<Type>` handlers are found by the stored type string (not the class
 * name), and events can carry a deterministic id so the same outside fact recorded twice is stored once.
 */
export abstract class EventSourcedAggregate extends AggregateRoot<DomainEvent> {
  /** The revision of the last event loaded or saved; -1n for a stream that does not exist yet. */
  revision = -1n;
  private readonly eventIds = new WeakMap<DomainEvent, string>();

  abstract readonly streamId: string;

  /**
   * Opt in to snapshots: a long-lived stream is loaded from its last snapshot and the events after it. `schema` names
   * the fold (bump it when `evolve` or the state's shape changes: older snapshots are then ignored); one is taken
   * each time the stream crosses a multiple of `every` events. The state must be plain JSON.
   */
  readonly snapshots?: { readonly schema: number; readonly every: number };

  /** The state a snapshot keeps (aggregates with `snapshots` override both). */
  snapshotState(): unknown {
    throw new Error(`${this.constructor.name} does not take snapshots`);
  }

  /** Takes up the state of a snapshot, as if its events had been loaded. */
  restoreSnapshot(_state: unknown): void {
    throw new Error(`${this.constructor.name} does not take snapshots`);
  }

  /** Applies a new event whose id is derived from its cause (e.g. `deposit:<chainId>:<txHash>`). */
  protected applyWithId(event: DomainEvent, eventId: string): void {
    this.eventIds.set(event, eventId);
    this.apply(event);
  }

  eventIdOf(event: DomainEvent): string | undefined {
    return this.eventIds.get(event);
  }

  protected override getEventName(event: DomainEvent): string {
    return eventTypeOf(event).type;
  }
}
