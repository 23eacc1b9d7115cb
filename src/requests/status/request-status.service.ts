import { Inject, Injectable } from '@nestjs/common';
import {
  evolveRequestStatus,
  requestStatusProjection,
  type RequestStatusState,
} from '../../../projections/request-status/request-status.projection.js';
import { type RequestStatusBody, toStatusBody } from '../../../projections/request-status/status-body.js';
import { ApiError } from '../../common/http/api-error.js';
import { DATABASE, type Database } from '../../database/database.js';
import { EVENT_STORE, type EventStore } from '../../event-store/event-store.js';
import { requestStreamId } from '../domain/request.aggregate.js';
import { isUndefinedTable } from '../../database/undefined-table.js';

/**
 * Answers the status endpoint from the `request-status` read model. Read-your-writes: right after a quote the
 * projection may not have its row yet, so a missing row falls back to folding the request's stream with the same
 * pure fold; only when the stream does not exist either is the request unknown.
 */
@Injectable()
export class RequestStatusService {
  constructor(
    @Inject(DATABASE) private readonly db: Database,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  async get(requestId: string): Promise<RequestStatusBody> {
    const id = requestId.toLowerCase();
    const row = await this.readRow(id);
    if (row) return row;
    const events = await this.store.readStream(requestStreamId(id));
    const state = events.reduce<RequestStatusState | null>(evolveRequestStatus, null);
    if (!state) throw new ApiError('NOT_FOUND', `No request ${requestId}`);
    return toStatusBody(state);
  }

  private async readRow(id: string): Promise<RequestStatusBody | null> {
    try {
      const { rows } = await this.db.query<{ body: RequestStatusBody }>(
        `SELECT body FROM ${requestStatusProjection.table} WHERE id = $1`,
        [id],
      );
      return rows[0]?.body ?? null;
    } catch (error) {
      // The read model's first generation is still being built (a fresh database): the stream answers meanwhile.
      if (isUndefinedTable(error)) return null;
      throw error;
    }
  }
}
