import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { ProjectionsModule } from '../projections/projections.module.js';
import type { AppConfig } from './config/app-config.js';
import { ConfigModule } from './config/config.module.js';
import { DatabaseModule } from './database/database.module.js';
import { EventStoreModule } from './event-store/event-store.module.js';
import { HealthModule } from './health/health.module.js';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, extraModules: readonly (Type | DynamicModule)[] = []): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule,
        EventStoreModule,
        ProjectionsModule,
        HealthModule,
        ...extraModules,
      ],
    };
  }
}
