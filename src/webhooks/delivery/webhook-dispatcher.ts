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
import { closeWebhookAgents, deliveryHeaders, sendWebhook } from '../webhook-sender.js';
import { ROUND_WAIT_MS } from '../webhook-lease.js';
import { WebhookSignal } from '../webhook-signal.js';
import { checkWebhookTarget, type HostResolver, hostResolver, type TargetCheck } from '../webhook-target.js';

/** A delivery claimed for one attempt. */
interface Claimed {
  id: string;
  webhook_id: string;
  api_key_id: string;
  body: string;
  attempts: number;
}

/** A claimed delivery and what its attempt came to. */
interface Result {
  readonly delivery: Claimed;
  readonly outcome: AttemptOutcome;
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
  /** Claimed deliveries not yet attempted to the end, across rounds: never more than `batchSize`. */
  private inFlight = 0;
  /** Outcomes of attempts that outlasted their round, for the next round to record. */
  private readonly late: Result[] = [];
  /** Rounds whose slowest attempts are still running (awaited at shutdown). */
  private readonly unfinished = new Set<Promise<unknown>>();
  /** DNS for the endpoints, bounded by `webhooks.resolveTimeoutMs` (part of what the lease must outlast). */
  private readonly resolve: HostResolver;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DATABASE) private readonly db: Database,
    private readonly apiKeys: ApiKeysService,
    private readonly signal: WebhookSignal,
  ) {
    this.resolve = hostResolver({ timeoutMs: config.webhooks.resolveTimeoutMs });
  }

  onApplicationBootstrap(): void {
    if (this.config.webhooks.run) this.loop = this.follow();
  }

  /**
   * Lets the round in flight finish and waits for the attempts still running from earlier rounds (each delivery
   * recorded, its lease released), then closes pooled connections.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.abort.abort();
    await this.loop;
    await Promise.all(this.unfinished);
    try {
      await this.record(this.late.splice(0));
    } catch (error) {
      this.logger.error({ msg: 'recording the last attempts failed', err: String(error) });
    }
    closeWebhookAgents();
  }

  /**
   * One round: claims due deliveries (up to `batchSize` in flight in all), attempts them concurrently, then records
   * every outcome with two set-based statements (one transaction), so the database work per round does not grow with
   * its size. The round waits at most `ROUND_WAIT_MS` for its attempts: one receiver that hangs until the timeout
   * must not hold everyone else's deliveries back for as long. Attempts still running then finish on their own and
   * are recorded by a later round (woken when they end). Returns how many deliveries it claimed.
   */
  async dispatchOnce(batchSize = this.config.webhooks.batchSize): Promise<number> {
    const room = batchSize - this.inFlight;
    const claimed = room > 0 ? await this.claim(room) : [];
    const finished: Result[] = [];
    let waiting = true;
    const endpoints = new Map<string, Promise<Endpoint | string>>();
    this.inFlight += claimed.length;
    const all = Promise.all(
      claimed.map(async (delivery) => {
        const result = await this.deliver(delivery, endpoints);
        this.inFlight -= 1;
        if (result === null) return;
        if (waiting) finished.push(result);
        else {
          this.late.push(result);
          this.signal.notify();
        }
      }),
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    const roundOver = await Promise.race([
      all.then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ROUND_WAIT_MS))),
    ]);
    clearTimeout(timer);
    waiting = false;
    if (!roundOver) {
      this.unfinished.add(all);
      void all.finally(() => this.unfinished.delete(all));
    }
    await this.record([...this.late.splice(0), ...finished]);
    return claimed.length;
  }

  private follow(): Promise<void> {
    const signal = this.abort.signal;
    const { batchSize } = this.config.webhooks;
    return followUntilAborted(
      signal,
      async () => {
        const room = batchSize - this.inFlight;
        return (await this.dispatchOnce()) >= room && room > 0;
      },
      () => this.signal.wait(this.config.webhooks.pollIntervalMs, signal),
      (error) => this.logger.error({ msg: 'dispatch round failed', err: String(error) }),
    );
  }

  /**
   * One claimed delivery: its endpoint (looked up once per key and round), then the attempt; null when there is
   * nothing to record (the endpoint is gone, or looking it up failed: the lease runs out and it is tried again).
   * Never rejects.
   */
  private async deliver(
    delivery: Claimed,
    endpoints: Map<string, Promise<Endpoint | string>>,
  ): Promise<Result | null> {
    try {
      if (!endpoints.has(delivery.api_key_id)) {
        endpoints.set(delivery.api_key_id, this.endpoint(delivery.api_key_id));
      }
      const endpoint = await endpoints.get(delivery.api_key_id)!;
      if (typeof endpoint === 'string') {
        await this.abandon(delivery, endpoint);
        return null;
      }
      return { delivery, outcome: await this.attempt(delivery, endpoint) };
    } catch (error) {
      this.logger.error({ msg: 'delivery attempt failed', deliveryId: delivery.id, err: String(error) });
      return null;
    }
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

  /**
   * The key's endpoint for this round, with its target checked (on every round, not only when configured: DNS may
   * have changed since) — or why there is none to deliver to.
   */
  private async endpoint(apiKeyId: string): Promise<Endpoint | string> {
    const key = await this.apiKeys.get(apiKeyId);
    if (!key || key.revokedAt) return 'API key revoked';
    if (!key.webhookUrl) return 'webhook endpoint removed';
    if (key.webhookDisabledAt)
      return `webhook endpoint disabled: ${key.webhookDisabledReason ?? 'by an operator'}`;
    const target = await checkWebhookTarget(
      key.webhookUrl,
      { allowInsecureLocal: this.config.webhooks.allowInsecureLocalTargets },
      this.resolve,
    );
    return {
      apiKeyId,
      target,
      headers: key.webhookHeaders,
      apiKey: await this.apiKeys.reveal(apiKeyId),
    };
  }

  private async attempt(delivery: Claimed, endpoint: Endpoint): Promise<AttemptOutcome> {
    const { target } = endpoint;
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
    return sendWebhook({
      url: target.url,
      body: delivery.body,
      headers,
      timeoutMs: this.config.webhooks.timeoutMs,
      connectTo: target.addresses[0],
    });
  }

  /**
   * Logs each attempt and moves each delivery on: delivered, retried later, failed, or (410) its endpoint disabled.
   * Attempts are numbered across redeliveries (which reset the retry budget, not the log); one is in flight per
   * delivery, so the numbering cannot race.
   */
  private async record(results: readonly Result[]): Promise<void> {
    if (results.length === 0) return;
    const rows = results.map(({ delivery, outcome }) => {
      const retryIn =
        outcome.ok || outcome.gone
          ? null
          : retryDelayMs(delivery.attempts, this.config.webhooks.retry, Math.random, outcome.retryAfterMs);
      return {
        delivery,
        outcome,
        retryIn,
        state: outcome.ok ? 'delivered' : retryIn === null ? 'failed' : 'pending',
      };
    });
    // Disabled before the deliveries are marked failed, so nothing sees the failure with the endpoint still enabled.
    const gone = [...new Set(rows.filter((row) => row.outcome.gone).map((row) => row.delivery.api_key_id))];
    for (const apiKeyId of gone) {
      await this.apiKeys.disableWebhook(apiKeyId, 'the endpoint answered 410 Gone', new Date());
    }
    const column = <T>(pick: (row: (typeof rows)[number]) => T) => rows.map(pick);
    await this.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at, status_code, latency_ms, error, response_excerpt)
         SELECT u.id,
                coalesce((SELECT max(a.attempt) FROM webhook_attempts a WHERE a.delivery_id = u.id), 0) + 1,
                clock_timestamp() - u.latency_ms * interval '1 millisecond',
                u.status_code, u.latency_ms, u.error, u.excerpt
           FROM unnest($1::uuid[], $2::integer[], $3::integer[], $4::text[], $5::text[])
             AS u(id, status_code, latency_ms, error, excerpt)`,
        [
          column((row) => row.delivery.id),
          column((row) => row.outcome.statusCode),
          column((row) => row.outcome.latencyMs),
          column((row) => storableText(row.outcome.error)),
          column((row) => storableText(row.outcome.responseExcerpt)),
        ],
      );
      await tx.query(
        `UPDATE webhook_deliveries w
            SET state = u.state, leased_until = NULL, last_status_code = u.status_code, last_error = u.error,
                delivered_at = CASE WHEN u.state = 'delivered' THEN clock_timestamp() ELSE w.delivered_at END,
                next_attempt_at = CASE WHEN u.state = 'pending'
                                       THEN clock_timestamp() + u.retry_ms * interval '1 millisecond'
                                       ELSE w.next_attempt_at END
           FROM unnest($1::uuid[], $2::text[], $3::integer[], $4::text[], $5::bigint[])
             AS u(id, state, status_code, error, retry_ms)
          WHERE w.id = u.id`,
        [
          column((row) => row.delivery.id),
          column((row) => row.state),
          column((row) => row.outcome.statusCode),
          column((row) => storableText(row.outcome.error)),
          column((row) => row.retryIn ?? 0),
        ],
      );
    });
    for (const apiKeyId of gone) {
      await this.failPending(apiKeyId, 'webhook endpoint disabled: it answered 410 Gone');
    }
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

/**
 * Receiver text (response excerpt, error) as PostgreSQL `text` can hold it: a NUL is the one character it refuses,
 * and one refused value would fail the whole round's record, so every delivery of the round would be sent again at
 * each lease expiry, forever. NUL becomes U+FFFD, as invalid UTF-8 already does.
 */
function storableText(text: string | null): string | null {
  return text === null ? null : text.replaceAll('\u0000', '\ufffd');
}

interface Endpoint {
  readonly apiKeyId: string;
  readonly target: TargetCheck;
  readonly headers: Readonly<Record<string, string>>;
  readonly apiKey: string;
}
