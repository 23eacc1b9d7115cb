import type { PGlite } from '@electric-sql/pglite';
import { EventEmitter } from 'node:events';

interface PgLikeResult {
  rows: unknown[];
  rowCount: number;
  command?: string;
}

/**
 * A `pg`-shaped driver over one PGlite instance, for TypeORM. It calls PGlite's query API directly (no socket or
 * protocol emulation). TypeORM runs only the migrations at boot, before anything else uses the database, so its
 * BEGIN/COMMIT statements on the shared connection cannot interleave with other work.
 */
export function pgliteTypeormDriver(db: PGlite): { Pool: new () => EventEmitter } {
  class PgliteClient extends EventEmitter {
    async query(
      text: string,
      params?: unknown[],
      callback?: (error: unknown, result?: PgLikeResult) => void,
    ) {
      const run = async (): Promise<PgLikeResult> => {
        if (params && params.length > 0) {
          const result = await db.query(text, params);
          return {
            rows: result.rows,
            rowCount: result.affectedRows ?? result.rows.length,
            command: command(text),
          };
        }
        const results = await db.exec(text);
        const last = results[results.length - 1];
        return {
          rows: last?.rows ?? [],
          rowCount: last?.affectedRows ?? last?.rows.length ?? 0,
          command: command(text),
        };
      };
      try {
        const result = await run();
        callback?.(null, result);
        return result;
      } catch (error) {
        if (callback) return callback(error);
        throw error;
      }
    }
  }

  class PglitePool extends EventEmitter {
    private readonly client = new PgliteClient();

    connect(callback?: (error: unknown, client: PgliteClient, release: () => void) => void) {
      if (callback) {
        callback(null, this.client, () => undefined);
        return;
      }
      return Promise.resolve(this.client);
    }

    query(text: string, params?: unknown[], callback?: (error: unknown, result?: PgLikeResult) => void) {
      return this.client.query(text, params, callback);
    }

    /** PGlite belongs to PgliteDatabase, which closes it. */
    end(callback?: (error: unknown) => void) {
      callback?.(null);
    }
  }

  return { Pool: PglitePool };
}

function command(text: string): string {
  return text.trim().split(/\s+/, 1)[0].toUpperCase();
}
