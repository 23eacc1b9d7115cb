import { Controller, Get, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { HealthService, type HealthReport } from './health.service.js';

@ApiTags('operations')
@Controller()
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get('health/live')
  @ApiOperation({
    summary:
      'Liveness: the process answers `{status: "ok"}`, whatever its dependencies say. Point liveness probes here: ' +
      '`/health` answers 503 during a rebuild, and restarting the instance then would only start the rebuild over',
  })
  @ApiResponse({ status: 200, description: 'The process answers' })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

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
