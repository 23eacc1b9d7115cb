import { Controller, Get, Header, Headers, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ApiError } from '../common/http/api-error.js';
import { matchesSecret, secretDigest } from '../common/secret-digest.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { MetricsService } from './metrics.service.js';

/**
 * `GET /metrics`: Prometheus's text format (docs/operations.md, "Metrics"). Open when `METRICS_TOKEN` is unset;
 * otherwise it needs `Authorization: Bearer <token>` (401 UNAUTHORIZED), compared in constant time.
 */
@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  private readonly token: Buffer | null;

  constructor(
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.token = config.metricsToken === null ? null : secretDigest(config.metricsToken);
  }

  @Get()
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  @Header('cache-control', 'no-store')
  async scrape(@Headers('authorization') authorization?: string): Promise<string> {
    if (this.token) {
      if (!matchesSecret(this.token, /^Bearer (.+)$/.exec(authorization ?? '')?.[1])) {
        throw new ApiError('UNAUTHORIZED', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>');
      }
    }
    return this.metrics.text();
  }
}
