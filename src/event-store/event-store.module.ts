import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { DATABASE, type Database } from '../database/database.js';
import { AggregateRepository } from './aggregate-repository.js';
import { AGGREGATE_SNAPSHOTS, type SnapshotStore, SqlSnapshotStore } from './aggregate-snapshots.js';
import { EventRegistry } from './event-registry.js';
import { EVENT_STORE, type EventStore } from './event-store.js';
import { openEventStore } from './open-event-store.js';

/** The event store port, the event type registry and the aggregate repository, for every module. */
@Global()
@Module({
  imports: [CqrsModule],
  providers: [
    {
      provide: EVENT_STORE,
      inject: [APP_CONFIG, DATABASE],
      useFactory: (config: AppConfig, db: Database): EventStore => openEventStore(config.eventStore, db),
    },
    {
      provide: AGGREGATE_SNAPSHOTS,
      inject: [DATABASE],
      useFactory: (db: Database): SnapshotStore => new SqlSnapshotStore(db),
    },
    EventRegistry,
    AggregateRepository,
  ],
  exports: [EVENT_STORE, AGGREGATE_SNAPSHOTS, EventRegistry, AggregateRepository, CqrsModule],
})
export class EventStoreModule implements OnApplicationShutdown {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
