import { Module } from '@nestjs/common';
import { ProjectionsModule } from '../../projections/projections.module.js';
import { MetricsController } from './metrics.controller.js';
import { MetricsService } from './metrics.service.js';

/** Prometheus metrics at `GET /metrics` (docs/operations.md). */
@Module({ imports: [ProjectionsModule], controllers: [MetricsController], providers: [MetricsService] })
export class MetricsModule {}
