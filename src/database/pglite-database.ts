import { PGlite, type Transaction } from '@electric-sql/pglite';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ConfigError } from '../config/config.error.js';
import { type Database, PG_TYPES, parseBigInt, type QueryResult, type SqlExecutor } from './database.js';
import { type DirectoryLock, takeLock } from './pglite-lock.js';

const STAMP_FILE = 'FERRY_PGLITE.json';

interface Stamp {
  readonly pgliteVersion: string;
  readonly postgresMajor: string;
}

/** The version of PGlite this build runs, read from its package manifest. */
export function pgliteVersion(): string {
  // The package's exports do not include package.json, so find it beside the resolved entry point.
  let dir = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  while (!existsSync(join(dir, 'package.json')) || !isPgliteManifest(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('Cannot find the @electric-sql/pglite package manifest');
    dir = parent;
  }
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

function isPgliteManifest(file: string): boolean {
  return (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === '@electric-sql/pglite';
}

/** PGlite 0.x changes its on-disk format between minor versions; 1.x and later between majors. */
function compatibilityLine(version: string): string {
  const [major, minor] = version.split('.');
  return major === '0' ? `0.${minor}` : `${major}`;
}

/**
 * Embedded PostgreSQL (PGlite, in WASM) in one directory, one in-process connection.
 * The directory is stamped with the PGlite version that wrote it, and locked while open.
 */
export class PgliteDatabase implements Database {
  readonly kind = 'pglite' as const;

  private constructor(
    readonly db: PGlite,
    private readonly lock: DirectoryLock | null,
  ) {}

  /** Opens (creating when absent) the data directory; `memory://` opens a throwaway in-memory database. */
  static async open(dataDir: string): Promise<PgliteDatabase> {
    const inMemory = dataDir.startsWith('memory://');
    // `memory://x` resolved as a path (`<cwd>/memory:/x`) would write a database into the working tree.
    if (!inMemory && /(^|[\\/])memory:([\\/]|$)/.test(dataDir)) {
      throw new ConfigError(
        'DATA_DIR',
        `(${dataDir}) looks like a mangled memory:// URL; use memory://<name>`,
      );
    }
    let lock: DirectoryLock | null = null;
    if (!inMemory) {
      mkdirSync(dataDir, { recursive: true });
      checkStamp(dataDir);
      lock = takeLock(dataDir);
    }
    try {
      const db = await PGlite.create(inMemory ? dataDir : join(dataDir, 'pgdata'), {
        parsers: {
          [PG_TYPES.int8]: parseBigInt,
          [PG_TYPES.xid8]: parseBigInt,
          [PG_TYPES.numeric]: (text: string) => text,
        },
      });
      if (!inMemory) writeStamp(dataDir);
      return new PgliteDatabase(db, lock);
    } catch (error) {
      lock?.release();
      throw error;
    }
  }

  async query<R extends object>(text: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
    return toResult(await this.db.query<R>(text, normalizeParams(params)));
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.db.transaction(async (tx: Transaction) =>
      fn({
        query: async <R extends object>(text: string, params?: readonly unknown[]) =>
          toResult(await tx.query<R>(text, normalizeParams(params))),
      }),
    );
  }

  async close(): Promise<void> {
    try {
      if (!this.db.closed) await this.db.close();
    } finally {
      this.lock?.release();
    }
  }
}

/**
 * `rowCount` as pg reports it: the rows a SELECT (or a RETURNING) gave, else the rows a write touched. PGlite reports
 * `affectedRows: 0` for a SELECT, so preferring it made every `SELECT … FOR UPDATE` guard read as "no row": on
 * embedded storage the solver's fencing guard always failed and no fill was ever sent.
 */
function toResult<R>(result: { rows: R[]; affectedRows?: number }): QueryResult<R> {
  return { rows: result.rows, rowCount: result.rows.length || (result.affectedRows ?? 0) };
}

/** PGlite serialises by the server's parameter types; text forms keep bigint and arrays of it exact. */
function normalizeParams(params?: readonly unknown[]): unknown[] | undefined {
  return params?.map((value) => {
    if (typeof value === 'bigint') return value.toString();
    if (Array.isArray(value)) return value.map((item) => (typeof item === 'bigint' ? item.toString() : item));
    return value;
  });
}

function checkStamp(dataDir: string): void {
  const stampPath = join(dataDir, STAMP_FILE);
  const hasData = existsSync(join(dataDir, 'pgdata', 'PG_VERSION'));
  if (!existsSync(stampPath)) {
    if (hasData) {
      throw new ConfigError(
        'DATA_DIR',
        `(${dataDir}) holds a database without a ${STAMP_FILE} stamp; Ferry cannot tell which PGlite wrote it. ` +
          'Move it aside or set DATABASE_URL.',
      );
    }
    return;
  }
  const stamp = JSON.parse(readFileSync(stampPath, 'utf8')) as Stamp;
  const running = pgliteVersion();
  if (compatibilityLine(stamp.pgliteVersion) !== compatibilityLine(running)) {
    throw new ConfigError(
      'DATA_DIR',
      `(${dataDir}) was written by PGlite ${stamp.pgliteVersion} (PostgreSQL ${stamp.postgresMajor}); ` +
        `this build runs PGlite ${running}, which cannot open it. Dump it with the older version ` +
        '(pg_dump through PGlite) or move the directory aside.',
    );
  }
}

function writeStamp(dataDir: string): void {
  const postgresMajor = readFileSync(join(dataDir, 'pgdata', 'PG_VERSION'), 'utf8').trim();
  const stamp: Stamp = { pgliteVersion: pgliteVersion(), postgresMajor };
  writeFileSync(join(dataDir, STAMP_FILE), `${JSON.stringify(stamp, null, 2)}\n`);
}
