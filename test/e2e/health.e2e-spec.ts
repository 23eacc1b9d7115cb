import pg from 'pg';
import { PostgresEventStore } from '../../src/event-store/postgres/postgres-event-store.js';
import { DATABASE, type Database } from '../../src/database/database.js';
import { TEST_SERVER_URL } from '../support/postgres.js';
import { projections } from '../../projections/index.js';
import { startTestApp, type TestApp, waitForProjections } from '../support/app.js';

async function health(app: TestApp) {
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
          eventStore: { status: 'up', kind: 'postgres' },
          projections: { status: 'up' },
        },
      });
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
});
