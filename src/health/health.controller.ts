import { Controller, Get, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { HealthService, type HealthReport } from './health.service.js';

@ApiTags('operations')
@Controller()
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get('health')
  @ApiOperation({
    summary: "Readiness: database, event store and projection lag, from the background probe's last readings",
  })
  @ApiResponse({ status: 200, description: 'Every part is up' })
  @ApiResponse({ status: 503, description: 'A part is down; its check says why' })
  get(@Res({ passthrough: true }) reply: FastifyReply): HealthReport {
    const report = this.health.report();
    reply.status(report.status === 'ok' ? 200 : 503);
    return report;
  }
}
