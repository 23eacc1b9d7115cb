import { DataSource, type DataSourceOptions } from 'typeorm';
import type { Database } from './database.js';
import { migrations } from './migrations/index.js';
import { PgliteDatabase } from './pglite-database.js';
import { pgliteTypeormDriver } from './typeorm/pglite-driver.js';

/**
 * Applies pending TypeORM migrations (never `synchronize`). On PostgreSQL the data source opens its own short-lived
 * connection and the migrations take an advisory lock, so instances starting together migrate once.
 */
export async function runMigrations(db: Database, postgresUrl?: string): Promise<string[]> {
  const base = {
    type: 'postgres',
    migrations,
    migrationsTableName: 'typeorm_migrations',
    logging: false,
  } as const;
  const options: DataSourceOptions =
    db instanceof PgliteDatabase
      ? { ...base, driver: pgliteTypeormDriver(db.db), poolSize: 1 }
      : { ...base, url: postgresUrl, poolSize: 1 };
  const dataSource = new DataSource(options);
  await dataSource.initialize();
  try {
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((migration) => migration.name);
  } finally {
    await dataSource.destroy();
  }
}
