import type { Database } from '../../database/database.js';
import { AppendSignal, PollingSubscription } from '../catch-up-subscription.js';
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
  Subscription,
  SubscribeOptions,
} from '../event-store.js';
import { GroupCommit } from './group-commit.js';
import { countAfter, headPosition, readAll } from './read-all.js';
import { readStream } from './read-stream.js';

/** The event store on PostgreSQL, or on embedded PGlite (same SQL, one connection). */
export class PostgresEventStore implements EventStore {
  readonly kind: 'postgres' | 'pglite';
  private readonly appended = new AppendSignal();
  private readonly appends: GroupCommit;

  constructor(private readonly db: Database) {
    this.kind = db.kind;
    this.appends = new GroupCommit(db);
  }

  async appendToStream(
    streamId: string,
    events: readonly NewEvent[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    const result = await this.appends.append(streamId, events, options.expectedRevision ?? 'any');
    this.appended.notify();
    return result;
  }

  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return readStream(this.db, streamId, options);
  }

  readAll(options?: ReadAllOptions): Promise<ReadAllResult> {
    return readAll(this.db, options);
  }

  subscribeToAll(options?: SubscribeOptions): Subscription {
    return new PollingSubscription((read) => this.readAll(read), this.appended, options);
  }

  headPosition(): Promise<Position> {
    return headPosition(this.db);
  }

  countAfter(position: Position, cap: number): Promise<number> {
    return countAfter(this.db, position, cap);
  }

  waitForAppend(timeoutMs: number, signal: AbortSignal): Promise<void> {
    return this.appended.wait(timeoutMs, signal);
  }

  async ping(): Promise<void> {
    await this.db.query('SELECT 1 FROM event_streams LIMIT 1');
  }

  /** The database belongs to its module, which closes it. */
  async close(): Promise<void> {}
}
