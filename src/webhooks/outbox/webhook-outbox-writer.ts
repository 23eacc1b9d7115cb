import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { ApiKeysService } from '../../api-keys/api-keys.service.js';
import { followUntilAborted } from '../../common/follow-loop.js';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/config.module.js';
import { DATABASE, type Database, type SqlExecutor } from '../../database/database.js';
import { EVENT_STORE, type EventStore, type RecordedEvent } from '../../event-store/event-store.js';
import { processCheckpointedBatch } from '../../../projections/runner/checkpointed-batch.js';
import { buildStatusPayload, serializePayload } from '../webhook-payload.js';
import { WebhookSignal } from '../webhook-signal.js';
import { statusChanges } from './status-changes.js';
import type { RequestQuotedData } from '../../requests/domain/request-events.js';
import { RecentEntries } from '../../common/recent-entries.js';

/** Requests whose API key the writer remembers: a few minutes of a busy instance's requests, a few MB at most. */
const REQUEST_KEYS_KEPT = 50_000;

/** The outbox writer's checkpoint row in `projection_checkpoints`. */
export const OUTBOX_CONSUMER = 'webhook-outbox';

export interface OutboxRow {
  readonly id: string;
  readonly webhookId: string;
  readonly eventId: string;
  readonly apiKeyId: string;
  readonly requestId: string;
  readonly sequence: bigint;
  readonly status: string;
  readonly body: string;
  readonly eventCreatedAt: Date;
}

/** `X-Webhook-Id`: derived from the event and the key, so it is the same on every attempt and every rewrite. */
export const webhookIdOf = (eventId: string, apiKeyId: string): string =>
  `whk_${createHash('sha256').update(`${eventId}\u0000${apiKeyId}`).digest('hex').slice(0, 32)}`;

/**
 * Turns request status changes into outbox rows, one per (event, API key with an endpoint), as a checkpointed
 * consumer of the log: rows and checkpoint are written in one transaction, so a status change is queued exactly once
 * even across crashes and with several instances. The body is serialised here, once.
 */
@Injectable()
export class WebhookOutboxWriter implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('WebhookOutbox');
  private readonly abort = new AbortController();
  private loop: Promise<void> | null = null;
  /** The API key (or null) of requests seen lately, by stream: the most recent `REQUEST_KEYS_KEPT`. */
  private readonly requestKeys = new RecentEntries<string, string | null>(REQUEST_KEYS_KEPT);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DATABASE) private readonly db: Database,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly apiKeys: ApiKeysService,
    private readonly signal: WebhookSignal,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.ensureCheckpoint();
    if (this.config.webhooks.run) this.loop = this.follow();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.abort.abort();
    await this.loop;
  }

  /**
   * The first start begins at the head of the log: webhooks announce what happens from the moment they are switched
   * on, not the history before.
   */
  async ensureCheckpoint(): Promise<void> {
    const head = await this.store.headPosition();
    await this.db.query(
      `INSERT INTO projection_checkpoints (name, generation, commit_position, prepare_position)
       VALUES ($1, 1, $2, $3) ON CONFLICT (name, generation) DO NOTHING`,
      [OUTBOX_CONSUMER, head.commit, head.prepare],
    );
  }

  /** One batch of the log: the rows it queued (0 when caught up or another instance holds the checkpoint). */
  async writeBatch(): Promise<number> {
    let queued = 0;
    const result = await processCheckpointedBatch(
      this.db,
      this.store,
      { name: OUTBOX_CONSUMER, generation: 1, batchSize: this.config.webhooks.batchSize * 5 },
      async (tx, _events, rows: OutboxRow[]) => {
        queued = await insertOutboxRows(tx, rows);
      },
      (events) => this.rowsFor(events),
    );
    if (queued > 0) this.signal.notify();
    return result.processed;
  }

  private follow(): Promise<void> {
    const signal = this.abort.signal;
    return followUntilAborted(
      signal,
      async () => (await this.writeBatch()) > 0,
      () => this.store.waitForAppend(this.config.webhooks.pollIntervalMs, signal),
      (error) => this.logger.error({ msg: 'outbox batch failed', err: String(error) }),
    );
  }

  /**
   * Reads each touched request's stream once (up to the batch's last event of it) and builds the rows to queue. A
   * request whose API key has no endpoint (or that has no key: anonymous quotes) is not read at all: its key is in
   * its first event, which the batch holds or `requestKeys` remembers (a request's key never changes).
   */
  private async rowsFor(events: readonly RecordedEvent[]): Promise<OutboxRow[]> {
    const inBatch = new Set<string>();
    const lastRevision = new Map<string, bigint>();
    for (const event of events) {
      if (!event.streamId.startsWith('request-')) continue;
      inBatch.add(event.id);
      lastRevision.set(event.streamId, event.revision);
      if (event.type === 'RequestQuoted') {
        this.requestKeys.set(event.streamId, (event.data as RequestQuotedData).apiKeyId);
      }
    }
    const endpoints = new Map<string, boolean>();
    const hasEndpoint = async (apiKeyId: string) => {
      if (!endpoints.has(apiKeyId)) {
        const key = await this.apiKeys.get(apiKeyId);
        endpoints.set(apiKeyId, !!key && !!key.webhookUrl && !key.webhookDisabledAt && !key.revokedAt);
      }
      return endpoints.get(apiKeyId)!;
    };
    const rows: OutboxRow[] = [];
    for (const [streamId, revision] of lastRevision) {
      const known = this.requestKeys.get(streamId);
      if (known === null || (known !== undefined && !(await hasEndpoint(known)))) continue;
      const stream = await this.store.readStream(streamId, { maxCount: Number(revision) + 1 });
      for (const change of statusChanges(stream, (event) => inBatch.has(event.id))) {
        const apiKeyId = change.record.apiKeyId;
        if (!apiKeyId || !(await hasEndpoint(apiKeyId))) continue;
        const payload = buildStatusPayload(change.record, {
          eventTimestampMs: change.event.createdAt.getTime(),
          failureDetails: change.failureDetails,
        });
        rows.push({
          id: randomUUID(),
          webhookId: webhookIdOf(change.event.id, apiKeyId),
          eventId: change.event.id,
          apiKeyId,
          requestId: change.record.v3.id,
          sequence: change.event.revision,
          status: change.record.v3.status,
          body: serializePayload(payload),
          eventCreatedAt: change.event.createdAt,
        });
      }
      if (stream[0]?.type === 'RequestQuoted') {
        this.requestKeys.set(streamId, (stream[0].data as RequestQuotedData).apiKeyId);
      }
    }
    return rows;
  }
}

/** One set-based insert; a row already queued (same event and key) is left as it is. */
export async function insertOutboxRows(sql: SqlExecutor, rows: readonly OutboxRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const result = await sql.query(
    `INSERT INTO webhook_deliveries
       (id, webhook_id, event_id, api_key_id, request_id, sequence, status, body, event_created_at, next_attempt_at)
     SELECT u.id, u.webhook_id, u.event_id, u.api_key_id, u.request_id, u.sequence, u.status, u.body, u.created_at, now()
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::uuid[], $5::text[], $6::bigint[], $7::text[], $8::text[],
                   $9::timestamptz[])
         AS u(id, webhook_id, event_id, api_key_id, request_id, sequence, status, body, created_at)
     ON CONFLICT (event_id, api_key_id) DO NOTHING`,
    [
      rows.map((row) => row.id),
      rows.map((row) => row.webhookId),
      rows.map((row) => row.eventId),
      rows.map((row) => row.apiKeyId),
      rows.map((row) => row.requestId),
      rows.map((row) => row.sequence),
      rows.map((row) => row.status),
      rows.map((row) => row.body),
      rows.map((row) => row.eventCreatedAt.toISOString()),
    ],
  );
  return result.rowCount;
}
