import { type DynamicModule, type FactoryProvider, Module, type Provider } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import type { Env } from '../config/resolve-placeholders.js';
import { ChainRegistry, loadChainRegistry } from './chain-registry.js';
import { ChainsController } from './chains.controller.js';

/**
 * Builds the {@link ChainRegistry} from `configs/chains.<environment>.json` when the module starts, with the
 * environment and config directory of the AppConfig. Prefer loading the registry with the rest of the config at
 * boot (`ChainsModule.forRoot(loadChainRegistry(...))`), so a bad chains file stops start-up with one line.
 */
export function chainRegistryProvider(env: Env): FactoryProvider<ChainRegistry> {
  return {
    provide: ChainRegistry,
    inject: [APP_CONFIG],
    useFactory: (config: AppConfig) => loadChainRegistry(env, config.environment, config.configDir),
  };
}

/**
 * The chain and currency registry (global: quotes, requests and the chain watcher inject `ChainRegistry`) and
 * `GET /chains`.
 */
@Module({})
export class ChainsModule {
  /** With a registry already loaded (at boot, or built in memory by a test). */
  static forRoot(registry: ChainRegistry): DynamicModule {
    return ChainsModule.with({ provide: ChainRegistry, useValue: registry });
  }

  /** Loading the registry from the AppConfig's environment when the module starts (needs ConfigModule). */
  static fromConfig(env: Env): DynamicModule {
    return ChainsModule.with(chainRegistryProvider(env));
  }

  private static with(registry: Provider<ChainRegistry>): DynamicModule {
    return {
      module: ChainsModule,
      global: true,
      controllers: [ChainsController],
      providers: [registry],
      exports: [ChainRegistry],
    };
  }
}
