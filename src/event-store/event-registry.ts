import { type DomainEvent, type DomainEventClass, eventTypeOf } from './domain-event.js';
import type { RecordedEvent } from './event-store.js';

/** Turns the data of schema version `from` into the data of version `from + 1`. */
export type Upcaster = (data: Record<string, unknown>) => Record<string, unknown>;

/** Maps stored type strings to event classes, upcasting older schema versions on the way in. */
export class EventRegistry {
  private readonly classes = new Map<string, DomainEventClass>();
  private readonly upcasters = new Map<string, Map<number, Upcaster>>();

  register(...classes: DomainEventClass[]): this {
    for (const eventClass of classes) {
      const { type } = eventTypeOf(eventClass);
      const existing = this.classes.get(type);
      if (existing && existing !== eventClass) throw new Error(`Event type ${type} is registered twice`);
      this.classes.set(type, eventClass);
    }
    return this;
  }

  /** Registers the step from schema version `fromVersion` to `fromVersion + 1` of `type`. */
  upcast(type: string, fromVersion: number, upcaster: Upcaster): this {
    const steps = this.upcasters.get(type) ?? new Map<number, Upcaster>();
    steps.set(fromVersion, upcaster);
    this.upcasters.set(type, steps);
    return this;
  }

  has(type: string): boolean {
    return this.classes.has(type);
  }

  /** The domain event for a stored one, its data brought up to the class's schema version. */
  deserialize(recorded: RecordedEvent): DomainEvent {
    const eventClass = this.classes.get(recorded.type);
    if (!eventClass)
      throw new Error(`Unknown event type ${recorded.type} in ${recorded.streamId}@${recorded.revision}`);
    const target = eventTypeOf(eventClass).schemaVersion;
    let data = recorded.data as Record<string, unknown>;
    for (let version = recorded.schemaVersion; version < target; version += 1) {
      const step = this.upcasters.get(recorded.type)?.get(version);
      if (!step)
        throw new Error(`No upcaster for ${recorded.type} from schema version ${version} to ${version + 1}`);
      data = step(data);
    }
    if (recorded.schemaVersion > target) {
      throw new Error(
        `${recorded.type}@${recorded.schemaVersion} in ${recorded.streamId} is newer than this build (${target}); upgrade first`,
      );
    }
    return new (eventClass as unknown as new (props: unknown) => DomainEvent)(data);
  }
}
