import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { PostgresDatabase } from '../../src/database/postgres-database.js';
import { runMigrations } from '../../src/database/migrate.js';
import { PgliteDatabase } from '../../src/database/pglite-database.js';
import type { Database } from '../../src/database/database.js';

/** The local server tests run against (trust auth on these machines); `TEST_DATABASE_URL` overrides it. */
export const TEST_SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  readonly url: string;
  readonly name: string;
  drop(): Promise<void>;
}

/** A fresh, empty database on the local PostgreSQL server, dropped by `drop()`. Suites never share one. */
export async function createTestDatabase(prefix = 'ferry_test'): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_SERVER_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(TEST_SERVER_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const client = new pg.Client({ connectionString: TEST_SERVER_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

export interface MigratedDatabase {
  readonly db: Database;
  readonly url?: string;
  close(): Promise<void>;
}

/** A migrated database of either kind: a fresh local PostgreSQL database, or an in-memory PGlite. */
export async function migratedDatabase(
  kind: 'postgres' | 'pglite',
  poolSize = 20,
): Promise<MigratedDatabase> {
  if (kind === 'pglite') {
    const db = await PgliteDatabase.open('memory://');
    await runMigrations(db);
    return { db, close: () => db.close() };
  }
  const testDb = await createTestDatabase();
  const db = new PostgresDatabase({ url: testDb.url, poolSize });
  await runMigrations(db, testDb.url);
  return {
    db,
    url: testDb.url,
    async close() {
      await db.close();
      await testDb.drop();
    },
  };
}

/**
 * Waits until every transaction that began before this call has ended, so all committed events are readable.
 * Catch-up reads stop below the cluster's oldest running transaction, and other suites' transactions (other
 * databases on the same server) count too: a test that asserts on what a reader sees waits for this first.
 */
export async function waitForReadable(db: Database, timeoutMs = 30_000): Promise<void> {
  if (db.kind === 'pglite') return;
  const { rows } = await db.query<{ xid: string }>('SELECT pg_current_xact_id()::text AS xid');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const check = await db.query<{ readable: boolean }>(
      'SELECT pg_snapshot_xmin(pg_current_snapshot()) > $1::text::xid8 AS readable',
      [rows[0].xid],
    );
    if (check.rows[0].readable) return;
    if (Date.now() > deadline) throw new Error(`A transaction older than ${rows[0].xid} is still running`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
