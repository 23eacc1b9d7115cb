import { randomBytes } from 'node:crypto';
import { ApiKeysService } from '../../../src/api-keys/api-keys.service.js';
import type { AppConfig } from '../../../src/config/app-config.js';
import type { EventStore } from '../../../src/event-store/event-store.js';
import { PostgresEventStore } from '../../../src/event-store/postgres/postgres-event-store.js';
import { sampleLifecycle, sampleQuote } from '../../../src/requests/domain/sample-requests.js';
import { WebhookOutboxWriter } from '../../../src/webhooks/outbox/webhook-outbox-writer.js';
import { WebhookSignal } from '../../../src/webhooks/webhook-signal.js';
import { type MigratedDatabase, migratedDatabase, waitForReadable } from '../../support/postgres.js';
import { recordedEvents } from '../../support/request-events.js';

/**
 * The outbox writer reads a request's stream only when its API key has an endpoint to deliver to. Anonymous quotes and
 * keys without a webhook (most requests) cost it no read: their key is in the request's first event, which the batch
 * holds or the writer remembers.
 */
describe('the webhook outbox writer reads only the requests it may deliver for', () => {
  let database: MigratedDatabase;

  beforeAll(async () => {
    database = await migratedDatabase('postgres');
  });
  afterAll(async () => {
    await database?.close();
  });

  it('queues the hooked request every status change, and reads no stream of the others', async () => {
    const { db } = database;
    const store = new PostgresEventStore(db);
    const apiKeys = new ApiKeysService(db, {
      apiKeys: {
        encryptionKey: randomBytes(32),
        defaultRateLimitPerMinute: 60,
        anonymousRateLimitPerMinute: 0,
      },
    });
    const hooked = await apiKeys.create({ label: 'hooked', webhookUrl: 'https://hooks.example.com/ferry' });
    const quiet = await apiKeys.create({ label: 'no endpoint' });
    const reads: string[] = [];
    const counting: EventStore = new Proxy(store, {
      get(target, property, receiver) {
        if (property !== 'readStream') return Reflect.get(target, property, receiver);
        return (streamId: string, ...rest: unknown[]) => {
          reads.push(streamId);
          return (target.readStream as (...args: unknown[]) => unknown).call(target, streamId, ...rest);
        };
      },
    });
    const outbox = new WebhookOutboxWriter(
      { webhooks: { batchSize: 100 } } as AppConfig,
      db,
      counting,
      apiKeys,
      new WebhookSignal(),
    );
    await outbox.ensureCheckpoint();

    const requests = [
      { apiKeyId: hooked.id, n: 1 },
      { apiKeyId: null, n: 2 },
      { apiKeyId: quiet.id, n: 3 },
    ].map(({ apiKeyId, n }) => {
      const quote = sampleQuote(n, { apiKeyId });
      const streamId = `request-${quote.requestId}`;
      return { streamId, events: recordedEvents(sampleLifecycle(quote, n), streamId) };
    });
    // Each request's events arrive over several batches, as a request's life does: its quote first, then the rest
    // one event at a time.
    const appendFrom = async (index: number) => {
      for (const { streamId, events } of requests) {
        const event = events[index];
        if (!event) continue;
        await store.appendToStream(
          streamId,
          [{ id: `${streamId}:${index}`, type: event.type, data: event.data }],
          {
            expectedRevision: index === 0 ? 'no_stream' : BigInt(index - 1),
          },
        );
      }
    };
    const longest = Math.max(...requests.map(({ events }) => events.length));
    for (let index = 0; index < longest; index += 1) {
      await appendFrom(index);
      await waitForReadable(db);
      while ((await outbox.writeBatch()) > 0);
    }

    const [hookedStream, anonymous, withoutEndpoint] = requests.map(({ streamId }) => streamId);
    expect(reads).not.toContain(anonymous);
    expect(reads).not.toContain(withoutEndpoint);
    expect(reads.filter((streamId) => streamId === hookedStream).length).toBeGreaterThan(0);
    const { rows } = await db.query<{ request_id: string; status: string }>(
      'SELECT request_id, status FROM webhook_deliveries ORDER BY sequence',
    );
    expect(new Set(rows.map((row) => row.request_id))).toEqual(
      new Set([hookedStream.slice('request-'.length)]),
    );
    expect(rows.map((row) => row.status)).toEqual(['waiting', 'pending', 'submitted', 'success']);
  });
});
