import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CLOCK, type Clock } from '../../common/clock.js';
import { ApiError } from '../../common/http/api-error.js';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/config.module.js';
import { V2_SUCCESSOR, v2DeprecationHeaders, v2PolicyAt } from './v2-sunset.js';

/** 410 ENDPOINT_RETIRED, with the successor at the top of the body. */
export class EndpointRetiredError extends ApiError {
  constructor(
    message: string,
    readonly successor: string,
  ) {
    super('ENDPOINT_RETIRED', message);
  }

  override getResponse(): object {
    return { ...(super.getResponse() as object), successor: this.successor };
  }
}

/**
 * Runs first on every v2 route: stamps the deprecation headers on the answer (whatever it turns out to be), and from
 * the sunset date on answers 410 before anything else is looked at (key, rate limit, parameters).
 */
@Injectable()
export class V2SunsetGuard implements CanActivate {
  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'v2'>,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    void reply.headers(v2DeprecationHeaders(this.config.v2));
    if (v2PolicyAt(this.config.v2, this.clock.now()).phase === 'retired') {
      throw new EndpointRetiredError(
        `GET /requests/v2 was retired on ${this.config.v2.sunsetAt.toISOString().slice(0, 10)}; use GET ` +
          `${V2_SUCCESSOR} (x-api-key required)`,
        V2_SUCCESSOR,
      );
    }
    return true;
  }
}
