import pg from 'pg';
import {
  type Database,
  PG_TYPES,
  parseBigInt,
  type QueryOptions,
  type QueryResult,
  type SqlExecutor,
} from './database.js';

export interface PostgresDatabaseOptions {
  readonly url: string;
  readonly poolSize?: number;
  readonly idleInTransactionSessionTimeoutMs?: number;
  readonly applicationName?: string;
}

const typeParsers = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === PG_TYPES.int8 || oid === PG_TYPES.xid8) return parseBigInt;
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

/** PostgreSQL through a `pg` pool. */
export class PostgresDatabase implements Database {
  readonly kind = 'postgres' as const;
  readonly pool: pg.Pool;

  constructor(options: PostgresDatabaseOptions) {
    const timeout = options.idleInTransactionSessionTimeoutMs ?? 60_000;
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 20,
      application_name: options.applicationName ?? 'ferry',
      // An open transaction holds every catch-up reader back (events are read below the xmin watermark),
      // so a session that forgets to commit is ended rather than allowed to stall the read side.
      options: `-c idle_in_transaction_session_timeout=${timeout}`,
      types: typeParsers,
    });
    // A pooled client that errors while idle is discarded by pg; without a listener Node would crash.
    this.pool.on('error', () => undefined);
  }

  async query<R extends object>(
    text: string,
    params?: readonly unknown[],
    options?: QueryOptions,
  ): Promise<QueryResult<R>> {
    const result = await this.pool.query<R>(toConfig(text, params, options));
    return { rows: result.rows, rowCount: result.rowCount ?? 0 };
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken = false;
    // A connection the server ends mid-transaction emits 'error' on the client; the pending query rejects anyway.
    const onError = () => {
      broken = true;
    };
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const tx: SqlExecutor = {
        query: async <R extends object>(
          text: string,
          params?: readonly unknown[],
          options?: QueryOptions,
        ) => {
          const result = await client.query<R>(toConfig(text, params, options));
          return { rows: result.rows, rowCount: result.rowCount ?? 0 };
        },
      };
      const value = await fn(tx);
      await client.query('COMMIT');
      return value;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw error;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

function toConfig(
  text: string,
  params: readonly unknown[] | undefined,
  options?: QueryOptions,
): pg.QueryConfig {
  return { text, values: params as unknown[] | undefined, ...(options?.name ? { name: options.name } : {}) };
}
