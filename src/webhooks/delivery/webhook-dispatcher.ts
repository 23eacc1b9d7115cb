import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { ApiKeysService } from '../../api-keys/api-keys.service.js';
import { followUntilAborted } from '../../common/follow-loop.js';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/config.module.js';
import { DATABASE, type Database } from '../../database/database.js';
import { retryDelayMs } from '../retry-schedule.js';
import { deliveryHeaders, type SendWebhookResult, sendWebhook } from '../webhook-sender.js';
import { WebhookSignal } from '../webhook-signal.js';
import { checkWebhookTarget } from '../webhook-target.js';

/** A delivery claimed for one attempt. */
interface Claimed {
  id: string;
  webhook_id: string;
  api_key_id: string;
  body: string;
  attempts: number;
}

/** What one attempt came to, as recorded in the delivery log. */
export interface AttemptOutcome {
  readonly statusCode: number | null;
  readonly latencyMs: number;
  readonly error: string | null;
  readonly responseExcerpt: string | null;
  readonly ok: boolean;
  readonly gone: boolean;
  readonly retryAfterMs: number | null;
}

/**
 * Delivers queued webhooks. Each round claims due deliveries with `FOR UPDATE SKIP LOCKED` (any number of
 * dispatchers, in any number of processes), only the oldest undelivered one of each (API key, request) pair — so a
 * later status never overtakes an earlier one — and leases them while in flight: a dispatcher that dies mid-delivery
 * leaves a lease that expires, and the delivery is attempted again (at least once, never lost).
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('WebhookDispatcher');
  private readonly abort = new AbortController();
  private loop: Promise<void> | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DATABASE) private readonly db: Database,
    private readonly apiKeys: ApiKeysService,
    private readonly signal: WebhookSignal,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.webhooks.run) this.loop = this.follow();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.abort.abort();
    await this.loop;
  }

  /** One round: claims up to `batchSize` due deliveries, attempts them concurrently, records each outcome. */
  async dispatchOnce(batchSize = this.config.webhooks.batchSize): Promise<number> {
    const claimed = await this.claim(batchSize);
    if (claimed.length === 0) return 0;
    const keys = new Map<string, Promise<Endpoint | string>>();
    await Promise.all(
      claimed.map(async (delivery) => {
        if (!keys.has(delivery.api_key_id)) keys.set(delivery.api_key_id, this.endpoint(delivery.api_key_id));
        const endpoint = await keys.get(delivery.api_key_id)!;
        if (typeof endpoint === 'string') return this.abandon(delivery, endpoint);
        const outcome = await this.attempt(delivery, endpoint);
        await this.record(delivery, outcome);
      }),
    );
    return claimed.length;
  }

  private follow(): Promise<void> {
    const signal = this.abort.signal;
    return followUntilAborted(
      signal,
      async () => (await this.dispatchOnce()) >= this.config.webhooks.batchSize,
      () => this.signal.wait(this.config.webhooks.pollIntervalMs, signal),
      (error) => this.logger.error({ msg: 'dispatch round failed', err: String(error) }),
    );
  }

  private async claim(limit: number): Promise<Claimed[]> {
    const { rows } = await this.db.query<Claimed>(
      `WITH due AS (
         SELECT d.id FROM webhook_deliveries d
          WHERE d.state = 'pending' AND d.next_attempt_at <= now()
            AND (d.leased_until IS NULL OR d.leased_until <= now())
            AND NOT EXISTS (
              SELECT 1 FROM webhook_deliveries e
               WHERE e.api_key_id = d.api_key_id AND e.request_id = d.request_id
                 AND e.state = 'pending' AND e.sequence < d.sequence)
          ORDER BY d.next_attempt_at
          LIMIT $1
          FOR UPDATE SKIP LOCKED)
       UPDATE webhook_deliveries w
          SET leased_until = now() + $2 * interval '1 millisecond', attempts = w.attempts + 1,
              first_attempt_at = coalesce(w.first_attempt_at, clock_timestamp()), last_attempt_at = clock_timestamp()
         FROM due WHERE w.id = due.id
       RETURNING w.id, w.webhook_id, w.api_key_id, w.body, w.attempts`,
      [limit, this.config.webhooks.leaseMs],
    );
    return rows;
  }

  private async endpoint(apiKeyId: string): Promise<Endpoint | string> {
    const key = await this.apiKeys.get(apiKeyId);
    if (!key || key.revokedAt) return 'API key revoked';
    if (!key.webhookUrl) return 'webhook endpoint removed';
    if (key.webhookDisabledAt)
      return `webhook endpoint disabled: ${key.webhookDisabledReason ?? 'by an operator'}`;
    return {
      apiKeyId,
      url: key.webhookUrl,
      headers: key.webhookHeaders,
      apiKey: await this.apiKeys.reveal(apiKeyId),
    };
  }

  private async attempt(delivery: Claimed, endpoint: Endpoint): Promise<AttemptOutcome> {
    // Checked on every attempt, not only when configured: DNS may have changed since.
    const target = await checkWebhookTarget(endpoint.url, {
      allowInsecureLocal: this.config.webhooks.allowInsecureLocalTargets,
    });
    if (!target.ok) {
      return {
        ok: false,
        gone: false,
        statusCode: null,
        latencyMs: 0,
        error: `target refused: ${target.reason}`,
        responseExcerpt: null,
        retryAfterMs: null,
      };
    }
    const headers = deliveryHeaders({
      body: delivery.body,
      apiKey: endpoint.apiKey,
      webhookId: delivery.webhook_id,
      timestampSeconds: Math.floor(Date.now() / 1000),
      customHeaders: endpoint.headers,
    });
    const result: SendWebhookResult = await sendWebhook({
      url: target.url,
      body: delivery.body,
      headers,
      timeoutMs: this.config.webhooks.timeoutMs,
      connectTo: target.addresses[0],
    });
    return result;
  }

  /** Logs the attempt and moves the delivery on: delivered, retried later, failed, or (410) its endpoint disabled. */
  private async record(delivery: Claimed, outcome: AttemptOutcome): Promise<void> {
    const retryIn =
      outcome.ok || outcome.gone
        ? null
        : retryDelayMs(delivery.attempts, this.config.webhooks.retry, Math.random, outcome.retryAfterMs);
    const state = outcome.ok ? 'delivered' : retryIn === null ? 'failed' : 'pending';
    // Disabled before the delivery is marked failed, so nothing can see the failure with the endpoint still enabled.
    if (outcome.gone)
      await this.apiKeys.disableWebhook(delivery.api_key_id, 'the endpoint answered 410 Gone', new Date());
    await this.db.transaction(async (tx) => {
      await tx.query(
        // Numbered across redeliveries (which reset the retry budget, not the log): one in flight per delivery.
        `INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at, status_code, latency_ms, error, response_excerpt)
         SELECT $1, coalesce(max(attempt), 0) + 1, clock_timestamp() - $3 * interval '1 millisecond', $2, $3, $4, $5
           FROM webhook_attempts WHERE delivery_id = $1`,
        [delivery.id, outcome.statusCode, outcome.latencyMs, outcome.error, outcome.responseExcerpt],
      );
      await tx.query(
        `UPDATE webhook_deliveries
            SET state = $2, leased_until = NULL, last_status_code = $3, last_error = $4,
                delivered_at = CASE WHEN $2 = 'delivered' THEN clock_timestamp() ELSE delivered_at END,
                next_attempt_at = CASE WHEN $2 = 'pending' THEN clock_timestamp() + $5 * interval '1 millisecond'
                                       ELSE next_attempt_at END
          WHERE id = $1`,
        [delivery.id, state, outcome.statusCode, outcome.error, retryIn ?? 0],
      );
    });
    if (outcome.gone)
      await this.failPending(delivery.api_key_id, 'webhook endpoint disabled: it answered 410 Gone');
  }

  /** A delivery whose endpoint is gone is failed without a request (an operator can redeliver it once fixed). */
  private async abandon(delivery: Claimed, reason: string): Promise<void> {
    await this.db.query(
      `UPDATE webhook_deliveries SET state = 'failed', leased_until = NULL, last_error = $2,
              attempts = attempts - 1 WHERE id = $1`,
      [delivery.id, reason],
    );
  }

  private async failPending(apiKeyId: string, reason: string): Promise<void> {
    await this.db.query(
      `UPDATE webhook_deliveries SET state = 'failed', last_error = $2
        WHERE api_key_id = $1 AND state = 'pending' AND (leased_until IS NULL OR leased_until <= now())`,
      [apiKeyId, reason],
    );
  }
}

interface Endpoint {
  readonly apiKeyId: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly apiKey: string;
}
