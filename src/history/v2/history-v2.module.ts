import { Module } from '@nestjs/common';
import { RateLimiter } from '../../api-keys/rate-limiter.js';
import { CLOCK, type Clock } from '../../common/clock.js';
import { RequestsV2Controller } from './requests-v2.controller.js';
import { RequestsV2Service } from './requests-v2.service.js';
import { V2_RATE_LIMITER, V2RateLimitGuard } from './v2-rate-limit.guard.js';
import { V2SunsetGuard } from './v2-sunset.guard.js';

/** The deprecated `GET /requests/v2`: v2 records, deprecation headers, the shrinking rate limit, the sunset. */
@Module({
  controllers: [RequestsV2Controller],
  providers: [
    RequestsV2Service,
    V2SunsetGuard,
    V2RateLimitGuard,
    {
      provide: V2_RATE_LIMITER,
      inject: [CLOCK],
      useFactory: (clock: Clock): RateLimiter => new RateLimiter({ now: () => clock.now().getTime() }),
    },
  ],
})
export class HistoryV2Module {}
