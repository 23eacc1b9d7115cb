import type { DynamicModule, Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { createApp } from '../../src/bootstrap/create-app.js';
import { type AppConfig, loadAppConfig } from '../../src/config/app-config.js';
import { createTestDatabase, type TestDatabase } from './postgres.js';

export interface TestApp {
  readonly app: NestFastifyApplication;
  readonly http: FastifyInstance;
  readonly config: AppConfig;
  readonly database: TestDatabase;
  close(): Promise<void>;
}

/** The real app on a fresh local PostgreSQL database, ready for `http.inject(...)`. */
export async function startTestApp(
  env: Record<string, string> = {},
  extraModules: readonly (Type | DynamicModule)[] = [],
): Promise<TestApp> {
  const database = await createTestDatabase('ferry_e2e');
  const config = loadAppConfig({
    ENVIRONMENT: 'test',
    LOG_LEVEL: 'fatal',
    DATABASE_URL: database.url,
    ...env,
  });
  const app = await createApp(config, { logger: false, extraModules });
  await app.init();
  const http = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  await http.ready();
  return {
    app,
    http,
    config,
    database,
    async close() {
      await app.close();
      await database.drop();
    },
  };
}
