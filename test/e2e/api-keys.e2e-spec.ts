import { Controller, Get, Module } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { CurrentApiKey, OptionalApiKey, RequireApiKey } from '../../src/api-keys/api-key.decorators.js';
import { ApiKeysService, type AuthenticatedApiKey } from '../../src/api-keys/api-keys.service.js';
import { startTestApp, type TestApp } from '../support/app.js';

/** Fixture routes: the guard and decorators are the app's, the routes are the test's. */
@Controller('fixture/api-keys')
class RequiredController {
  @Get('whoami')
  @RequireApiKey()
  whoami(@CurrentApiKey() apiKey: AuthenticatedApiKey) {
    return { label: apiKey.label, id: apiKey.id };
  }

  @Get('maybe')
  @OptionalApiKey()
  maybe(@CurrentApiKey() apiKey: AuthenticatedApiKey | null) {
    return { label: apiKey?.label ?? null };
  }
}

/** Optional on the class, required on one route: the route's mode wins and a request counts once. */
@Controller('fixture/api-keys/mixed')
@OptionalApiKey()
class MixedController {
  @Get('strict')
  @RequireApiKey()
  strict(@CurrentApiKey() apiKey: AuthenticatedApiKey) {
    return { label: apiKey.label };
  }

  @Get('lenient')
  lenient(@CurrentApiKey() apiKey: AuthenticatedApiKey | null) {
    return { label: apiKey?.label ?? null };
  }
}

@Module({ controllers: [RequiredController, MixedController] })
class FixtureModule {}

describe('API keys over HTTP', () => {
  let sut: TestApp;
  let apiKeys: ApiKeysService;

  beforeAll(async () => {
    sut = await startTestApp({ API_KEY_ENCRYPTION_KEY: randomBytes(32).toString('hex') }, [FixtureModule]);
    apiKeys = sut.app.get(ApiKeysService);
  });
  afterAll(async () => {
    await sut?.close();
  });

  const get = (url: string, key?: string) =>
    sut.http.inject({ method: 'GET', url, headers: key === undefined ? {} : { 'x-api-key': key } });

  it('answers a request without x-api-key with 401 UNAUTHORIZED', async () => {
    const response = await get('/fixture/api-keys/whoami');
    expect(response.statusCode).toBe(401);
    expect(JSON.parse(response.body)).toEqual({
      message: 'Missing x-api-key header',
      errorCode: 'UNAUTHORIZED',
      statusCode: 401,
    });
    expect((await get('/fixture/api-keys/whoami', '')).statusCode).toBe(401);
  });

  it('answers an unknown or malformed key with 401', async () => {
    for (const key of [`fk_${randomBytes(32).toString('base64url')}`, 'nonsense']) {
      const response = await get('/fixture/api-keys/whoami', key);
      expect(response.statusCode).toBe(401);
      expect(JSON.parse(response.body)).toEqual({
        message: 'Invalid or revoked API key',
        errorCode: 'UNAUTHORIZED',
        statusCode: 401,
      });
      expect(response.body).not.toContain(key);
    }
  });

  it('lets a valid key through: the handler sees its label; the limit headers say where it stands', async () => {
    const created = await apiKeys.create({ label: 'Acme wallet' });
    const response = await get('/fixture/api-keys/whoami', created.key);
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ label: 'Acme wallet', id: created.id });
    expect(response.headers['x-ratelimit-limit']).toBe(String(sut.config.apiKeys.defaultRateLimitPerMinute));
    expect(response.headers['x-ratelimit-remaining']).toBe(
      String(sut.config.apiKeys.defaultRateLimitPerMinute - 1),
    );
  });

  it('answers a revoked key with 401', async () => {
    const created = await apiKeys.create({ label: 'to revoke' });
    expect((await get('/fixture/api-keys/whoami', created.key)).statusCode).toBe(200);
    await apiKeys.revoke(created.id);
    const response = await get('/fixture/api-keys/whoami', created.key);
    expect(response.statusCode).toBe(401);
    expect(JSON.parse(response.body)).toEqual({
      message: 'Invalid or revoked API key',
      errorCode: 'UNAUTHORIZED',
      statusCode: 401,
    });
  });

  it("enforces the key's own limit: 3 per minute → 3 × 200, then 429 with Retry-After", async () => {
    const created = await apiKeys.create({ label: 'limited', rateLimitPerMinute: 3 });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const response = await get('/fixture/api-keys/whoami', created.key);
      statuses.push(response.statusCode);
      expect(response.headers['x-ratelimit-remaining']).toBe(String(2 - i));
    }
    expect(statuses).toEqual([200, 200, 200]);
    const refused = await get('/fixture/api-keys/whoami', created.key);
    expect(refused.statusCode).toBe(429);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(59);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers['x-ratelimit-limit']).toBe('3');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    const body = JSON.parse(refused.body);
    expect(body).toMatchObject({
      errorCode: 'RATE_LIMITED',
      message: expect.stringContaining('3 requests per minute'),
      errorData: { limit: 3, retryAfterSeconds: retryAfter },
    });
    // Other keys are not affected.
    const other = await apiKeys.create({ label: 'other', rateLimitPerMinute: 3 });
    expect((await get('/fixture/api-keys/whoami', other.key)).statusCode).toBe(200);
  });

  it('on optional routes: absent → null, valid → the key, present but invalid or revoked → 401', async () => {
    expect(JSON.parse((await get('/fixture/api-keys/maybe')).body)).toEqual({ label: null });
    const created = await apiKeys.create({ label: 'optional' });
    const valid = await get('/fixture/api-keys/maybe', created.key);
    expect(valid.statusCode).toBe(200);
    expect(JSON.parse(valid.body)).toEqual({ label: 'optional' });
    expect(valid.headers['x-ratelimit-limit']).toBeDefined();
    expect((await get('/fixture/api-keys/maybe', 'fk_wrong')).statusCode).toBe(401);
    await apiKeys.revoke(created.id);
    expect((await get('/fixture/api-keys/maybe', created.key)).statusCode).toBe(401);
  });

  it('lets a route require a key on an optional controller, counting each request once', async () => {
    expect((await get('/fixture/api-keys/mixed/strict')).statusCode).toBe(401);
    expect(JSON.parse((await get('/fixture/api-keys/mixed/lenient')).body)).toEqual({ label: null });
    const created = await apiKeys.create({ label: 'mixed', rateLimitPerMinute: 2 });
    const first = await get('/fixture/api-keys/mixed/strict', created.key);
    expect(first.statusCode).toBe(200);
    expect(first.headers['x-ratelimit-remaining']).toBe('1');
    expect((await get('/fixture/api-keys/mixed/strict', created.key)).statusCode).toBe(200);
    expect((await get('/fixture/api-keys/mixed/strict', created.key)).statusCode).toBe(429);
  });

  it('lets browsers send x-api-key (CORS)', async () => {
    const response = await sut.http.inject({
      method: 'OPTIONS',
      url: '/fixture/api-keys/whoami',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'x-api-key',
      },
    });
    expect(response.statusCode).toBe(204);
    expect(response.headers['access-control-allow-headers']).toContain('x-api-key');
  });
});
