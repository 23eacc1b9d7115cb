import pg from 'pg';
import { LogWatermark } from '../../../src/health/log-watermark.js';
import { migratedDatabase, type MigratedDatabase } from '../../support/postgres.js';

describe(LogWatermark.name, () => {
  let database: MigratedDatabase;
  let holder: pg.Client;

  beforeAll(async () => {
    database = await migratedDatabase('postgres');
    holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
  });
  afterAll(async () => {
    await holder?.end();
    await database?.close();
  });

  it('says how long a running transaction has held the watermark, and which session holds it', async () => {
    const sut = new LogWatermark();
    await holder.query('BEGIN');
    try {
      const { rows } = await holder.query<{ xid: string; pid: number }>(
        'SELECT pg_current_xact_id()::text AS xid, pg_backend_pid() AS pid',
      );
      const first = await sut.read(database.db, 1_000);
      const second = await sut.read(database.db, 2_500);
      // Other sessions of the server count too: the watermark is at or below this transaction.
      expect(BigInt(first.xmin)).toBeLessThanOrEqual(BigInt(rows[0].xid));
      expect(first.heldBy).not.toBeNull();
      if (second.xmin === first.xmin) expect(second.ageMs).toBe(first.ageMs + 1_500);
      if (second.xmin === rows[0].xid) {
        expect(second.heldBy).toMatchObject({ pid: rows[0].pid, state: 'idle in transaction' });
        expect(second.heldBy!.transactionAgeMs).toBeGreaterThanOrEqual(0);
      }
    } finally {
      await holder.query('COMMIT');
    }
  });
});
