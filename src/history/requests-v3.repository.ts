import { Inject, Injectable } from '@nestjs/common';
import type { RequestV3 } from '../../projections/requests/request-record-state.js';
import { expandV3Record } from '../../projections/requests/stored-record.js';
import { ApiError } from '../common/http/api-error.js';
import { DATABASE, type Database } from '../database/database.js';
import { encodeContinuation } from './continuation.js';
import { recordAnswerText } from './record-text.js';
import type { RequestsV3Query } from './requests-v3.query.js';
import { type CompiledSql, countSql, listSql } from './requests-v3.sql.js';
import { PreparedStatements } from '../database/prepared-statements.js';
import { isUndefinedTable } from '../database/undefined-table.js';

/** A v3 record as answered: `data.referrer` only on the caller's own requests, and only when asked for. */
export type RequestV3Answer = RequestV3 & {
  readonly data: RequestV3['data'] & { readonly referrer?: string | null };
};

/** The answer of `GET /requests/v3`, as an object (its JSON text is what `list` returns). */
export interface RequestsV3Page {
  readonly requests: RequestV3Answer[];
  /** Pass it back (with the same filters and sort) for the next page; null on the last page. */
  readonly continuation: string | null;
  readonly total?: number;
}

interface Row {
  id: string;
  /** PostgreSQL's text of the stored record, its currencies referenced (`stored-record.ts`). */
  record: string;
  currencies: unknown;
  api_key_id: string | null;
  referrer: string | null;
  sort_value: string;
}

const DATA_EXCEPTION_CLASS = '22';
/**
 * Statement shapes (which filters, how many values, which sort) prepared per connection. The common ones are a
 * few dozen; callers can make many more, and each prepared statement holds memory in every backend, so past this
 * many the rest run unprepared.
 */
const MAX_PREPARED_STATEMENTS = 100;

/** Reads the `requests_v3` view (the requests-v3 projection); never writes. */
@Injectable()
export class RequestsV3Repository {
  private readonly statements = new PreparedStatements('ferry_requests_v3', MAX_PREPARED_STATEMENTS);

  constructor(@Inject(DATABASE) private readonly db: Database) {}

  /**
   * One page as the JSON text of a RequestsV3Page. Records are written into it from the text PostgreSQL sends
   * (`recordAnswerText`), not parsed and serialised again: that was most of the CPU of a page of 20 records.
   */
  async list(query: RequestsV3Query): Promise<string> {
    const [rows, total] = await Promise.all([
      this.run<Row>(listSql(query)),
      query.includeTotal ? this.run<{ total: bigint }>(countSql(query)) : undefined,
    ]);
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    const continuation =
      rows.length > query.limit
        ? encodeContinuation({ value: last.sort_value, id: last.id }, query.digest)
        : null;
    // The key order of RequestsV3Page, as JSON.stringify would print it.
    return (
      `{"requests":[${page.map((row) => answerText(row, query.authenticatedFor)).join(',')}],` +
      `"continuation":${JSON.stringify(continuation)}${total ? `,"total":${Number(total[0].total)}` : ''}}`
    );
  }

  private async run<R extends object>(sql: CompiledSql): Promise<R[]> {
    try {
      const name = this.statements.nameOf(sql.text);
      return (await this.db.query<R>(sql.text, sql.params, name ? { name } : undefined)).rows;
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

function answerText(row: Row, authenticatedFor: string | null): string {
  const own = authenticatedFor !== null && row.api_key_id === authenticatedFor;
  const currencies = Array.isArray(row.currencies) ? row.currencies : [];
  if (!own) {
    const text = recordAnswerText(
      row.record,
      currencies.map((currency) => JSON.stringify(currency)),
    );
    if (text !== null) return text;
  }
  const record = expandV3Record(JSON.parse(row.record), row.currencies);
  const answer: RequestV3Answer = own
    ? { ...record, data: { ...record.data, referrer: row.referrer } }
    : record;
  return JSON.stringify(answer);
}
