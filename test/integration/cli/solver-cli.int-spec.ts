import type { Database } from '../../../src/database/database.js';
import { type MigratedDatabase, migratedDatabase } from '../../support/postgres.js';
import { runBuiltCli } from '../../support/process.js';

/** `solver:jobs` and `solver:retry`, run as `npm run cli` runs them (the built CLI), on PostgreSQL. */
describe('the solver commands of the operator CLI', () => {
  let database: MigratedDatabase;
  let db: Database;
  const cli = (...args: string[]) => runBuiltCli(args, { DATABASE_URL: database.url! });
  const request = `0x${'ab'.repeat(32)}`;
  const deposit = `31337:0x${'cd'.repeat(32)}:2`;

  beforeAll(async () => {
    database = await migratedDatabase('postgres');
    db = database.db;
    await db.query(
      `INSERT INTO solver_jobs (request_id, kind, deposit_key, state, attempts, last_error) VALUES
         ($1, 'refund', $2, 'failed', 12, 'not sent: HTTP request failed'),
         ($1, 'fill', $2, 'done', 1, NULL)`,
      [request, deposit],
    );
  });
  afterAll(() => database?.close());

  it('lists jobs by state with their key, attempts and last error', async () => {
    const all = await cli('solver:jobs');
    expect(all.code).toBe(0);
    expect(all.stdout).toContain(`fill:${request}:${deposit}`);
    const failed = await cli('solver:jobs', '--state', 'failed');
    expect(failed.stdout).toContain(`refund:${request}:${deposit}`);
    expect(failed.stdout).toContain('not sent: HTTP request failed');
    expect(failed.stdout).not.toContain(`fill:${request}`);
    expect((await cli('solver:jobs', '--state', 'lost')).code).not.toBe(0);
  });

  it('makes a failed job due again with a fresh attempt count, and says so when none matched', async () => {
    const retried = await cli('solver:retry', `refund:${request}:${deposit}`);
    expect(retried.code).toBe(0);
    const { rows } = await db.query<{ state: string; attempts: number }>(
      `SELECT state, attempts FROM solver_jobs WHERE kind = 'refund' AND request_id = $1`,
      [request],
    );
    expect(rows).toEqual([{ state: 'pending', attempts: 0 }]);
    const again = await cli('solver:retry', `refund:${request}`);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('No failed job');
  });
});
