import { Inject, Injectable } from '@nestjs/common';
import type { RequestV3 } from '../../projections/requests/request-record.js';
import { expandV3Record } from '../../projections/requests/stored-record.js';
import { ApiError } from '../common/http/api-error.js';
import { DATABASE, type Database } from '../database/database.js';
import { encodeContinuation } from './continuation.js';
import type { RequestsV3Query } from './requests-v3.query.js';
import { type CompiledSql, countSql, listSql } from './requests-v3.sql.js';
import { isUndefinedTable } from '../database/undefined-table.js';

/** A v3 record as answered: `data.referrer` only on the caller's own requests, and only when asked for. */
export type RequestV3Answer = RequestV3 & {
  readonly data: RequestV3['data'] & { readonly referrer?: string | null };
};

/** The answer of `GET /requests/v3`. */
export interface RequestsV3Page {
  readonly requests: RequestV3Answer[];
  /** Pass it back (with the same filters and sort) for the next page; null on the last page. */
  readonly continuation: string | null;
  readonly total?: number;
}

interface Row {
  id: string;
  /** Stored with its currencies referenced (`stored-record.ts`): expanded before it is answered. */
  record: RequestV3;
  currencies: unknown;
  api_key_id: string | null;
  referrer: string | null;
  sort_value: string;
}

const DATA_EXCEPTION_CLASS = '22';

/** Reads the `requests_v3` view (the requests-v3 projection); never writes. */
@Injectable()
export class RequestsV3Repository {
  constructor(@Inject(DATABASE) private readonly db: Database) {}

  async list(query: RequestsV3Query): Promise<RequestsV3Page> {
    const [rows, total] = await Promise.all([
      this.run<Row>(listSql(query)),
      query.includeTotal ? this.run<{ total: bigint }>(countSql(query)) : undefined,
    ]);
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      requests: page.map((row) => answer(row, query.authenticatedFor)),
      continuation:
        rows.length > query.limit
          ? encodeContinuation({ value: last.sort_value, id: last.id }, query.digest)
          : null,
      ...(total ? { total: Number(total[0].total) } : {}),
    };
  }

  private async run<R extends object>(sql: CompiledSql): Promise<R[]> {
    try {
      return (await this.db.query<R>(sql.text, sql.params)).rows;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (isUndefinedTable(error)) {
        // The projection's first generation is still being built (a fresh database): nothing to serve yet.
        throw new ApiError('SERVICE_UNAVAILABLE', 'Request history is being built; retry shortly');
      }
      if (typeof code === 'string' && code.startsWith(DATA_EXCEPTION_CLASS)) {
        // Only a parameter can cause a data exception here; validation should have caught it first.
        throw new ApiError('INVALID_INPUT', 'Invalid input: a parameter is out of range');
      }
      throw error;
    }
  }
}

function answer(row: Row, authenticatedFor: string | null): RequestV3Answer {
  const record = expandV3Record(row.record, row.currencies);
  if (authenticatedFor === null || row.api_key_id !== authenticatedFor) return record;
  return { ...record, data: { ...record.data, referrer: row.referrer } };
}
