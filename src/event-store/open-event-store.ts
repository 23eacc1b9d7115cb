import type { EventStoreConfig } from '../config/app-config.js';
import type { Database } from '../database/database.js';
import { tracingEnabled } from '../telemetry/tracing.js';
import { EsdbEventStore } from './esdb/esdb-event-store.js';
import type { EventStore } from './event-store.js';
import { PostgresEventStore } from './postgres/postgres-event-store.js';
import { TracedEventStore } from './traced-event-store.js';

/**
 * The configured event store: EventStoreDB when EVENTSTORE_URL is set, else the database's own events table; wrapped
 * to trace appends when tracing is on (docs/operations.md, "Traces").
 */
export function openEventStore(config: EventStoreConfig, db: Database): EventStore {
  const store = config.kind === 'esdb' ? new EsdbEventStore(config.url) : new PostgresEventStore(db);
  return tracingEnabled() ? new TracedEventStore(store) : store;
}
