import { Inject, Injectable } from '@nestjs/common';
import { requestsV2Projection } from '../../../projections/requests-v2/requests-v2.projection.js';
import { normalizeHex } from '../../../projections/requests-v3/requests-v3.columns.js';
import { type RequestV2, toV2Record } from '../../../projections/requests-v2/v2-record.js';
import { CLOCK, type Clock } from '../../common/clock.js';
import { ApiError } from '../../common/http/api-error.js';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/config.module.js';
import { DATABASE, type Database } from '../../database/database.js';
import { decodeContinuation, encodeContinuation, queryDigest } from '../continuation.js';
import { type ListRequestsV2QueryDto, V2_DEFAULT_LIMIT } from './requests-v2.dto.js';
import { type V2DeprecationNotice, v2DeprecationNotice } from './v2-sunset.js';
import { isUndefinedTable } from '../../database/undefined-table.js';

export interface RequestsV2Page {
  readonly requests: readonly RequestV2[];
  readonly continuation: string | null;
  readonly deprecation: V2DeprecationNotice;
}

/** `created_at` printed exactly (microseconds, UTC): the sort value a continuation carries. */
const CREATED_AT_TEXT = `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * Lists v2 records from the `requests-v2` read model: listed requests (a deposit was seen), newest first, keyset
 * paginated on `(created_at, id)` with the history's continuation (bound to the filters it was issued for). Every
 * filter is a parameter of one SQL statement.
 */
@Injectable()
export class RequestsV2Service {
  constructor(
    @Inject(DATABASE) private readonly db: Database,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'v2'>,
  ) {}

  async list(query: ListRequestsV2QueryDto): Promise<RequestsV2Page> {
    const limit = query.limit ?? V2_DEFAULT_LIMIT;
    const filters = {
      user: query.user === undefined ? undefined : normalizeHex(query.user),
      originChainId: query.originChainId,
      destinationChainId: query.destinationChainId,
      // The shared fold lists hashes lower-cased (`transactionHashes`).
      hash: query.hash?.toLowerCase(),
      referrer: query.referrer,
      startTimestamp: query.startTimestamp,
      endTimestamp: query.endTimestamp,
    };
    const digest = queryDigest({ endpoint: 'requests-v2', ...filters });
    const params: unknown[] = [];
    const param = (value: unknown, cast: string) => {
      params.push(value);
      return `$${params.length}::${cast}`;
    };
    const where = ['listed'];
    if (filters.user !== undefined) where.push(`user_address = ${param(filters.user, 'text')}`);
    if (filters.originChainId !== undefined) {
      where.push(`origin_chain_id = ${param(filters.originChainId, 'bigint')}`);
    }
    if (filters.destinationChainId !== undefined) {
      where.push(`destination_chain_id = ${param(filters.destinationChainId, 'bigint')}`);
    }
    if (filters.hash !== undefined) where.push(`tx_hashes @> ARRAY[${param(filters.hash, 'text')}]`);
    if (filters.referrer !== undefined) where.push(`referrer = ${param(filters.referrer, 'text')}`);
    if (filters.startTimestamp !== undefined) {
      where.push(`created_at >= ${param(isoOfSeconds(filters.startTimestamp), 'timestamptz')}`);
    }
    if (filters.endTimestamp !== undefined) {
      // The whole end second: records carry milliseconds.
      where.push(`created_at < ${param(isoOfSeconds(filters.endTimestamp + 1), 'timestamptz')}`);
    }
    if (query.continuation !== undefined) {
      const after = decodeContinuation(query.continuation, digest, 'createdAt');
      where.push(`(created_at, id) < (${param(after.value, 'timestamptz')}, ${param(after.id, 'text')})`);
    }
    const rows = await this.read<{ id: string; state: unknown; sort_value: string }>(
      `SELECT id, state, ${CREATED_AT_TEXT} AS sort_value FROM ${requestsV2Projection.table}
        WHERE ${where.join(' AND ')}
        ORDER BY created_at DESC, id DESC
        LIMIT ${param(limit + 1, 'integer')}`,
      params,
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const now = this.clock.now();
    return {
      requests: page.map((row) => toV2Record(requestsV2Projection.codec!.decode(row.state), now)),
      continuation:
        rows.length > limit && last
          ? encodeContinuation({ value: last.sort_value, id: last.id }, digest)
          : null,
      deprecation: v2DeprecationNotice(this.config.v2, now),
    };
  }

  private async read<R extends object>(sql: string, params: unknown[]): Promise<R[]> {
    try {
      return (await this.db.query<R>(sql, params)).rows;
    } catch (error) {
      if (isUndefinedTable(error)) {
        // The projection's first generation is still being built (a fresh database): nothing to serve yet.
        throw new ApiError('SERVICE_UNAVAILABLE', 'Request history (v2) is being built; retry shortly');
      }
      throw error;
    }
  }
}

function isoOfSeconds(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}
