import type { AppConfig } from '../config/app-config.js';
import type { Database } from './database.js';
import { runMigrations } from './migrate.js';
import { PgliteDatabase } from './pglite-database.js';
import { PostgresDatabase } from './postgres-database.js';

export interface OpenDatabaseOptions {
  /**
   * Apply pending migrations before returning (the server). False for the CLI, where only `db:migrate` migrates: the
   * other commands use the schema as it is (and those that change data refuse to run while migrations are pending).
   */
  readonly migrate?: boolean;
}

type DatabaseSettings = Pick<AppConfig, 'database' | 'postgres'>;

/**
 * Opens the configured database (PostgreSQL, or embedded PGlite when DATABASE_URL is unset) and, unless told not to,
 * migrates it.
 */
export async function openDatabase(
  config: DatabaseSettings,
  options: OpenDatabaseOptions = {},
): Promise<Database> {
  const db =
    config.database.kind === 'postgres'
      ? new PostgresDatabase({
          url: config.database.url,
          poolSize: config.postgres.poolSize,
          idleInTransactionSessionTimeoutMs: config.postgres.idleInTransactionSessionTimeoutMs,
        })
      : await PgliteDatabase.open(config.database.dataDir);
  if (options.migrate === false) return db;
  try {
    await migrateDatabase(db, config);
    return db;
  } catch (error) {
    await db.close();
    throw error;
  }
}

/**
 * Applies pending migrations; resolves to the names applied. Instances starting together on one PostgreSQL migrate
 * one at a time (a transaction-scoped advisory lock).
 */
export async function migrateDatabase(db: Database, config: DatabaseSettings): Promise<string[]> {
  if (db.kind === 'pglite') return runMigrations(db);
  const url = config.database.kind === 'postgres' ? config.database.url : undefined;
  return db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('ferry.migrations'))");
    return runMigrations(db, url);
  });
}
