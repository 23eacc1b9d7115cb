import { Module } from '@nestjs/common';
import { projections } from './index.js';
import { PROJECTIONS, ProjectionsService } from './projections.service.js';

@Module({
  providers: [{ provide: PROJECTIONS, useValue: projections }, ProjectionsService],
  exports: [ProjectionsService],
})
export class ProjectionsModule {}
