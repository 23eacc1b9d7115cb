import { ApiKeysService } from '../../src/api-keys/api-keys.service.js';
import { startTestApp, type TestApp } from '../support/app.js';

const permit = { kind: 'permit', requestId: `0x${'cd'.repeat(32)}` };
const signature = `0x${'11'.repeat(65)}`;

/**
 * `POST /execute/permits` costs Ferry's relayer: a refused permit that was journaled is abandoned with a nonce filler,
 * a user who front-runs the relayer costs it one reverted transaction per call. It is limited like anonymous quotes:
 * per API key when one is sent, else per client address (with TRUST_PROXY, the one X-Forwarded-For names).
 */
describe('POST /execute/permits is rate-limited', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({
      ANONYMOUS_RATE_LIMIT_PER_MINUTE: '2',
      TRUST_PROXY: 'true',
      PROJECTIONS_RUN: 'false',
    });
  });
  afterAll(async () => app?.close());

  const post = (client: string, headers: Record<string, string> = {}) =>
    app.http.inject({
      method: 'POST',
      url: `/execute/permits?signature=${signature}`,
      payload: permit,
      headers: { 'x-forwarded-for': client, ...headers },
    });

  it('the third keyless permit of one client within a minute is 429 RATE_LIMITED with Retry-After; another client is not limited', async () => {
    const first = await post('203.0.113.7');
    expect(first.statusCode).toBe(404);
    expect(first.headers).toMatchObject({ 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '1' });
    expect((await post('203.0.113.7')).statusCode).toBe(404);
    const refused = await post('203.0.113.7');
    expect(refused.statusCode).toBe(429);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(refused.json()).toEqual({
      message: expect.stringMatching(/^Rate limit of 2 requests per minute exceeded/),
      errorCode: 'RATE_LIMITED',
      statusCode: 429,
      errorData: { limit: 2, retryAfterSeconds: retryAfter },
    });
    expect((await post('198.51.100.9')).statusCode).toBe(404);
  });

  it('a caller with an API key counts against the key’s own limit, not its address', async () => {
    const { key } = await app.app.get(ApiKeysService).create({ label: 'execute', rateLimitPerMinute: 1 });
    expect((await post('192.0.2.1', { 'x-api-key': key })).statusCode).toBe(404);
    const refused = await post('192.0.2.2', { 'x-api-key': key });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ errorCode: 'RATE_LIMITED', errorData: { limit: 1 } });
    expect((await post('192.0.2.1')).statusCode).toBe(404);
  });
});
