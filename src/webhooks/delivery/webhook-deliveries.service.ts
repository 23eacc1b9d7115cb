import { Inject, Injectable } from '@nestjs/common';
import { ApiError } from '../../common/http/api-error.js';
import { DATABASE, type Database } from '../../database/database.js';
import { WebhookSignal } from '../webhook-signal.js';

export type DeliveryState = 'pending' | 'delivered' | 'failed';

export interface DeliverySummary {
  readonly id: string;
  readonly webhookId: string;
  readonly apiKeyId: string;
  readonly requestId: string;
  readonly status: string;
  readonly state: DeliveryState;
  readonly attempts: number;
  readonly createdAt: Date;
  readonly nextAttemptAt: Date;
  readonly lastAttemptAt: Date | null;
  readonly deliveredAt: Date | null;
  readonly lastStatusCode: number | null;
  readonly lastError: string | null;
}

export interface DeliveryAttempt {
  readonly attempt: number;
  readonly attemptedAt: Date;
  readonly statusCode: number | null;
  readonly latencyMs: number;
  readonly error: string | null;
  /** At most 1 KB of the receiver's answer. */
  readonly responseExcerpt: string | null;
}

export interface DeliveryDetails extends DeliverySummary {
  readonly body: string;
  readonly attemptLog: readonly DeliveryAttempt[];
}

export interface ListDeliveriesQuery {
  readonly state?: DeliveryState;
  readonly apiKeyId?: string;
  readonly requestId?: string;
  /** Only deliveries created at or after this time. */
  readonly since?: Date;
  readonly limit?: number;
}

interface DeliveryRow {
  id: string;
  webhook_id: string;
  api_key_id: string;
  request_id: string;
  status: string;
  state: DeliveryState;
  attempts: number;
  created_at: Date;
  next_attempt_at: Date;
  last_attempt_at: Date | null;
  delivered_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
}

const SUMMARY = `id, webhook_id, api_key_id, request_id, status, state, attempts, created_at, next_attempt_at,
  last_attempt_at, delivered_at, last_status_code, last_error`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The delivery log, for operators: list and inspect deliveries, and send failed ones again. */
@Injectable()
export class WebhookDeliveriesService {
  constructor(
    @Inject(DATABASE) private readonly db: Database,
    private readonly signal: WebhookSignal,
  ) {}

  /** Newest first. */
  async list(query: ListDeliveriesQuery = {}): Promise<DeliverySummary[]> {
    if (query.apiKeyId !== undefined && !UUID.test(query.apiKeyId)) {
      throw new ApiError('INVALID_INPUT', 'apiKeyId must be an API key id (UUID)');
    }
    const { rows } = await this.db.query<DeliveryRow>(
      `SELECT ${SUMMARY} FROM webhook_deliveries
        WHERE ($1::text IS NULL OR state = $1) AND ($2::uuid IS NULL OR api_key_id = $2)
          AND ($3::text IS NULL OR request_id = $3) AND ($4::timestamptz IS NULL OR created_at >= $4)
        ORDER BY created_at DESC, id DESC LIMIT $5`,
      [
        query.state ?? null,
        query.apiKeyId ?? null,
        query.requestId?.toLowerCase() ?? null,
        query.since?.toISOString() ?? null,
        Math.min(Math.max(query.limit ?? 50, 1), 1000),
      ],
    );
    return rows.map(toSummary);
  }

  /** One delivery with its body and every attempt; 404 when unknown. */
  async get(id: string): Promise<DeliveryDetails> {
    const summary = await this.find(id);
    const { rows: body } = await this.db.query<{ body: string }>(
      'SELECT body FROM webhook_deliveries WHERE id = $1',
      [summary.id],
    );
    const { rows } = await this.db.query<{
      attempt: number;
      attempted_at: Date;
      status_code: number | null;
      latency_ms: number;
      error: string | null;
      response_excerpt: string | null;
    }>('SELECT * FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempt', [summary.id]);
    return {
      ...summary,
      body: body[0].body,
      attemptLog: rows.map((row) => ({
        attempt: row.attempt,
        attemptedAt: row.attempted_at,
        statusCode: row.status_code,
        latencyMs: row.latency_ms,
        error: row.error,
        responseExcerpt: row.response_excerpt,
      })),
    };
  }

  /** Queues a failed (or delivered) delivery again now, with a fresh retry budget; the same `X-Webhook-Id`. */
  async redeliver(id: string): Promise<DeliverySummary> {
    const current = await this.find(id);
    if (current.state === 'pending') {
      throw new ApiError(
        'CONFLICT',
        `Delivery ${current.id} is still pending; it will be attempted again by itself`,
      );
    }
    const { rows } = await this.db.query<DeliveryRow>(
      `UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = now(), leased_until = NULL, attempts = 0
        WHERE id = $1 RETURNING ${SUMMARY}`,
      [current.id],
    );
    this.signal.notify();
    return toSummary(rows[0]);
  }

  /** Queues every failed delivery created since `since` (optionally of one key) again; returns how many. */
  async redeliverFailed(since: Date, apiKeyId?: string): Promise<number> {
    if (apiKeyId !== undefined && !UUID.test(apiKeyId)) {
      throw new ApiError('INVALID_INPUT', 'apiKeyId must be an API key id (UUID)');
    }
    const result = await this.db.query(
      `UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = now(), leased_until = NULL, attempts = 0
        WHERE state = 'failed' AND created_at >= $1 AND ($2::uuid IS NULL OR api_key_id = $2)`,
      [since.toISOString(), apiKeyId ?? null],
    );
    if (result.rowCount > 0) this.signal.notify();
    return result.rowCount;
  }

  private async find(id: string): Promise<DeliverySummary> {
    const { rows } = UUID.test(id)
      ? await this.db.query<DeliveryRow>(`SELECT ${SUMMARY} FROM webhook_deliveries WHERE id = $1`, [id])
      : id.startsWith('whk_')
        ? await this.db.query<DeliveryRow>(
            `SELECT ${SUMMARY} FROM webhook_deliveries WHERE webhook_id = $1`,
            [id],
          )
        : { rows: [] };
    if (!rows[0]) throw new ApiError('NOT_FOUND', `No webhook delivery ${id}`);
    return toSummary(rows[0]);
  }
}

function toSummary(row: DeliveryRow): DeliverySummary {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    apiKeyId: row.api_key_id,
    requestId: row.request_id,
    status: row.status,
    state: row.state,
    attempts: row.attempts,
    createdAt: row.created_at,
    nextAttemptAt: row.next_attempt_at,
    lastAttemptAt: row.last_attempt_at,
    deliveredAt: row.delivered_at,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
  };
}
