import pg from 'pg';
import { ApiKeysService } from '../../src/api-keys/api-keys.service.js';
import { WebhookDeliveriesService } from '../../src/webhooks/delivery/webhook-deliveries.service.js';
import { driveRequest, waitUntil, webhookHarness, type WebhookHarness } from '../support/webhook-harness.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/** Receivers are run by integrators: what one answers must not break delivery, for it or for anyone else. */
describe('webhook delivery to hostile receivers', () => {
  let h: WebhookHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('records a 2xx whose body holds NUL bytes as delivered, once (PostgreSQL text cannot store NUL)', async () => {
    // The shortest lease start-up accepts (more than timeout + DNS bound + a round's wait): 1.5 s.
    h = await webhookHarness({
      WEBHOOK_TIMEOUT_MS: '300',
      WEBHOOK_DNS_TIMEOUT_MS: '100',
      WEBHOOK_LEASE_MS: '1500',
    });
    h.receiver.fallback = { status: 200, body: 'ok\u0000\u0000done' };
    await driveRequest(h, 2);
    await h.receiver.waitFor(1);
    await waitUntil(async () => (await h!.deliveries())[0]?.state !== 'pending', 3_000);
    // Past two leases: an unrecorded attempt would have been sent again.
    await new Promise((resolve) => setTimeout(resolve, 3_200));
    expect(h.receiver.received).toHaveLength(1);
    expect(await h.deliveries()).toEqual([{ state: 'delivered', attempts: 1, last_error: null }]);
    const service = h.app.app.get(WebhookDeliveriesService);
    const [summary] = await service.list();
    const [attempt] = (await service.get(summary.id)).attemptLog;
    expect(attempt).toMatchObject({ statusCode: 200, responseExcerpt: 'ok\ufffd\ufffddone' });
  });

  it("does not hold other keys' deliveries back while one receiver hangs until the timeout", async () => {
    h = await webhookHarness({ WEBHOOK_TIMEOUT_MS: '6000' });
    const other = await new WebhookReceiver().start();
    try {
      const otherKey = await h.app.app
        .get(ApiKeysService)
        .create({ label: 'bystander', webhookUrl: other.url });
      h.receiver.fallback = 'hang';
      await driveRequest(h, 2);
      await h.receiver.waitFor(1);

      const started = Date.now();
      await driveRequest(h, 2, { apiKeyId: otherKey.id });
      await other.waitFor(1, 10_000);
      expect(Date.now() - started).toBeLessThan(2_500);
      await waitUntil(async () => (await h!.deliveries()).some((d) => d.state === 'delivered'), 2_500);

      // The hanging attempt is still recorded, once it times out.
      const service = h.app.app.get(WebhookDeliveriesService);
      const [hanging] = await service.list({ apiKeyId: h.key.id });
      const firstAttempt = async () => (await service.get(hanging.id)).attemptLog[0];
      await waitUntil(async () => (await firstAttempt()) !== undefined, 10_000);
      expect(await firstAttempt()).toMatchObject({ statusCode: null, error: 'timeout after 6000 ms' });
    } finally {
      await other.stop();
    }
  });

  it('records an attempt that outlived its round before the app shuts down (no lease left to expire)', async () => {
    const harness = await webhookHarness();
    const db = new pg.Client({ connectionString: harness.app.database.url });
    try {
      harness.receiver.onRequest = () => new Promise((resolve) => setTimeout(resolve, 1_500));
      await driveRequest(harness, 2);
      await harness.receiver.waitFor(1);
      await harness.app.app.close();
      await db.connect();
      const { rows } = await db.query('SELECT state, attempts, leased_until FROM webhook_deliveries');
      expect(rows).toEqual([{ state: 'delivered', attempts: 1, leased_until: null }]);
    } finally {
      await db.end();
      await harness.receiver.stop();
      await harness.app.database.drop();
    }
  });
});
