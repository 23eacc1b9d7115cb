import type { DynamicModule, Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { createApp } from '../../src/bootstrap/create-app.js';
import type { Clock } from '../../src/common/clock.js';
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
  clock?: Clock,
  /** An existing database to start on (a second instance, a restart); it is then not dropped by close(). */
  existing?: TestDatabase,
): Promise<TestApp> {
  // `TEST_STORAGE=pglite` runs the suite on embedded storage (PGlite in memory), as `npm start` does.
  const embedded = process.env.TEST_STORAGE === 'pglite' && !existing;
  const database =
    existing ??
    (embedded
      ? { url: '', name: 'pglite', drop: async () => undefined }
      : await createTestDatabase('ferry_e2e'));
  const config = loadAppConfig({
    ENVIRONMENT: 'test',
    LOG_LEVEL: 'fatal',
    DATABASE_URL: database.url,
    ...(embedded ? { DATA_DIR: `memory://e2e-${Math.random().toString(36).slice(2)}` } : {}),
    ...env,
  });
  const app = await createApp(config, { logger: false, extraModules, clock });
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
      if (!existing) await database.drop();
    },
  };
}

/**
 * Resolves once every projection of the app has applied everything appended so far (call it after driving commands,
 * before reading a read model through HTTP).
 */
export async function waitForProjections(app: TestApp, timeoutMs = 15_000): Promise<void> {
  const { ProjectionsService } = await import('../../projections/projections.service.js');
  const { DATABASE } = await import('../../src/database/database.js');
  const { waitForReadable } = await import('./postgres.js');
  await waitForReadable(app.app.get(DATABASE));
  const projections = app.app.get(ProjectionsService);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const statuses = await projections.status();
    if (statuses.every((status) => status.live && status.live.lagEvents === 0 && !status.building)) return;
    if (Date.now() > deadline)
      throw new Error(
        `Projections still behind: ${JSON.stringify(statuses, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** What `address` has available of its app fees (its first balance, in USDC units), once the projections caught up. */
export async function appFeesAvailable(app: TestApp, address: string): Promise<bigint> {
  await waitForProjections(app);
  const response = await app.http.inject({ method: 'GET', url: `/app-fees/${address}/balances` });
  return BigInt((response.json() as { balances: { amount: string }[] }).balances[0].amount);
}
