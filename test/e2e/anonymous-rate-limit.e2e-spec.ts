import { startTestApp, type TestApp } from '../support/app.js';

const quote = {
  user: `0x${'ab'.repeat(20)}`,
  originChainId: 31337,
  destinationChainId: 31338,
  originCurrency: '0x0000000000000000000000000000000000000000',
  destinationCurrency: '0x0000000000000000000000000000000000000000',
  amount: '1000000000000000',
  tradeType: 'EXACT_INPUT',
};

/**
 * Keyless `POST /quote/v2` (it appends events) is limited per client address; behind a trusted proxy the client is
 * the address X-Forwarded-For names. `/health/live` answers whatever the dependencies say.
 */
describe('anonymous quotes are rate-limited per client address', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({
      ANONYMOUS_RATE_LIMIT_PER_MINUTE: '2',
      TRUST_PROXY: 'true',
      PROJECTIONS_RUN: 'false',
    });
  });
  afterAll(async () => app?.close());

  const post = (client: string) =>
    app.http.inject({
      method: 'POST',
      url: '/quote/v2',
      payload: quote,
      headers: { 'x-forwarded-for': client },
    });

  it('the third keyless quote of one client within a minute is 429 with Retry-After; another client is not limited', async () => {
    expect((await post('203.0.113.7')).statusCode).not.toBe(429);
    expect((await post('203.0.113.7')).statusCode).not.toBe(429);
    const refused = await post('203.0.113.7');
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ errorCode: 'RATE_LIMITED' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await post('198.51.100.9')).statusCode).not.toBe(429);
  });

  it('GET /health/live answers ok without reading any dependency', async () => {
    const live = await app.http.inject({ method: 'GET', url: '/health/live' });
    expect(live.statusCode).toBe(200);
    expect(live.json()).toEqual({ status: 'ok' });
  });
});

describe('without TRUST_PROXY', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1', PROJECTIONS_RUN: 'false' });
  });
  afterAll(async () => app?.close());

  it('a forged X-Forwarded-For does not escape the limit: the socket peer is the client', async () => {
    const post = (client: string) =>
      app.http.inject({
        method: 'POST',
        url: '/quote/v2',
        payload: quote,
        headers: { 'x-forwarded-for': client },
      });
    expect((await post('203.0.113.1')).statusCode).not.toBe(429);
    expect((await post('203.0.113.2')).statusCode).toBe(429);
  });
});
