import type { IEvent } from '@nestjs/cqrs';

/** The stored identity of an event class: its type string and schema version, never its class name. */
export interface EventTypeInfo {
  readonly type: string;
  readonly schemaVersion: number;
}

const TYPE_INFO = Symbol('ferry.eventType');

/**
 * A domain event: a plain immutable message whose fields are its stored data.
 * Subclasses declare `@StoredEvent('DepositConfirmed', 1)` and take their fields as one props object.
 */
export abstract class DomainEvent<P extends object = object> implements IEvent {
  constructor(props: P) {
    Object.assign(this, props);
    Object.freeze(this);
  }
}

export type DomainEventClass<E extends DomainEvent = DomainEvent> = (new (props: never) => E) & {
  readonly [TYPE_INFO]?: EventTypeInfo;
};

/** Names an event class for storage. A rename or a minified build then changes nothing that is stored. */
export function StoredEvent(type: string, schemaVersion = 1) {
  return (target: object): void => {
    Object.defineProperty(target, TYPE_INFO, { value: { type, schemaVersion } satisfies EventTypeInfo });
  };
}

export function eventTypeOf(eventOrClass: object): EventTypeInfo {
  const target = typeof eventOrClass === 'function' ? eventOrClass : eventOrClass.constructor;
  const info = (target as { [TYPE_INFO]?: EventTypeInfo })[TYPE_INFO];
  if (!info)
    throw new Error(`${(target as { name?: string }).name ?? 'An event class'} has no @StoredEvent(type)`);
  return info;
}

/** The event's stored data: its own enumerable fields. */
export function eventData(event: DomainEvent): Record<string, unknown> {
  return { ...event };
}
