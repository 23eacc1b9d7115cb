import { currentTraceparent, inSpan } from '../telemetry/tracing.js';
import type {
  AppendOptions,
  AppendResult,
  EventStore,
  NewEvent,
  Position,
  ReadAllOptions,
  ReadAllResult,
  ReadStreamOptions,
  RecordedEvent,
  SubscribeOptions,
  Subscription,
} from './event-store.js';

/** The metadata key an appended event's W3C trace context travels under, for the projections that apply it. */
export const TRACEPARENT_KEY = 'traceparent';

/** A stream id without its id (`request-0x…` → `request`): span names stay few, the full id is an attribute. */
export function streamCategory(streamId: string): string {
  return streamId.replace(/-(?:0x)?[0-9a-f]{8}[0-9a-f-]*$/i, '');
}

/**
 * The event store with tracing (used only when tracing is on): each append is an `append <stream category>` span,
 * and each appended event records that span's `traceparent` in its metadata, so the projection applying it later,
 * in another loop, continues the same trace. Reads pass through (the PostgreSQL queries have their own spans).
 */
export class TracedEventStore implements EventStore {
  constructor(private readonly inner: EventStore) {}

  get kind(): EventStore['kind'] {
    return this.inner.kind;
  }

  appendToStream(
    streamId: string,
    events: readonly NewEvent[],
    options?: AppendOptions,
  ): Promise<AppendResult> {
    const attributes = { 'ferry.stream_id': streamId, 'ferry.events': events.length };
    return inSpan(`append ${streamCategory(streamId)}`, attributes, () => {
      const traceparent = currentTraceparent();
      const traced = traceparent
        ? events.map((event) => ({
            ...event,
            metadata: { ...event.metadata, [TRACEPARENT_KEY]: traceparent },
          }))
        : events;
      return this.inner.appendToStream(streamId, traced, options);
    });
  }

  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return this.inner.readStream(streamId, options);
  }

  readAll(options?: ReadAllOptions): Promise<ReadAllResult> {
    return this.inner.readAll(options);
  }

  subscribeToAll(options?: SubscribeOptions): Subscription {
    return this.inner.subscribeToAll(options);
  }

  headPosition(): Promise<Position> {
    return this.inner.headPosition();
  }

  countAfter(position: Position, cap: number): Promise<number> {
    return this.inner.countAfter(position, cap);
  }

  waitForAppend(timeoutMs: number, signal: AbortSignal): Promise<void> {
    return this.inner.waitForAppend(timeoutMs, signal);
  }

  ping(): Promise<void> {
    return this.inner.ping();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
