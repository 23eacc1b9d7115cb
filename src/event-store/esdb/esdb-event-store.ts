import { createHash } from 'node:crypto';

import {
  ANY,
  BACKWARDS,
  END as ESDB_END,
  EventStoreDBClient,
  FORWARDS,
  jsonEvent,
  NO_STREAM,
  START as ESDB_START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError,
  type AppendExpectedRevision,
  type JSONType,
  type ReadPosition,
  type RecordedEvent as EsdbRecordedEvent,
  type ResolvedEvent,
} from '@eventstore/db-client';

import { AppendSignal, PollingSubscription } from '../catch-up-subscription.js';
import {
  type AppendOptions,
  type AppendResult,
  comparePositions,
  EventIdConflictError,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type Position,
  type ReadAllOptions,
  type ReadAllResult,
  type ReadStreamOptions,
  type RecordedEvent,
  START,
  type Subscription,
  type SubscribeOptions,
  WrongExpectedRevisionError,
} from '../event-store.js';
import { applyFilter } from '../event-filter.js';

/** Our ids are free-form strings; EventStoreDB wants UUIDs, so the original id travels in the metadata. */
const EVENT_ID_KEY = '$ferryEventId';
const SCHEMA_VERSION_KEY = '$ferrySchemaVersion';

/** Fixed forever: changing it would give every event id a new UUID and break deduplication of retries. */
const EVENT_ID_NAMESPACE = Buffer.from('5d3ff775da60443b876d7ecb8a9ce98c', 'hex');

const SCAN_PAGE_SIZE = 500;
const COUNT_PAGE_SIZE = 1000;
const PING_DEADLINE_MS = 5000;

/** The event store on EventStoreDB / KurrentDB, with the same contract as the PostgreSQL adapter. */
export class EsdbEventStore implements EventStore {
  readonly kind = 'esdb' as const;
  private readonly client: EventStoreDBClient;
  private readonly signal = new AppendSignal();

  constructor(connectionString: string) {
    this.client = EventStoreDBClient.connectionString(connectionString);
  }

  async appendToStream(
    streamId: string,
    events: readonly NewEvent[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    if (events.length === 0) throw new Error(`appendToStream(${streamId}) needs at least one event`);
    const result = await this.append(streamId, events, options.expectedRevision ?? 'any');
    this.signal.notify();
    return result;
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    if (options.maxCount === 0) return [];
    const backwards = options.direction === 'backwards';
    const events = await this.readStreamRaw(streamId, {
      direction: backwards ? BACKWARDS : FORWARDS,
      fromRevision: options.fromRevision ?? (backwards ? ESDB_END : ESDB_START),
      maxCount: options.maxCount,
    });
    return events.map(toRecordedEvent);
  }

  /**
   * Pages on until `maxCount` user events were scanned or the log ends: system events advance the position but do
   * not count, so a run of them never reads as the end of the log.
   */
  async readAll(options: ReadAllOptions = {}): Promise<ReadAllResult> {
    const maxCount = options.maxCount ?? 1000;
    const scanned: RecordedEvent[] = [];
    let position = options.from ?? START;
    while (scanned.length < maxCount) {
      const page = await this.readAllAfter(position, maxCount - scanned.length);
      for (const event of page.events) {
        if (scanned.length === maxCount) break;
        position = positionOf(event);
        if (!isSystemEvent(event)) scanned.push(toRecordedEvent(event));
      }
      if (page.exhausted && scanned.length < maxCount) {
        return { events: applyFilter(scanned, options.filter), position, isEnd: true };
      }
    }
    return { events: applyFilter(scanned, options.filter), position, isEnd: false };
  }

  subscribeToAll(options?: SubscribeOptions): Subscription {
    return new PollingSubscription((read) => this.readAll(read), this.signal, options);
  }

  async countAfter(position: Position, cap: number): Promise<number> {
    let count = 0;
    let from = position;
    while (count < cap) {
      const page = await this.readAll({ from, maxCount: Math.min(cap - count, COUNT_PAGE_SIZE) });
      count += page.events.length;
      from = page.position;
      if (page.isEnd) break;
    }
    return Math.min(count, cap);
  }

  /** Reads `$all` backwards from the end, past system events, to the last event of ours (START when none). */
  async headPosition(): Promise<Position> {
    let fromPosition: ReadPosition = ESDB_END;
    for (;;) {
      const page = recordedEvents(
        await collect(this.client.readAll({ direction: BACKWARDS, fromPosition, maxCount: SCAN_PAGE_SIZE })),
      );
      const ours = page.find((event) => !isSystemEvent(event));
      if (ours) return positionOf(ours);
      if (page.length < SCAN_PAGE_SIZE) return START;
      fromPosition = copyPosition(positionOf(page[page.length - 1]));
    }
  }

  waitForAppend(timeoutMs: number, signal: AbortSignal): Promise<void> {
    return this.signal.wait(timeoutMs, signal);
  }

  async ping(): Promise<void> {
    await collect(
      this.client.readAll({
        direction: BACKWARDS,
        fromPosition: ESDB_END,
        maxCount: 1,
        deadline: PING_DEADLINE_MS,
      }),
    );
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }

  private async append(
    streamId: string,
    events: readonly NewEvent[],
    expected: ExpectedRevision,
  ): Promise<AppendResult> {
    try {
      const result = await this.client.appendToStream(streamId, events.map(toEventData), {
        expectedRevision: toEsdbRevision(expected),
      });
      const position =
        result.position ?? (await this.positionOfRevision(streamId, result.nextExpectedRevision));
      return { nextExpectedRevision: result.nextExpectedRevision, position: copyPosition(position) };
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError)) throw error;
      const earlier = await this.findEarlierAppend(streamId, events);
      if (earlier) return earlier;
      throw new WrongExpectedRevisionError(streamId, expected, error.actualVersion);
    }
  }

  /** The server reports no position when it recognised the append as a retry, so look the last event up. */
  private async positionOfRevision(streamId: string, revision: bigint): Promise<Position> {
    const [event] = await this.readStreamRaw(streamId, { fromRevision: revision, maxCount: 1 });
    if (!event) {
      throw new Error(`EventStoreDB acknowledged ${streamId}@${revision} but the event cannot be read`);
    }
    return positionOf(event);
  }

  /**
   * The server's own idempotency check is best-effort (a cache of recent event ids), so after a conflict this looks
   * for the same ids, in order, at consecutive revisions: then the append already happened and succeeds again.
   * Streams are short-lived aggregates, so scanning one on the rare conflict is cheap enough.
   */
  private async findEarlierAppend(
    streamId: string,
    events: readonly NewEvent[],
  ): Promise<AppendResult | null> {
    const ids = idsOf(events);
    const found = await this.findInStream(streamId, new Set(ids));
    if (found.length === 0) return null;
    const sameAppend =
      found.length === ids.length &&
      found.every(
        (event, index) => event.id === ids[index] && event.revision === found[0].revision + BigInt(index),
      );
    if (!sameAppend) throw new EventIdConflictError(streamId, idsOf(found));
    const last = found[found.length - 1];
    return { nextExpectedRevision: last.revision, position: last.position };
  }

  /** The stream's events with one of these ids (the latest of each), in revision order. */
  private async findInStream(streamId: string, ids: ReadonlySet<string>): Promise<RecordedEvent[]> {
    const found = new Map<string, RecordedEvent>();
    let fromRevision: bigint | undefined;
    for (;;) {
      const page = await this.readStream(streamId, {
        direction: 'backwards',
        fromRevision,
        maxCount: SCAN_PAGE_SIZE,
      });
      for (const event of page) if (ids.has(event.id) && !found.has(event.id)) found.set(event.id, event);
      const oldest = page.at(-1);
      if (found.size === ids.size || !oldest || page.length < SCAN_PAGE_SIZE || oldest.revision === 0n) break;
      fromRevision = oldest.revision - 1n;
    }
    return [...found.values()].sort(byRevision);
  }

  /** Reads fully rather than breaking out of the iteration, which would leave the gRPC call running. */
  private async readStreamRaw(
    streamId: string,
    options: Parameters<EventStoreDBClient['readStream']>[1],
  ): Promise<EsdbRecordedEvent[]> {
    try {
      return recordedEvents(await collect(this.client.readStream(streamId, options)));
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
  }

  /**
   * Reading `$all` from a position includes the event at that position, hence one extra event and the filter:
   * `from` is exclusive in our port.
   */
  private async readAllAfter(
    from: Position,
    count: number,
  ): Promise<{ events: EsdbRecordedEvent[]; exhausted: boolean }> {
    const atStart = comparePositions(from, START) === 0;
    const fromPosition: ReadPosition = atStart ? ESDB_START : copyPosition(from);
    const requested = count + 1;
    const read = recordedEvents(
      await collect(this.client.readAll({ direction: FORWARDS, fromPosition, maxCount: requested })),
    );
    const events = atStart ? read : read.filter((event) => comparePositions(positionOf(event), from) > 0);
    const exhausted = read.length < requested;
    if (events.length === 0 && !exhausted) {
      throw new Error(`Reading $all after ${from.commit}/${from.prepare} made no progress`);
    }
    return { events, exhausted };
  }
}

/** A name-based (version 5) UUID: SHA-1 of a fixed namespace and our id, so a retried append keeps its UUIDs. */
export function eventUuid(id: string): string {
  const hash = createHash('sha1').update(EVENT_ID_NAMESPACE).update(id, 'utf8').digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function toEsdbRevision(expected: ExpectedRevision): AppendExpectedRevision {
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    default:
      return expected;
  }
}

function toEventData(event: NewEvent) {
  return jsonEvent({
    id: eventUuid(event.id),
    type: event.type,
    data: event.data as JSONType,
    metadata: { ...event.metadata, [EVENT_ID_KEY]: event.id, [SCHEMA_VERSION_KEY]: event.schemaVersion ?? 1 },
  });
}

function toRecordedEvent(event: EsdbRecordedEvent): RecordedEvent {
  const {
    [EVENT_ID_KEY]: id,
    [SCHEMA_VERSION_KEY]: schemaVersion,
    ...metadata
  } = metadataRecord(event.metadata);
  return {
    streamId: event.streamId,
    revision: event.revision,
    position: positionOf(event),
    id: typeof id === 'string' ? id : event.id,
    type: event.type,
    schemaVersion: typeof schemaVersion === 'number' ? schemaVersion : 1,
    data: event.data,
    metadata,
    // The client already turns the server's .NET ticks into a Date.
    createdAt: event.created,
  };
}

/** Events written by other tools may carry metadata that is not a JSON object. */
function metadataRecord(metadata: unknown): Record<string, unknown> {
  const isObject =
    typeof metadata === 'object' &&
    metadata !== null &&
    !Array.isArray(metadata) &&
    !(metadata instanceof Uint8Array);
  return isObject ? (metadata as Record<string, unknown>) : {};
}

function positionOf(event: EsdbRecordedEvent): Position {
  if (!event.position) {
    throw new Error(
      `EventStoreDB sent ${event.streamId}@${event.revision} without a position; it needs to be 22.6 or later`,
    );
  }
  return copyPosition(event.position);
}

function copyPosition(position: Position): Position {
  return { commit: position.commit, prepare: position.prepare };
}

/** Projections and the server itself write `$` streams and `$` event types; they are not ours to hand out. */
function isSystemEvent(event: EsdbRecordedEvent): boolean {
  return event.type.startsWith('$') || event.streamId.startsWith('$');
}

/** Without link resolution every read result carries its event; the filter only satisfies the types. */
function recordedEvents(resolved: readonly ResolvedEvent[]): EsdbRecordedEvent[] {
  return resolved.flatMap((item) => (item.event ? [item.event] : []));
}

function idsOf(events: readonly { readonly id: string }[]): string[] {
  return events.map((event) => event.id);
}

function byRevision(a: RecordedEvent, b: RecordedEvent): number {
  return a.revision < b.revision ? -1 : a.revision > b.revision ? 1 : 0;
}

async function collect<T>(read: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of read) items.push(item);
  return items;
}
