import { DATABASE, type Database } from '../../src/database/database.js';
import { startTestApp, type TestApp, waitForProjections } from '../support/app.js';

/** The value of a series in Prometheus's text format (`name{labels} value`), or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((row) => row.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/**
 * `GET /metrics`: Prometheus's text format with the HTTP, quote, projection, outbox, solver, journal and process
 * series (docs/operations.md, "Metrics"); a bearer token when METRICS_TOKEN is set.
 */
describe('GET /metrics', () => {
  describe('open (no METRICS_TOKEN)', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startTestApp();
    });
    afterAll(async () => app?.close());

    it('counts requests by route pattern and status, and quotes by errorCode', async () => {
      const before = await app.http.inject({ method: 'GET', url: '/metrics' });
      expect(before.statusCode).toBe(200);
      expect(before.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      const series = 'ferry_quotes_total{outcome="UNSUPPORTED_CHAIN"}';
      const quotesBefore = sample(before.body, series) ?? 0;

      const address = `0x${'ab'.repeat(20)}`;
      await app.http.inject({ method: 'GET', url: `/app-fees/${address}/balances` });
      const refused = await app.http.inject({
        method: 'POST',
        url: '/quote/v2',
        payload: {
          user: address,
          originChainId: 999999,
          destinationChainId: 31338,
          originCurrency: '0x0000000000000000000000000000000000000000',
          destinationCurrency: '0x0000000000000000000000000000000000000000',
          amount: '1000',
          tradeType: 'EXACT_INPUT',
        },
      });
      expect(refused.json()).toMatchObject({ errorCode: 'UNSUPPORTED_CHAIN' });

      const after = (await app.http.inject({ method: 'GET', url: '/metrics' })).body;
      expect(sample(after, series)).toBe(quotesBefore + 1);
      // The route pattern, never the address itself, is the label.
      expect(after).toMatch(
        /ferry_http_request_duration_seconds_count\{method="GET",route="\/app-fees\/:address\/balances",status="200"\} \d+/,
      );
      expect(after).not.toContain(address);
      expect(after).toMatch(
        /ferry_http_request_duration_seconds_count\{method="POST",route="\/quote\/v2",status="400"\} \d+/,
      );
    });

    it('reads lags and backlogs when scraped: projections, the watermark, solver jobs, the outbox, the journal', async () => {
      await waitForProjections(app);
      const db = app.app.get<Database>(DATABASE);
      await db.query(
        `INSERT INTO solver_jobs (request_id, kind, deposit_key, state) VALUES ('0x01', 'refund', 'k', 'failed')`,
      );
      const key = '00000000-0000-4000-8000-00000000000a';
      await db.query(
        `INSERT INTO api_keys (id, label, key_prefix, key_hash, key_ciphertext) VALUES ($1, 'm', 'fk_mmmm', 'h', 'c')`,
        [key],
      );
      await db.query(
        `INSERT INTO webhook_deliveries (id, webhook_id, event_id, api_key_id, request_id, sequence, status, body, state,
                                         next_attempt_at, event_created_at)
         VALUES (gen_random_uuid(), 'whk_1', 'e1', $1, '0x01', 1, 'pending', '{}', 'pending', now(), now()),
                (gen_random_uuid(), 'whk_2', 'e2', $1, '0x01', 2, 'success', '{}', 'delivered', now(), now())`,
        [key],
      );
      await db.query(
        `INSERT INTO solver_transactions (chain_id, account, nonce, purpose, to_address, value, data, tx_hash, raw_tx,
                                          state, created_at)
         VALUES (31338, '0xsolver', 7, 'fill', '0xto', 0, '0x', '0xhash', '0xraw', 'broadcast', now() - interval '90 seconds')`,
      );
      const text = (await app.http.inject({ method: 'GET', url: '/metrics' })).body;
      // Only deliveries not yet delivered count, per API key and state.
      expect(sample(text, `ferry_webhook_outbox{api_key="${key}",state="pending"}`)).toBe(1);
      expect(text).not.toContain(`ferry_webhook_outbox{api_key="${key}",state="delivered"}`);
      expect(sample(text, 'ferry_journal_unsettled{chain="31338",state="broadcast"}')).toBe(1);
      expect(
        sample(text, 'ferry_journal_oldest_unsettled_seconds{chain="31338",state="broadcast"}'),
      ).toBeGreaterThanOrEqual(90);
      expect(sample(text, 'ferry_projection_lag_events{projection="requests-v3"}')).toBe(0);
      expect(sample(text, 'ferry_projection_lag_seconds{projection="requests-v3"}')).toBeGreaterThanOrEqual(
        0,
      );
      expect(sample(text, 'ferry_xmin_watermark_age_seconds')).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'ferry_solver_jobs{kind="refund",state="failed"}')).toBe(1);
      // None open reads 0, not a missing series (which is what a failed read leaves).
      expect(sample(text, 'ferry_solver_jobs{kind="fill",state="pending"}')).toBe(0);
      expect(sample(text, 'ferry_journal_unsettled{chain="31337",state="signed"}')).toBe(0);
      expect(sample(text, 'ferry_journal_oldest_unsettled_seconds{chain="31337",state="broadcast"}')).toBe(0);
      expect(text).toContain('# TYPE ferry_rpc_requests_total counter');
      expect(sample(text, 'ferry_process_resident_memory_bytes')).toBeGreaterThan(0);
    });
  });

  describe('with METRICS_TOKEN', () => {
    let app: TestApp;
    const token = 'm'.repeat(40);
    beforeAll(async () => {
      app = await startTestApp({ METRICS_TOKEN: token, PROJECTIONS_RUN: 'false' });
    });
    afterAll(async () => app?.close());

    it('answers 401 without the bearer token or with another, 200 with it', async () => {
      const scrape = (authorization?: string) =>
        app.http.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });
      expect((await scrape()).statusCode).toBe(401);
      expect((await scrape()).json()).toMatchObject({ errorCode: 'UNAUTHORIZED' });
      expect((await scrape(`Bearer ${token}x`)).statusCode).toBe(401);
      expect((await scrape(token)).statusCode).toBe(401);
      expect((await scrape(`Bearer ${token}`)).statusCode).toBe(200);
    });
  });

  describe('with METRICS_ENABLED=false', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startTestApp({ METRICS_ENABLED: 'false', PROJECTIONS_RUN: 'false' });
    });
    afterAll(async () => app?.close());

    it('serves no /metrics (404) and still answers other routes', async () => {
      expect((await app.http.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
      expect((await app.http.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
    });
  });
});
