import pg from 'pg';
import { PostgresEventStore } from '../../src/event-store/postgres/postgres-event-store.js';
import { DATABASE, type Database } from '../../src/database/database.js';
import { TEST_SERVER_URL } from '../support/postgres.js';
import { projections } from '../../projections/index.js';
import { HealthService } from '../../src/health/health.service.js';
import { startTestApp, type TestApp, waitForProjections } from '../support/app.js';

/** /health after a probe round that read the state as it is now (the route answers from the last reading). */
async function health(app: TestApp) {
  await app.app.get(HealthService).readNow();
  return answer(app);
}

async function answer(app: TestApp) {
  const response = await app.http.inject({ method: 'GET', url: '/health' });
  return { status: response.statusCode, body: JSON.parse(response.body) };
}

describe('GET /health', () => {
  it('is 200 when the database, the event store and every projection are up and caught up', async () => {
    const app = await startTestApp();
    try {
      const db = app.app.get<Database>(DATABASE);
      await new PostgresEventStore(db).appendToStream('order-1', [{ id: 'h-1', type: 'Placed', data: {} }]);
      await waitForProjections(app);
      const result = await health(app);
      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({
        status: 'ok',
        checks: {
          database: { status: 'up', kind: 'postgres' },
          eventStore: {
            status: 'up',
            kind: 'postgres',
            watermark: { xmin: expect.any(String), ageMs: expect.any(Number) },
          },
          projections: { status: 'up' },
        },
      });
      for (const check of Object.values(result.body.checks) as { ageMs: number }[]) {
        expect(check.ageMs).toBeGreaterThanOrEqual(0);
        expect(check.ageMs).toBeLessThanOrEqual(app.config.health.maxReadingAgeMs);
      }
      const listed = result.body.checks.projections.projections as {
        name: string;
        generation: number;
        lagEvents: number;
      }[];
      expect(listed.map((p) => p.name)).toEqual(projections.map((p) => p.name));
      expect(listed.every((p) => p.generation === 1 && p.lagEvents === 0)).toBe(true);
    } finally {
      await app.close();
    }
  });

  it('is 503 naming the projection that has no live read model', async () => {
    const app = await startTestApp({ PROJECTIONS_RUN: 'false' });
    try {
      const result = await health(app);
      expect(result.status).toBe(503);
      expect(result.body.status).toBe('error');
      expect(result.body.checks.database.status).toBe('up');
      expect(result.body.checks.projections).toMatchObject({
        status: 'down',
        error: projections.map((p) => `${p.name} has no live generation yet`).join('; '),
      });
    } finally {
      await app.close();
    }
  });

  it('is 503 naming the database when it goes away', async () => {
    const app = await startTestApp();
    try {
      const admin = new pg.Client({ connectionString: TEST_SERVER_URL });
      await admin.connect();
      await admin.query(`DROP DATABASE ${app.database.name} WITH (FORCE)`);
      await admin.end();
      const result = await health(app);
      expect(result.status).toBe(503);
      expect(result.body.checks.database).toMatchObject({ status: 'down', error: expect.any(String) });
      expect(result.body.checks.eventStore.status).toBe('down');
    } finally {
      await app.close().catch(() => undefined);
      await app.database.drop();
    }
  });

  it('answers from the last reading without reading the parts itself, saying how old each reading is', async () => {
    const app = await startTestApp({
      HEALTH_PROBE_INTERVAL_MS: '600000',
      HEALTH_MAX_READING_AGE_MS: '600000',
    });
    try {
      await app.app.get(HealthService).readNow();
      const first = await answer(app);
      await new Promise((resolve) => setTimeout(resolve, 60));
      const second = await answer(app);
      // No probe round ran in between: the same readings, 60 ms older.
      expect(second.body.checks.database.latencyMs).toBe(first.body.checks.database.latencyMs);
      expect(second.body.checks.database.ageMs).toBeGreaterThanOrEqual(first.body.checks.database.ageMs + 50);
    } finally {
      await app.close();
    }
  });

  it('is 503 when the readings are older than the limit: a stuck probe never reports healthy', async () => {
    // The probe reads once at start and not again for ten minutes: every reading goes stale after 100 ms.
    const app = await startTestApp({ HEALTH_PROBE_INTERVAL_MS: '600000', HEALTH_MAX_READING_AGE_MS: '100' });
    try {
      await app.app.get(HealthService).readNow();
      await new Promise((resolve) => setTimeout(resolve, 150));
      const result = await answer(app);
      expect(result.status).toBe(503);
      expect(result.body.status).toBe('error');
      for (const check of Object.values(result.body.checks) as {
        status: string;
        ageMs: number;
        error: string;
      }[]) {
        expect(check.status).toBe('down');
        expect(check.ageMs).toBeGreaterThan(100);
        expect(check.error).toMatch(/ms ago \(limit 100 ms\): the health probe is not running$/);
      }
    } finally {
      await app.close();
    }
  });
});
