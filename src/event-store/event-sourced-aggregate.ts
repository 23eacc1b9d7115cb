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
