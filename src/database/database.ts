/** The rows of one statement. Column types: int8 and xid8 → bigint, numeric → string, timestamptz → Date. */
export interface QueryResult<R> {
  readonly rows: R[];
  readonly rowCount: number;
}

export interface QueryOptions {
  /**
   * Prepares the statement once per connection under this name and reuses the plan (PostgreSQL; PGlite ignores it).
   * For hot statements with a fixed text only.
   */
  readonly name?: string;
}

/** Anything that runs one SQL statement: the database itself or an open transaction. */
export interface SqlExecutor {
  query<R extends object = Record<string, unknown>>(
    text: string,
    params?: readonly unknown[],
    options?: QueryOptions,
  ): Promise<QueryResult<R>>;
}

/**
 * The SQL port every module uses (event store, projections, later the outbox).
 * Two implementations: PostgreSQL through a `pg` pool, and embedded PGlite (one in-process connection).
 */
export interface Database extends SqlExecutor {
  readonly kind: 'postgres' | 'pglite';
  /** Runs `fn` in one transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export const DATABASE = Symbol('Database');

/** PostgreSQL type oids whose text form we parse ourselves, identically on both implementations. */
export const PG_TYPES = { int8: 20, numeric: 1700, xid8: 5069 } as const;

export const parseBigInt = (text: string): bigint => BigInt(text);
