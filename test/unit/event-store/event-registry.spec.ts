import { DomainEvent, StoredEvent, eventTypeOf } from '../../../src/event-store/domain-event.js';
import { EventRegistry } from '../../../src/event-store/event-registry.js';
import type { RecordedEvent } from '../../../src/event-store/event-store.js';

@StoredEvent('FeeCharged', 3)
class FeeCharged extends DomainEvent<{ amount: string; currency: string }> {
  declare readonly amount: string;
  declare readonly currency: string;
}

class Unnamed extends DomainEvent<object> {}

const stored = (type: string, schemaVersion: number, data: Record<string, unknown>): RecordedEvent => ({
  streamId: 'fees-1',
  revision: 4n,
  position: { commit: 1n, prepare: 1n },
  id: 'e1',
  type,
  schemaVersion,
  data,
  metadata: {},
  createdAt: new Date(0),
});

describe(EventRegistry.name, () => {
  const sut = new EventRegistry()
    .register(FeeCharged)
    .upcast('FeeCharged', 1, (data) => ({ amount: String(data.wei) }))
    .upcast('FeeCharged', 2, (data) => ({ ...data, currency: 'ETH' }));

  it('stores the declared type name, not the class name', () => {
    expect(eventTypeOf(FeeCharged)).toEqual({ type: 'FeeCharged', schemaVersion: 3 });
    expect(() => eventTypeOf(Unnamed)).toThrow('Unnamed has no @StoredEvent(type)');
  });

  it('upcasts data through every version step to the current class', () => {
    const event = sut.deserialize(stored('FeeCharged', 1, { wei: 42 }));
    expect(event).toBeInstanceOf(FeeCharged);
    expect({ ...event }).toEqual({ amount: '42', currency: 'ETH' });
    expect(Object.isFrozen(event)).toBe(true);
  });

  it('refuses unknown types, missing upcasters and data from a newer build', () => {
    expect(() => sut.deserialize(stored('FeeWaived', 1, {}))).toThrow(
      'Unknown event type FeeWaived in fees-1@4',
    );
    expect(() => new EventRegistry().register(FeeCharged).deserialize(stored('FeeCharged', 2, {}))).toThrow(
      'No upcaster for FeeCharged from schema version 2 to 3',
    );
    expect(() => sut.deserialize(stored('FeeCharged', 4, {}))).toThrow('newer than this build');
  });
});
