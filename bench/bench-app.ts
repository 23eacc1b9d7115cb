import { Controller, Get, Module } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomBytes } from 'node:crypto';
import { ApiKeysService } from '../src/api-keys/api-keys.service.js';
import { createApp } from '../src/bootstrap/create-app.js';
import { type AppConfig, loadAppConfig } from '../src/config/app-config.js';
import type { Database } from '../src/database/database.js';

/** A bare route in the same app, for the cost of everything that is not the route's own work. */
@Controller('bench')
export class BenchNoopController {
  @Get('noop')
  noop(): Record<string, never> {
    return {};
  }
}

/** The fixture module mounted beside the app's own (`createApp(config, {extraModules})`). */
@Module({ controllers: [BenchNoopController] })
export class BenchNoopModule {}

/** One random API-key secret per process: keys created through `apiKeysFor` before the app starts work in it. */
const ENCRYPTION_KEY = randomBytes(32).toString('hex');

/**
 * The app's configuration for a benchmark database: the test environment's file, projections and webhooks off, a
 * rate limit no benchmark reaches, and `env` on top.
 */
export function benchConfig(databaseUrl: string, env: Record<string, string> = {}): AppConfig {
  return loadAppConfig({
    ENVIRONMENT: 'test',
    LOG_LEVEL: 'fatal',
    DATABASE_URL: databaseUrl,
    API_KEY_ENCRYPTION_KEY: ENCRYPTION_KEY,
    PROJECTIONS_RUN: 'false',
    WEBHOOKS_RUN: 'false',
    // Benchmarks send thousands of requests a second with one key.
    API_KEY_RATE_LIMIT_PER_MINUTE: '1000000',
    ...env,
  });
}

/** The API keys service on a database, outside the app (same secret as the app's). */
export function apiKeysFor(db: Database, config: AppConfig): ApiKeysService {
  return new ApiKeysService(db, config);
}

export interface BenchApp {
  readonly app: NestFastifyApplication;
  readonly baseUrl: string;
  close(): Promise<void>;
}

/** The real app (with the bench fixture module) listening on a free loopback port. */
export async function startBenchApp(config: AppConfig): Promise<BenchApp> {
  const app = await createApp(config, { logger: false, extraModules: [BenchNoopModule] });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.getHttpServer().address();
  if (address === null || typeof address === 'string') throw new Error('The app is not listening on a port');
  return {
    app,
    baseUrl: `http://127.0.0.1:${address.port}`,
    close: () => app.close(),
  };
}
