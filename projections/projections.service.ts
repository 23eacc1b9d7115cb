import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { AppConfig } from '../src/config/app-config.js';
import { APP_CONFIG } from '../src/config/config.module.js';
import { DATABASE, type Database } from '../src/database/database.js';
import { EVENT_STORE, type EventStore } from '../src/event-store/event-store.js';
import type { Projection } from './projection.js';
import { ProjectionRunner } from './runner/projection-runner.js';
import { projectionStatuses, type ProjectionStatus } from './runner/projection-status.js';

export const PROJECTIONS = Symbol('Projections');

/** Runs the projection runner inside the app: builds what is missing at start-up, then follows the log. */
@Injectable()
export class ProjectionsService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Projections');
  readonly runner: ProjectionRunner;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DATABASE) private readonly db: Database,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(PROJECTIONS) readonly projections: readonly Projection[],
  ) {
    this.runner = new ProjectionRunner(db, store, {
      batchSize: config.projections.batchSize,
      pollIntervalMs: config.projections.pollIntervalMs,
      rebuildOnVersionChange: config.projections.rebuildOnVersionChange,
      onError: (projection, error) =>
        this.logger.error({
          msg: 'projection batch failed',
          projection: projection.name,
          err: String(error),
        }),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.projections.run) {
      for (const projection of this.projections) await this.runner.registry.ensure(projection);
      return;
    }
    await this.runner.start(this.projections);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }

  status(): Promise<ProjectionStatus[]> {
    return projectionStatuses(this.db, this.store, this.projections);
  }
}
