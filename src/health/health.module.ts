import { Module } from '@nestjs/common';
import { ProjectionsModule } from '../../projections/projections.module.js';
import { HealthController } from './health.controller.js';
import { HealthService } from './health.service.js';

@Module({ imports: [ProjectionsModule], controllers: [HealthController], providers: [HealthService] })
export class HealthModule {}
