import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { ProjectionsModule } from '../projections/projections.module.js';
import { ApiKeysModule } from './api-keys/api-keys.module.js';
import { AppFeesModule } from './app-fees/app-fees.module.js';
import { ChainRuntimeModule } from './chains/chain-runtime.module.js';
import { ChainsModule } from './chains/chains.module.js';
import type { AppConfig } from './config/app-config.js';
import { ConfigModule } from './config/config.module.js';
import { type Clock, systemClock } from './common/clock.js';
import { ClockModule } from './common/clock.module.js';
import { DatabaseModule } from './database/database.module.js';
import { EventStoreModule } from './event-store/event-store.module.js';
import { HealthModule } from './health/health.module.js';
import { HistoryModule } from './history/history.module.js';
import { HistoryV2Module } from './history/v2/history-v2.module.js';
import { RequestsModule } from './requests/requests.module.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';
import { RequestStatusModule } from './requests/status/request-status.module.js';
import { QuotesModule } from './quotes/quotes.module.js';
import { RevenueShareModule } from './revenue-share/revenue-share.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import type { OracleConfig } from './oracle/config/oracle-config.js';
import { OracleModule } from './oracle/oracle.module.js';
import { RawKeySigner } from './oracle/signer/oracle-signer.js';

@Module({})
export class AppModule {
  static forRoot(
    config: AppConfig,
    extraModules: readonly (Type | DynamicModule)[] = [],
    clock: Clock = systemClock,
  ): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        ClockModule.forRoot(clock),
        DatabaseModule,
        EventStoreModule,
        ProjectionsModule,
        HealthModule,
        HistoryModule,
        RequestsModule,
        ApiKeysModule,
        RequestStatusModule,
        HistoryV2Module,
        WebhooksModule,
        ChainsModule.forRoot(config.chains),
        QuotesModule,
        ChainRuntimeModule,
        AppFeesModule,
        RevenueShareModule,
        ...(config.metricsEnabled ? [MetricsModule] : []),
        ...(config.oracle.mounted
          ? [OracleModule.forRoot(config.oracle.mounted, mountedSigner(config.oracle.mounted))]
          : []),
        ...extraModules,
      ],
    };
  }
}

/** The API process mounts the oracle with a raw key only; a KMS signer runs in the standalone oracle. */
function mountedSigner(config: OracleConfig): RawKeySigner {
  if (config.signing.module !== 'raw-private-key') throw new Error('The mounted oracle signs with a raw key');
  return new RawKeySigner(config.signing.privateKey);
}
