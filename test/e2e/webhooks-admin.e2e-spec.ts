import { randomBytes, randomUUID } from 'node:crypto';
import { ApiKeysService } from '../../src/api-keys/api-keys.service.js';
import { DATABASE, type Database } from '../../src/database/database.js';
import { startTestApp, type TestApp } from '../support/app.js';

const TOKEN = 'x'.repeat(40);
const PUBLIC_TARGET = 'https://93.184.215.14/hooks/ferry';

type Method = 'GET' | 'PUT' | 'POST' | 'DELETE';

interface SeedDelivery {
  readonly apiKeyId: string;
  readonly state: 'pending' | 'delivered' | 'failed';
  readonly createdAt: Date;
  readonly requestId?: string;
  readonly status?: string;
  /** Attempts already made: each gets a row in webhook_attempts (the last one is the delivery's last outcome). */
  readonly attempts?: readonly { statusCode: number | null; error: string | null; excerpt: string | null }[];
}

interface SeededDelivery {
  readonly id: string;
  readonly webhookId: string;
  readonly requestId: string;
  readonly body: string;
}

/**
 * Writes a delivery as the outbox writer and the dispatcher would have left it (WEBHOOKS_RUN=false: no dispatcher
 * touches it during the test).
 */
async function seedDelivery(db: Database, seed: SeedDelivery): Promise<SeededDelivery> {
  const id = randomUUID();
  const webhookId = `whk_${randomBytes(16).toString('hex')}`;
  const requestId = seed.requestId ?? `0x${randomBytes(32).toString('hex')}`;
  const status = seed.status ?? 'success';
  const body = JSON.stringify({
    event: 'request.status.updated',
    timestamp: seed.createdAt.getTime(),
    data: { status, requestId },
  });
  const attempts = seed.attempts ?? [];
  const last = attempts.at(-1);
  const at = (i: number) => new Date(seed.createdAt.getTime() + (i + 1) * 1000);
  await db.query(
    `INSERT INTO webhook_deliveries (id, webhook_id, event_id, api_key_id, request_id, sequence, status, body, state,
       attempts, next_attempt_at, event_created_at, created_at, first_attempt_at, last_attempt_at, delivered_at,
       last_status_code, last_error)
     VALUES ($1, $2, $3, $4, $5, 1, $6, $7, $8, $9, $10, $10, $10, $11, $12, $13, $14, $15)`,
    [
      id,
      webhookId,
      randomUUID(),
      seed.apiKeyId,
      requestId,
      status,
      body,
      seed.state,
      attempts.length,
      seed.createdAt.toISOString(),
      attempts.length ? at(0).toISOString() : null,
      attempts.length ? at(attempts.length - 1).toISOString() : null,
      seed.state === 'delivered' ? at(attempts.length - 1).toISOString() : null,
      last?.statusCode ?? null,
      last?.error ?? null,
    ],
  );
  for (const [i, attempt] of attempts.entries()) {
    await db.query(
      `INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at, status_code, latency_ms, error, response_excerpt)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [id, i + 1, at(i).toISOString(), attempt.statusCode, 100 + i, attempt.error, attempt.excerpt],
    );
  }
  return { id, webhookId, requestId, body };
}

const FAILED_ATTEMPTS = [
  { statusCode: 500, error: 'HTTP 500', excerpt: '{"error":"boom"}' },
  { statusCode: null, error: 'timed out after 15000 ms', excerpt: null },
  { statusCode: 503, error: 'HTTP 503', excerpt: 'try later' },
];

describe('webhook admin routes (x-admin-token)', () => {
  let sut: TestApp;
  let disabled: TestApp;
  let apiKeys: ApiKeysService;
  let db: Database;

  beforeAll(async () => {
    [sut, disabled] = await Promise.all([
      startTestApp({ ADMIN_API_TOKEN: TOKEN, WEBHOOKS_RUN: 'false', PROJECTIONS_RUN: 'false' }),
      startTestApp({ WEBHOOKS_RUN: 'false', PROJECTIONS_RUN: 'false' }),
    ]);
    apiKeys = sut.app.get(ApiKeysService);
    db = sut.app.get(DATABASE);
  });
  afterAll(async () => {
    await Promise.all([sut?.close(), disabled?.close()]);
  });

  const call = (
    method: Method,
    url: string,
    options: { body?: unknown; token?: string | null; app?: TestApp } = {},
  ) =>
    (options.app ?? sut).http.inject({
      method,
      url,
      headers: options.token === null ? {} : { 'x-admin-token': options.token ?? TOKEN },
      ...(options.body === undefined ? {} : { payload: options.body as object }),
    });
  const json = (response: { body: string }) => JSON.parse(response.body);

  const ROUTES: [Method, string, unknown?][] = [
    ['PUT', `/admin/api-keys/${randomUUID()}/webhook`, { url: PUBLIC_TARGET }],
    ['DELETE', `/admin/api-keys/${randomUUID()}/webhook`],
    ['GET', '/admin/webhooks/deliveries'],
    ['GET', `/admin/webhooks/deliveries/${randomUUID()}`],
    ['POST', `/admin/webhooks/deliveries/${randomUUID()}/redeliver`],
    ['POST', '/admin/webhooks/redeliver', { since: '2026-01-01T00:00:00Z' }],
  ];

  describe('authentication', () => {
    it('answers 403 FORBIDDEN on every admin route when ADMIN_API_TOKEN is not set, token or not', async () => {
      for (const [method, url, body] of ROUTES) {
        for (const token of [TOKEN, null]) {
          const response = await call(method, url, { body, token, app: disabled });
          expect(response.statusCode).toBe(403);
          expect(json(response)).toEqual({
            message: 'The admin API is disabled: set ADMIN_API_TOKEN',
            errorCode: 'FORBIDDEN',
            statusCode: 403,
          });
        }
      }
    });

    it('answers 401 UNAUTHORIZED without the header, on every route', async () => {
      for (const [method, url, body] of ROUTES) {
        const response = await call(method, url, { body, token: null });
        expect(response.statusCode).toBe(401);
        expect(json(response)).toEqual({
          message: 'Missing x-admin-token header',
          errorCode: 'UNAUTHORIZED',
          statusCode: 401,
        });
        expect((await call(method, url, { body, token: '' })).statusCode).toBe(401);
      }
    });

    it('answers 401 to a wrong token: another of the same length, a prefix, a longer one, different case', async () => {
      for (const token of [
        'y'.repeat(40),
        'x'.repeat(39),
        'x'.repeat(41),
        'X'.repeat(40),
        `${TOKEN} `,
        'nope',
      ]) {
        for (const [method, url, body] of ROUTES) {
          const response = await call(method, url, { body, token });
          expect(response.statusCode).toBe(401);
          expect(json(response)).toEqual({
            message: 'Invalid x-admin-token',
            errorCode: 'UNAUTHORIZED',
            statusCode: 401,
          });
          expect(response.body).not.toContain('xxxx');
        }
      }
    });

    it('answers 401 to the header sent twice, even with the right token', async () => {
      const response = await sut.http.inject({
        method: 'GET',
        url: '/admin/webhooks/deliveries',
        headers: { 'x-admin-token': [TOKEN, TOKEN] },
      });
      expect(response.statusCode).toBe(401);
    });

    it('checks the token before the input: a bad body without a token is 401, not 400', async () => {
      const response = await call('PUT', `/admin/api-keys/${randomUUID()}/webhook`, {
        body: {},
        token: 'wrong',
      });
      expect(response.statusCode).toBe(401);
    });
  });

  describe('PUT and DELETE /admin/api-keys/:idOrPrefix/webhook', () => {
    it('sets an endpoint with custom headers: 200 with the settings, header names only', async () => {
      const key = await apiKeys.create({ label: 'Acme wallet' });
      const response = await call('PUT', `/admin/api-keys/${key.id}/webhook`, {
        body: {
          url: PUBLIC_TARGET,
          headers: { Authorization: 'Bearer receiver-secret', 'X-Tenant': ' acme ' },
        },
      });
      expect(response.statusCode).toBe(200);
      expect(json(response)).toEqual({
        apiKeyId: key.id,
        keyPrefix: key.keyPrefix,
        label: 'Acme wallet',
        url: PUBLIC_TARGET,
        headerNames: ['Authorization', 'X-Tenant'],
        disabled: false,
        disabledAt: null,
        disabledReason: null,
      });
      expect(response.body).not.toContain('receiver-secret');
      const stored = await apiKeys.get(key.id);
      expect(stored).toMatchObject({
        webhookUrl: PUBLIC_TARGET,
        webhookHeaders: { Authorization: 'Bearer receiver-secret', 'X-Tenant': 'acme' },
      });
    });

    it('names the key by its prefix too, and replaces the endpoint (loopback http: the test allowance)', async () => {
      const key = await apiKeys.create({
        label: 'by prefix',
        webhookUrl: PUBLIC_TARGET,
        webhookHeaders: { A: 'b' },
      });
      const response = await call('PUT', `/admin/api-keys/${key.keyPrefix}/webhook`, {
        body: { url: 'http://127.0.0.1:9/hooks' },
      });
      expect(response.statusCode).toBe(200);
      expect(json(response)).toMatchObject({
        apiKeyId: key.id,
        url: 'http://127.0.0.1:9/hooks',
        headerNames: [],
      });
      expect((await apiKeys.get(key.id))?.webhookHeaders).toEqual({});
    });

    it('re-enables an endpoint disabled by a 410', async () => {
      const key = await apiKeys.create({ label: 'gone', webhookUrl: PUBLIC_TARGET });
      await apiKeys.disableWebhook(key.id, 'the endpoint answered 410 Gone', new Date());
      const before = await apiKeys.get(key.id);
      expect(before?.webhookDisabledAt).not.toBeNull();
      const response = await call('PUT', `/admin/api-keys/${key.id}/webhook`, {
        body: { url: PUBLIC_TARGET },
      });
      expect(json(response)).toMatchObject({ disabled: false, disabledAt: null, disabledReason: null });
      expect((await apiKeys.get(key.id))?.webhookDisabledAt).toBeNull();
    });

    it.each([
      ['https://10.0.0.1/hook', '10.0.0.1 is a private address (10.0.0.0/8)'],
      ['https://192.168.1.1/hook', 'private address'],
      ['https://169.254.169.254/', 'metadata address'],
      ['https://169.254.1.1/', 'link-local address'],
      ['https://[fd00:ec2::254]/', 'metadata address'],
      ['https://[::ffff:10.0.0.1]/', 'private address'],
      ['https://metadata.google.internal/', 'cloud metadata service'],
      ['http://93.184.215.14/hook', 'http is allowed only to loopback'],
      ['ftp://93.184.215.14/hook', 'must use https'],
      ['https://user:pass@93.184.215.14/', 'must not carry credentials'],
      ['not a url', 'not a valid URL'],
    ])('refuses the target %s: 400 INVALID_INPUT (%s), the key unchanged', async (url, reason) => {
      const key = await apiKeys.create({ label: 'refused', webhookUrl: PUBLIC_TARGET });
      const response = await call('PUT', `/admin/api-keys/${key.id}/webhook`, { body: { url } });
      expect(response.statusCode).toBe(400);
      const body = json(response);
      expect(body.errorCode).toBe('INVALID_INPUT');
      expect(body.message).toMatch(/^Refused webhook URL: /);
      expect(body.message).toContain(reason);
      expect((await apiKeys.get(key.id))?.webhookUrl).toBe(PUBLIC_TARGET);
    });

    it.each([
      'X-Signature-SHA256',
      'x-signature-timestamp',
      'X-Webhook-Id',
      'Content-Type',
      'host',
      'Content-Length',
    ])('refuses a custom header overriding %s: 400 INVALID_INPUT', async (name) => {
      const key = await apiKeys.create({ label: 'header override' });
      const response = await call('PUT', `/admin/api-keys/${key.id}/webhook`, {
        body: { url: PUBLIC_TARGET, headers: { [name]: 'forged' } },
      });
      expect(response.statusCode).toBe(400);
      expect(json(response)).toEqual({
        message: `Refused webhook headers: ${name} cannot be set: the webhook sender sets it`,
        errorCode: 'INVALID_INPUT',
        statusCode: 400,
      });
      expect((await apiKeys.get(key.id))?.webhookUrl).toBeNull();
    });

    it('refuses malformed bodies with 400 INVALID_INPUT naming the field', async () => {
      const key = await apiKeys.create({ label: 'bad bodies' });
      const cases: [unknown, string][] = [
        [{}, 'url'],
        [{ url: 42 }, 'url'],
        [{ url: `https://93.184.215.14/${'a'.repeat(2100)}` }, 'url'],
        [{ url: PUBLIC_TARGET, headers: ['Authorization: x'] }, 'headers'],
        [{ url: PUBLIC_TARGET, headers: 'Authorization: x' }, 'headers'],
      ];
      for (const [body, field] of cases) {
        const response = await call('PUT', `/admin/api-keys/${key.id}/webhook`, { body });
        expect(response.statusCode).toBe(400);
        expect(json(response)).toMatchObject({
          errorCode: 'INVALID_INPUT',
          errorData: [expect.objectContaining({ field })],
        });
      }
      const header = await call('PUT', `/admin/api-keys/${key.id}/webhook`, {
        body: { url: PUBLIC_TARGET, headers: { 'X-Evil': 'a\r\nb' } },
      });
      expect(header.statusCode).toBe(400);
      expect(json(header).message).toContain('without CR, LF or control characters');
      const invalidJson = await sut.http.inject({
        method: 'PUT',
        url: `/admin/api-keys/${key.id}/webhook`,
        headers: { 'x-admin-token': TOKEN, 'content-type': 'application/json' },
        payload: '{"url":',
      });
      expect(invalidJson.statusCode).toBe(400);
      expect(json(invalidJson).errorCode).toBe('MALFORMED_JSON');
    });

    it('answers 404 for an unknown key and 400 for something that names no key', async () => {
      const unknown = await call('PUT', `/admin/api-keys/${randomUUID()}/webhook`, {
        body: { url: PUBLIC_TARGET },
      });
      expect(unknown.statusCode).toBe(404);
      expect(json(unknown).errorCode).toBe('NOT_FOUND');
      const prefix = await call('DELETE', '/admin/api-keys/fk_zzzzzzz/webhook');
      expect(prefix.statusCode).toBe(404);
      const nonsense = await call('PUT', '/admin/api-keys/nonsense/webhook', {
        body: { url: PUBLIC_TARGET },
      });
      expect(nonsense.statusCode).toBe(400);
      expect(json(nonsense).errorCode).toBe('INVALID_INPUT');
    });

    it('removes an endpoint: 200 with no url and no headers', async () => {
      const key = await apiKeys.create({
        label: 'remove me',
        webhookUrl: PUBLIC_TARGET,
        webhookHeaders: { Authorization: 'Bearer t' },
      });
      const response = await call('DELETE', `/admin/api-keys/${key.id}/webhook`);
      expect(response.statusCode).toBe(200);
      expect(json(response)).toEqual({
        apiKeyId: key.id,
        keyPrefix: key.keyPrefix,
        label: 'remove me',
        url: null,
        headerNames: [],
        disabled: false,
        disabledAt: null,
        disabledReason: null,
      });
      expect(await apiKeys.get(key.id)).toMatchObject({ webhookUrl: null, webhookHeaders: {} });
      expect((await call('DELETE', `/admin/api-keys/${key.id}/webhook`)).statusCode).toBe(200);
      expect((await call('DELETE', `/admin/api-keys/${randomUUID()}/webhook`)).statusCode).toBe(404);
    });
  });

  describe('the delivery log and redelivery', () => {
    it('lists deliveries newest first, without bodies, filtered by state, key, request, since and limit', async () => {
      const key = await apiKeys.create({ label: 'log', webhookUrl: PUBLIC_TARGET });
      const other = await apiKeys.create({ label: 'other log', webhookUrl: PUBLIC_TARGET });
      const base = Date.parse('2026-03-01T10:00:00Z');
      const failed = await seedDelivery(db, {
        apiKeyId: key.id,
        state: 'failed',
        createdAt: new Date(base),
        status: 'failure',
        attempts: FAILED_ATTEMPTS,
      });
      const delivered = await seedDelivery(db, {
        apiKeyId: key.id,
        state: 'delivered',
        createdAt: new Date(base + 60_000),
        requestId: failed.requestId,
        attempts: [{ statusCode: 204, error: null, excerpt: '' }],
      });
      const pending = await seedDelivery(db, {
        apiKeyId: key.id,
        state: 'pending',
        createdAt: new Date(base + 120_000),
      });
      await seedDelivery(db, { apiKeyId: other.id, state: 'failed', createdAt: new Date(base + 30_000) });

      const all = await call('GET', `/admin/webhooks/deliveries?apiKeyId=${key.id}`);
      expect(all.statusCode).toBe(200);
      const { deliveries } = json(all);
      expect(deliveries.map((d: { id: string }) => d.id)).toEqual([pending.id, delivered.id, failed.id]);
      expect(deliveries[2]).toEqual({
        id: failed.id,
        webhookId: failed.webhookId,
        apiKeyId: key.id,
        requestId: failed.requestId,
        status: 'failure',
        state: 'failed',
        attempts: 3,
        createdAt: '2026-03-01T10:00:00.000Z',
        nextAttemptAt: '2026-03-01T10:00:00.000Z',
        lastAttemptAt: '2026-03-01T10:00:03.000Z',
        deliveredAt: null,
        lastStatusCode: 503,
        lastError: 'HTTP 503',
      });
      expect(all.body).not.toContain('request.status.updated');

      const ids = async (query: string) =>
        json(await call('GET', `/admin/webhooks/deliveries?${query}`)).deliveries.map(
          (d: { id: string }) => d.id,
        );
      expect(await ids(`apiKeyId=${key.id}&state=failed`)).toEqual([failed.id]);
      expect(await ids(`apiKeyId=${key.id}&state=pending`)).toEqual([pending.id]);
      expect(await ids(`requestId=${failed.requestId}`)).toEqual([delivered.id, failed.id]);
      expect(await ids(`requestId=${failed.requestId.toUpperCase().replace('0X', '0x')}`)).toEqual([
        delivered.id,
        failed.id,
      ]);
      expect(await ids(`apiKeyId=${key.id}&since=2026-03-01T10:01:00Z`)).toEqual([pending.id, delivered.id]);
      expect(await ids(`apiKeyId=${key.id}&since=2026-03-01T12:01:00%2B02:00`)).toEqual([
        pending.id,
        delivered.id,
      ]);
      expect(await ids(`apiKeyId=${key.id}&limit=2`)).toEqual([pending.id, delivered.id]);
      const failedSince = await ids('state=failed&since=2026-03-01T00:00:00Z');
      expect(failedSince).toEqual(expect.arrayContaining([failed.id]));
      expect(failedSince).toHaveLength(2);
    });

    it.each([
      ['state=bogus', 'state'],
      ['apiKeyId=nope', 'apiKeyId'],
      ['requestId=0x12', 'requestId'],
      ['since=yesterday', 'since'],
      ['since=2026-03-01T10:00:00', 'since'],
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=abc', 'limit'],
      ['state=failed&state=pending', 'state'],
    ])('refuses the filter %s with 400 INVALID_INPUT', async (query, field) => {
      const response = await call('GET', `/admin/webhooks/deliveries?${query}`);
      expect(response.statusCode).toBe(400);
      expect(json(response)).toMatchObject({
        errorCode: 'INVALID_INPUT',
        errorData: [expect.objectContaining({ field })],
      });
    });

    it('shows one delivery, by id or by webhook id, with its body and attempt log', async () => {
      const key = await apiKeys.create({ label: 'details' });
      const seeded = await seedDelivery(db, {
        apiKeyId: key.id,
        state: 'failed',
        createdAt: new Date('2026-03-02T08:00:00Z'),
        attempts: FAILED_ATTEMPTS,
      });
      for (const id of [seeded.id, seeded.webhookId]) {
        const response = await call('GET', `/admin/webhooks/deliveries/${id}`);
        expect(response.statusCode).toBe(200);
        const body = json(response);
        expect(body).toMatchObject({
          id: seeded.id,
          webhookId: seeded.webhookId,
          state: 'failed',
          body: seeded.body,
        });
        expect(body.attemptLog).toEqual([
          {
            attempt: 1,
            attemptedAt: '2026-03-02T08:00:01.000Z',
            statusCode: 500,
            latencyMs: 100,
            error: 'HTTP 500',
            responseExcerpt: '{"error":"boom"}',
          },
          {
            attempt: 2,
            attemptedAt: '2026-03-02T08:00:02.000Z',
            statusCode: null,
            latencyMs: 101,
            error: 'timed out after 15000 ms',
            responseExcerpt: null,
          },
          {
            attempt: 3,
            attemptedAt: '2026-03-02T08:00:03.000Z',
            statusCode: 503,
            latencyMs: 102,
            error: 'HTTP 503',
            responseExcerpt: 'try later',
          },
        ]);
      }
      const unknown = await call('GET', `/admin/webhooks/deliveries/${randomUUID()}`);
      expect(unknown.statusCode).toBe(404);
      expect(json(unknown).errorCode).toBe('NOT_FOUND');
      expect((await call('GET', `/admin/webhooks/deliveries/whk_${'0'.repeat(32)}`)).statusCode).toBe(404);
      const malformed = await call('GET', '/admin/webhooks/deliveries/not-an-id');
      expect(malformed.statusCode).toBe(400);
      expect(json(malformed).errorCode).toBe('INVALID_INPUT');
    });

    it('redelivers a failed delivery: 200, pending with a fresh budget, same webhook id; again while pending → 409', async () => {
      const key = await apiKeys.create({ label: 'redeliver one', webhookUrl: PUBLIC_TARGET });
      const seeded = await seedDelivery(db, {
        apiKeyId: key.id,
        state: 'failed',
        createdAt: new Date('2026-03-03T08:00:00Z'),
        attempts: FAILED_ATTEMPTS,
      });
      const before = Date.now();
      const response = await call('POST', `/admin/webhooks/deliveries/${seeded.webhookId}/redeliver`);
      expect(response.statusCode).toBe(200);
      const body = json(response);
      expect(body).toMatchObject({
        id: seeded.id,
        webhookId: seeded.webhookId,
        state: 'pending',
        attempts: 0,
      });
      expect(body.body).toBeUndefined();
      expect(Date.parse(body.nextAttemptAt)).toBeGreaterThanOrEqual(before - 5_000);
      // The log of the earlier attempts is kept.
      const details = json(await call('GET', `/admin/webhooks/deliveries/${seeded.id}`));
      expect(details).toMatchObject({ state: 'pending', attempts: 0, body: seeded.body });
      expect(details.attemptLog).toHaveLength(3);

      const again = await call('POST', `/admin/webhooks/deliveries/${seeded.id}/redeliver`);
      expect(again.statusCode).toBe(409);
      expect(json(again)).toMatchObject({
        errorCode: 'CONFLICT',
        message: expect.stringContaining('still pending'),
      });
    });

    it('redelivers a delivered one too; unknown → 404, malformed → 400', async () => {
      const key = await apiKeys.create({ label: 'redeliver delivered' });
      const seeded = await seedDelivery(db, {
        apiKeyId: key.id,
        state: 'delivered',
        createdAt: new Date('2026-03-04T08:00:00Z'),
        attempts: [{ statusCode: 200, error: null, excerpt: 'ok' }],
      });
      const response = await call('POST', `/admin/webhooks/deliveries/${seeded.id}/redeliver`);
      expect(response.statusCode).toBe(200);
      expect(json(response)).toMatchObject({ state: 'pending', attempts: 0 });
      expect((await call('POST', `/admin/webhooks/deliveries/${randomUUID()}/redeliver`)).statusCode).toBe(
        404,
      );
      expect((await call('POST', '/admin/webhooks/deliveries/whk_nope/redeliver')).statusCode).toBe(400);
    });

    it('redelivers every failed delivery since a time, of one key or all: {redelivered: n}', async () => {
      // Far in the future, so no other test's deliveries are in the window.
      const since = new Date('2031-01-01T00:00:00Z');
      const a = await apiKeys.create({ label: 'bulk a' });
      const b = await apiKeys.create({ label: 'bulk b' });
      const after = (minutes: number) => new Date(since.getTime() + minutes * 60_000);
      const aFailed = [
        await seedDelivery(db, {
          apiKeyId: a.id,
          state: 'failed',
          createdAt: since,
          attempts: FAILED_ATTEMPTS,
        }),
        await seedDelivery(db, { apiKeyId: a.id, state: 'failed', createdAt: after(5) }),
      ];
      const bFailed = await seedDelivery(db, { apiKeyId: b.id, state: 'failed', createdAt: after(10) });
      const tooOld = await seedDelivery(db, { apiKeyId: a.id, state: 'failed', createdAt: after(-1) });
      const delivered = await seedDelivery(db, { apiKeyId: a.id, state: 'delivered', createdAt: after(1) });
      const pending = await seedDelivery(db, { apiKeyId: b.id, state: 'pending', createdAt: after(2) });

      const onlyB = await call('POST', '/admin/webhooks/redeliver', {
        body: { since: since.toISOString(), apiKeyId: b.id },
      });
      expect(onlyB.statusCode).toBe(200);
      expect(json(onlyB)).toEqual({ redelivered: 1 });

      const rest = await call('POST', '/admin/webhooks/redeliver', {
        body: { since: '2031-01-01T01:00:00+01:00' },
      });
      expect(rest.statusCode).toBe(200);
      expect(json(rest)).toEqual({ redelivered: 2 });
      expect(
        json(await call('POST', '/admin/webhooks/redeliver', { body: { since: '2031-01-01' } })),
      ).toEqual({
        redelivered: 0,
      });

      const stateOf = async (id: string) => json(await call('GET', `/admin/webhooks/deliveries/${id}`));
      for (const seeded of [...aFailed, bFailed]) {
        expect(await stateOf(seeded.id)).toMatchObject({ state: 'pending', attempts: 0 });
      }
      expect(await stateOf(tooOld.id)).toMatchObject({ state: 'failed' });
      expect(await stateOf(delivered.id)).toMatchObject({ state: 'delivered' });
      expect(await stateOf(pending.id)).toMatchObject({ state: 'pending' });
    });

    it.each([
      [{}, 'since'],
      [{ since: 'last week' }, 'since'],
      [{ since: 1714560000 }, 'since'],
      [{ since: '2031-01-01T00:00:00' }, 'since'],
      [{ since: '2031-01-01T00:00:00Z', apiKeyId: 'fk_abcdefg' }, 'apiKeyId'],
    ])('refuses the bulk redelivery body %j with 400 INVALID_INPUT', async (body, field) => {
      const response = await call('POST', '/admin/webhooks/redeliver', { body });
      expect(response.statusCode).toBe(400);
      expect(json(response)).toMatchObject({
        errorCode: 'INVALID_INPUT',
        errorData: [expect.objectContaining({ field })],
      });
    });
  });
});
