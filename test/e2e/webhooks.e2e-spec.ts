import { createHmac, randomBytes } from 'node:crypto';
import { ApiKeysService } from '../../src/api-keys/api-keys.service.js';
import { DATABASE, type Database } from '../../src/database/database.js';
import { sampleLifecycle, sampleQuote } from '../../src/requests/domain/sample-requests.js';
import { WebhookDeliveriesService } from '../../src/webhooks/delivery/webhook-deliveries.service.js';
import { verifyWebhook } from '../../src/webhooks/index.js';
import { startTestApp } from '../support/app.js';
import {
  driveRequest as drive,
  nextSample,
  waitUntil,
  webhookHarness as harness,
  type WebhookHarness as Harness,
} from '../support/webhook-harness.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

describe('request.status.updated webhooks', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('delivers exactly the specified payload for every status change, signed with the API key', async () => {
    h = await harness();
    const quote = await drive(h, 5, { referrer: 'wallet.example' });
    const received = await h.receiver.waitFor(4);
    const bodies = received.map((webhook) => JSON.parse(webhook.body));
    expect(bodies.map((body) => body.data.status)).toEqual(['waiting', 'pending', 'submitted', 'success']);

    const success = bodies[3];
    expect(Object.keys(success)).toEqual(['event', 'timestamp', 'data']);
    expect(success).toMatchObject({ event: 'request.status.updated', timestamp: expect.any(Number) });
    expect(success.data).toEqual({
      status: 'success',
      inTxHashes: [expect.stringMatching(/^0x01/)],
      txHashes: [expect.stringMatching(/^0x02/)],
      updatedAt: Date.parse(quote.quotedAt) + 15_000,
      originChainId: 31337,
      destinationChainId: 31338,
      depositAddress: quote.depositAddress
        ? {
            address: quote.depositAddress.address,
            depositAddressType: 'strict',
            depositor: quote.user,
            depositTxHash: expect.stringMatching(/^0x01/),
          }
        : null,
      requestId: quote.requestId,
      referrer: 'wallet.example',
      details: null,
      failReason: 'N/A',
      refundFailReason: 'N/A',
    });

    for (const webhook of received) {
      expect(verifyWebhook(webhook.body, webhook.headers, h.key.key)).toEqual({ ok: true });
      const timestamp = String(webhook.headers['x-signature-timestamp']);
      const expected = createHmac('sha256', h.key.key).update(`${timestamp}.${webhook.body}`).digest('hex');
      expect(webhook.headers['x-signature-sha256']).toBe(expected);
      expect(webhook.headers['x-webhook-id']).toMatch(/^whk_[0-9a-f]{32}$/);
      expect(webhook.headers['x-integrator']).toBe('acme');
      expect(webhook.headers['content-type']).toContain('application/json');
    }
    expect(new Set(received.map((w) => w.headers['x-webhook-id'])).size).toBe(4);
    expect(verifyWebhook(received[0].body, received[0].headers, 'fk_wrong_key')).toMatchObject({ ok: false });
  });

  it('stores a custom header value only encrypted, shows it in no admin answer, and still sends it', async () => {
    const adminToken = 'a'.repeat(40);
    h = await harness({ ADMIN_API_TOKEN: adminToken });
    const secret = `receiver-token-${randomBytes(16).toString('hex')}`;
    const key = await h.app.app.get(ApiKeysService).create({
      label: 'receiver credentials',
      webhookUrl: h.receiver.url,
      webhookHeaders: { Authorization: `Bearer ${secret}` },
    });
    const db = h.app.app.get<Database>(DATABASE);
    const dump = async () =>
      (
        await db.query<{ text: string }>(
          "SELECT string_agg(row_to_json(k)::text, ',') AS text FROM api_keys k",
        )
      ).rows[0].text;
    expect(await dump()).toContain(key.id);
    expect(await dump()).not.toContain(secret);

    const admin = (method: 'GET' | 'PUT', url: string, payload?: object) =>
      h!.app.http.inject({ method, url, headers: { 'x-admin-token': adminToken }, payload });
    const answers = [
      await admin('PUT', `/admin/api-keys/${key.id}/webhook`, {
        url: h.receiver.url,
        headers: { Authorization: `Bearer ${secret}` },
      }),
      await admin('GET', '/admin/api-keys/revenue-share'),
      await admin('GET', `/admin/api-keys/${key.id}/revenue-share`),
    ];
    for (const answer of answers) {
      expect(answer.statusCode).toBe(200);
      expect(answer.body).not.toContain(secret);
    }
    expect(JSON.parse(answers[0].body)).toMatchObject({ headerNames: ['Authorization'] });
    expect(await dump()).not.toContain(secret);

    await drive(h, 2, { apiKeyId: key.id });
    const [webhook] = await h.receiver.waitFor(1);
    expect(webhook.headers.authorization).toBe(`Bearer ${secret}`);
    expect(verifyWebhook(webhook.body, webhook.headers, key.key)).toEqual({ ok: true });
  });

  it('encrypts header values an earlier release stored in clear when an instance starts', async () => {
    h = await harness();
    const db = h.app.app.get<Database>(DATABASE);
    const legacy = `legacy-clear-${randomBytes(8).toString('hex')}`;
    await db.query('UPDATE api_keys SET webhook_headers = $2::jsonb WHERE id = $1', [
      h.key.id,
      JSON.stringify({ 'X-Integrator': legacy }),
    ]);
    const second = await startTestApp({ WEBHOOKS_RUN: 'false' }, [], undefined, h.app.database);
    await second.close();
    const { rows } = await db.query<{ text: string }>(
      'SELECT row_to_json(k)::text AS text FROM api_keys k WHERE id = $1',
      [h.key.id],
    );
    expect(rows[0].text).not.toContain(legacy);

    await drive(h, 2);
    const [webhook] = await h.receiver.waitFor(1);
    expect(webhook.headers['x-integrator']).toBe(legacy);
  });

  it('announces nothing for a quote that is never deposited, even when it expires', async () => {
    h = await harness();
    const quote = await drive(h, 1);
    await h.run(quote.requestId, { type: 'ExpireRequest', data: { at: '2030-01-01T00:00:00.000Z' } });
    const deposited = await drive(h, 2);
    const [webhook] = await h.receiver.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.receiver.received).toHaveLength(1);
    expect(JSON.parse(webhook.body).data).toMatchObject({
      requestId: deposited.requestId,
      status: 'waiting',
    });
  });

  it('carries the recorded failReason on failure and refund, N/A otherwise', async () => {
    h = await harness();
    const n = nextSample();
    const quote = sampleQuote(n, { apiKeyId: h.key.id });
    const [quoted, detect, confirm] = sampleLifecycle(quote, n);
    for (const command of [quoted, detect, confirm]) await h.run(quote.requestId, command);
    await h.run(quote.requestId, {
      type: 'RecordFillFailure',
      data: {
        failReason: 'FILL_REVERTED',
        failedTxHash: null,
        failedTxBlockNumber: null,
        failedCallData: null,
        details: 'execution reverted: TRANSFER_FAILED',
        failedAt: '2026-11-01T01:00:00.000Z',
      },
    });
    await h.run(quote.requestId, {
      type: 'RecordRefundSuccess',
      data: {
        chainId: 31337,
        txHash: `0x${'7'.repeat(64)}`,
        block: 9,
        timestamp: 1_790_000_000,
        fee: '1',
        amount: quote.currencyIn.amount,
        currency: quote.currencyIn.currency.address,
        recipient: quote.user,
        refundedAt: '2026-11-01T01:01:00.000Z',
      },
    });
    const bodies = (await h.receiver.waitFor(4)).map((w) => JSON.parse(w.body).data);
    expect(bodies.map((d) => [d.status, d.failReason, d.details])).toEqual([
      ['waiting', 'N/A', null],
      ['pending', 'N/A', null],
      ['failure', 'FILL_REVERTED', 'execution reverted: TRANSFER_FAILED'],
      ['refund', 'FILL_REVERTED', 'execution reverted: TRANSFER_FAILED'],
    ]);
    expect(bodies[3].txHashes).toEqual([`0x${'7'.repeat(64)}`]);
  });

  it('retries 500, 500 and a timeout, then succeeds: four attempts, one X-Webhook-Id, a fresh signature each', async () => {
    h = await harness({
      WEBHOOK_RETRY_BASE_MS: '600',
      WEBHOOK_RETRY_MAX_MS: '600',
      WEBHOOK_TIMEOUT_MS: '400',
    });
    h.receiver.replies = [{ status: 500 }, { status: 500, body: 'x'.repeat(5000) }, 'hang', { status: 200 }];
    await drive(h, 2);
    await waitUntil(async () => (await h!.deliveries())[0]?.state === 'delivered');
    const attempts = h.receiver.received;
    expect(attempts).toHaveLength(4);
    expect(new Set(attempts.map((w) => w.headers['x-webhook-id'])).size).toBe(1);
    expect(new Set(attempts.map((w) => w.body)).size).toBe(1);
    for (const webhook of attempts)
      expect(verifyWebhook(webhook.body, webhook.headers, h.key.key)).toEqual({ ok: true });
    const timestamps = attempts.map((w) => Number(w.headers['x-signature-timestamp']));
    for (let i = 0; i < attempts.length; i += 1) {
      expect(Math.abs(timestamps[i] * 1000 - attempts[i].receivedAt)).toBeLessThan(1500);
    }
    expect(timestamps[3]).toBeGreaterThan(timestamps[0]);
    expect((await h.deliveries())[0]).toMatchObject({ state: 'delivered', attempts: 4 });
    const log = await h.app.app.get(WebhookDeliveriesService).list();
    const details = await h.app.app.get(WebhookDeliveriesService).get(log[0].id);
    expect(details.attemptLog.map((a) => [a.attempt, a.statusCode])).toEqual([
      [1, 500],
      [2, 500],
      [3, null],
      [4, 200],
    ]);
    expect(details.attemptLog[1].responseExcerpt).toHaveLength(1024);
    expect(details.attemptLog[2].error).toBe('timeout after 400 ms');
  });

  it('honours Retry-After on 429', async () => {
    h = await harness();
    h.receiver.replies = [{ status: 429, headers: { 'Retry-After': '1' } }];
    await drive(h, 2);
    const [first, second] = await h.receiver.waitFor(2);
    expect(second.receivedAt - first.receivedAt).toBeGreaterThanOrEqual(950);
  });

  it('disables the endpoint when the receiver answers 410, and queues nothing more for it', async () => {
    h = await harness();
    h.receiver.fallback = { status: 410 };
    const quote = await drive(h, 2);
    await waitUntil(async () => (await h!.deliveries())[0]?.state === 'failed');
    const key = await h.app.app.get(ApiKeysService).get(h.key.id);
    expect(key?.webhookDisabledAt).toBeInstanceOf(Date);
    expect(key?.webhookDisabledReason).toContain('410');
    const [, , confirm] = sampleLifecycle(quote, quote.sample);
    await h.run(quote.requestId, confirm);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(h.receiver.received).toHaveLength(1);
    expect(await h.deliveries()).toHaveLength(1);
  });

  it('gives up after 11 attempts to a receiver that is down, and a redelivery completes it', async () => {
    const reserved = await new WebhookReceiver().start();
    const port = reserved.port;
    await reserved.stop();
    h = await harness({ WEBHOOK_RETRY_BASE_MS: '5', WEBHOOK_RETRY_MAX_MS: '20' });
    await h.receiver.stop();
    await h.app.app
      .get(ApiKeysService)
      .setWebhook(h.key.id, { url: `http://127.0.0.1:${port}/down` }, async () => null);
    await drive(h, 2);
    await waitUntil(async () => (await h!.deliveries())[0]?.state === 'failed');
    expect((await h.deliveries())[0]).toMatchObject({ state: 'failed', attempts: 11 });
    expect((await h.deliveries())[0].last_error).toMatch(/ECONNREFUSED/);

    await h.receiver.start(port);
    const deliveries = h.app.app.get(WebhookDeliveriesService);
    expect(await deliveries.redeliverFailed(new Date(0))).toBe(1);
    await waitUntil(async () => (await h!.deliveries())[0]?.state === 'delivered');
    expect(h.receiver.received).toHaveLength(1);
    expect(verifyWebhook(h.receiver.received[0].body, h.receiver.received[0].headers, h.key.key)).toEqual({
      ok: true,
    });
  });

  it('never lets a later status overtake an earlier one of the same request, across 50 concurrent requests', async () => {
    h = await harness({ WEBHOOK_BATCH_SIZE: '20' });
    h.receiver.onRequest = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 15));
    h.receiver.fallback = { status: 200 };
    let resent = 0;
    h.receiver.replies = Array.from({ length: 40 }, (_, i) =>
      i % 3 === 0 ? { status: 503 } : { status: 200 },
    );
    const quotes = await Promise.all(Array.from({ length: 50 }, () => drive(h!, 5)));
    await waitUntil(
      async () => (await h!.deliveries()).filter((d) => d.state === 'delivered').length === 200,
      60_000,
    );
    const byRequest = new Map<string, string[]>();
    for (const webhook of h.receiver.received) {
      const { requestId, status } = JSON.parse(webhook.body).data;
      const seen = byRequest.get(requestId) ?? [];
      if (seen.at(-1) !== status) seen.push(status);
      else resent += 1;
      byRequest.set(requestId, seen);
    }
    expect(byRequest.size).toBe(50);
    for (const quote of quotes) {
      expect(byRequest.get(quote.requestId)).toEqual(['waiting', 'pending', 'submitted', 'success']);
    }
    // Each 503 was followed by a retry of the same status before the request's next one.
    expect(resent).toBe(14);
  });
});
