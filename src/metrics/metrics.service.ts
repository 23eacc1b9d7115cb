import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { Registry } from 'prom-client';
import { ProjectionsService } from '../../projections/projections.service.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { DATABASE, type Database } from '../database/database.js';
import { processRegistry } from './process-metrics.js';
import { registerStateMetrics } from './state-metrics.js';

/** The metrics of this app: the process-wide ones and this app's state gauges, in Prometheus's text format. */
@Injectable()
export class MetricsService implements OnApplicationBootstrap {
  private readonly registry = new Registry();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DATABASE) db: Database,
    projections: ProjectionsService,
  ) {
    registerStateMetrics(this.registry, { db, projections, chains: config.chains });
  }

  onApplicationBootstrap(): void {
    if (this.config.environment === 'production' && this.config.metricsToken === null) {
      new Logger('Metrics').warn(
        'METRICS_TOKEN is unset: GET /metrics is open to anyone who reaches the API port',
      );
    }
  }

  async text(): Promise<string> {
    return (await processRegistry.metrics()) + (await this.registry.metrics());
  }
}
