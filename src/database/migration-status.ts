import type { SqlExecutor } from './database.js';
import { migrations } from './migrations/index.js';

export interface MigrationStatus {
  /** Migrations of this version of Ferry recorded as applied, in order. */
  readonly applied: readonly string[];
  /** Migrations of this version not applied yet, in order (`db:migrate` applies them). */
  readonly pending: readonly string[];
  /** Recorded as applied but unknown to this version: a newer Ferry migrated the database. */
  readonly unknown: readonly string[];
}

/** The names of this version's migrations, in order (each class's `name`, as TypeORM records it). */
export const migrationNames = (): string[] =>
  migrations.map((migration) => new migration().name ?? migration.name);

/** Which migrations the database has (TypeORM's `typeorm_migrations` table) and which it lacks; changes nothing. */
export async function migrationStatus(db: SqlExecutor): Promise<MigrationStatus> {
  const { rows: present } = await db.query<{ present: boolean }>(
    "SELECT to_regclass('typeorm_migrations') IS NOT NULL AS present",
  );
  const recorded = present[0]?.present
    ? (await db.query<{ name: string }>('SELECT name FROM typeorm_migrations ORDER BY id')).rows.map(
        (row) => row.name,
      )
    : [];
  const known = migrationNames();
  const done = new Set(recorded);
  return {
    applied: known.filter((name) => done.has(name)),
    pending: known.filter((name) => !done.has(name)),
    unknown: recorded.filter((name) => !known.includes(name)),
  };
}
