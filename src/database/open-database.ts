import type { AppConfig } from '../config/app-config.js';
import type { Database } from './database.js';
import { runMigrations } from './migrate.js';
import { PgliteDatabase } from './pglite-database.js';
import { PostgresDatabase } from './postgres-database.js';

/** Opens the configured database (PostgreSQL, or embedded PGlite when DATABASE_URL is unset) and migrates it. */
export async function openDatabase(config: Pick<AppConfig, 'database' | 'postgres'>): Promise<Database> {
  const db =
    config.database.kind === 'postgres'
      ? new PostgresDatabase({
          url: config.database.url,
          poolSize: config.postgres.poolSize,
          idleInTransactionSessionTimeoutMs: config.postgres.idleInTransactionSessionTimeoutMs,
        })
      : await PgliteDatabase.open(config.database.dataDir);
  try {
    await migrate(db, config.database.kind === 'postgres' ? config.database.url : undefined);
    return db;
  } catch (error) {
    await db.close();
    throw error;
  }
}

/** Instances starting together on one PostgreSQL migrate one at a time (a transaction-scoped advisory lock). */
async function migrate(db: Database, url?: string): Promise<void> {
  if (db.kind === 'pglite') {
    await runMigrations(db);
    return;
  }
  await db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('ferry.migrations'))");
    await runMigrations(db, url);
  });
}
