import pg from 'pg';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Projection } from '../../projections/projection.js';
import { requestsV2Projection } from '../../projections/requests-v2/requests-v2.projection.js';
import { requestsV3Projection } from '../../projections/requests-v3/requests-v3.projection.js';
import { ProjectionRunner } from '../../projections/runner/projection-runner.js';
import { rebuildProjections } from '../../projections/runner/rebuild.js';
import { ApiKeysService } from '../../src/api-keys/api-keys.service.js';
import { loadAppConfig } from '../../src/config/app-config.js';
import { runMigrations } from '../../src/database/migrate.js';
import { PostgresDatabase } from '../../src/database/postgres-database.js';
import { PostgresEventStore } from '../../src/event-store/postgres/postgres-event-store.js';
import { startBenchApp } from '../bench-app.js';
import { BENCH_SERVER_URL, write } from '../support.js';
import { seedRequests } from '../seed-requests.js';

/**
 * EXPERIMENT, by hand only: a history database that outlives one run, for profiling `GET /requests/v3`.
 *   node dist/bench/experiments/history-db.js seed <database> <requests>   seeds, rebuilds, writes $TMPDIR/<database>.key.json
 *   node dist/bench/experiments/history-db.js serve <database>   the app on it (projections off), prints its URL
 * The API key secret is fixed here (the key file must match the server's).
 */

const SECRET = 'a5'.repeat(32);

const urlOf = (database: string): string => {
  const url = new URL(BENCH_SERVER_URL);
  url.pathname = `/${database}`;
  return url.toString();
};

const configOf = (database: string) =>
  loadAppConfig({
    ENVIRONMENT: 'test',
    LOG_LEVEL: 'fatal',
    DATABASE_URL: urlOf(database),
    API_KEY_ENCRYPTION_KEY: SECRET,
    PROJECTIONS_RUN: 'false',
    WEBHOOKS_RUN: 'false',
    APP_FEES_RUN: 'false',
    API_KEY_RATE_LIMIT_PER_MINUTE: '1000000',
  });

async function seed(database: string, requests: number): Promise<void> {
  const admin = new pg.Client({ connectionString: BENCH_SERVER_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const db = new PostgresDatabase({ url: urlOf(database), poolSize: 8, applicationName: 'ferry-history-db' });
  try {
    await runMigrations(db, urlOf(database));
    const keys = new ApiKeysService(db, configOf(database));
    const own = await keys.create({ label: 'history reader', rateLimitPerMinute: 1_000_000 });
    const others = await Promise.all(
      Array.from({ length: 5 }, (_, i) => keys.create({ label: `integrator ${i + 1}` })),
    );
    writeFileSync(join(tmpdir(), `${database}.key.json`), JSON.stringify({ id: own.id, key: own.key }));
    const seeded = await seedRequests(db, {
      requests,
      apiKeyIds: [own.id, ...others.map((key) => key.id)],
      chunk: 20_000,
      dropIndexes: true,
    });
    write(`seeded ${seeded.events} events in ${seeded.seconds.toFixed(0)} s`);
    await db.query('VACUUM ANALYZE events');
    const store = new PostgresEventStore(db);
    const runner = new ProjectionRunner(db, store, {
      batchSize: 5_000,
      pollIntervalMs: 100,
      rebuildOnVersionChange: true,
    });
    await rebuildProjections(runner, store, [requestsV3Projection, requestsV2Projection] as Projection[], {
      batchSize: 5_000,
    });
    write('rebuilt requests-v3 and requests-v2');
  } finally {
    await db.close();
  }
}

async function serve(database: string): Promise<void> {
  const app = await startBenchApp(configOf(database));
  write(`listening at ${app.baseUrl}`);
  const stop = () => void app.close().finally(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

const [command, database, arg] = process.argv.slice(2);
if (!database || !/^[a-z0-9_]+$/.test(database)) throw new Error('usage: seed|serve <database> [n]');
if (command === 'seed') await seed(database, Number(arg ?? 100_000));
else if (command === 'serve') await serve(database);
else throw new Error('usage: seed|serve <database> [n]');
