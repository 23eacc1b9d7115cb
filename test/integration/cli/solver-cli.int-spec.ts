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

  it('lists the transaction journal newest first, open ones with why they wait and what replaces what', async () => {
    const account = `0x${'11'.repeat(20)}`;
    const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO solver_transactions (chain_id, account, nonce, purpose, job_key, to_address, value, data, tx_hash,
         raw_tx, state, fee_capped)
       VALUES (31337, $1, 7, 'fill', 'fill:a', $1, 0, '0x', $2, '0x01', 'mined', NULL),
              (31338, $1, 3, 'refund', 'refund:b', $1, 0, '0x', $3, '0x02', 'broadcast',
               'the next block''s base fee is 900 wei per gas')
       RETURNING id::text`,
      [account, hash(1), hash(2)],
    );
    await db.query(
      `INSERT INTO solver_transactions (chain_id, account, nonce, purpose, job_key, to_address, value, data, tx_hash,
         raw_tx, state, replaces)
       VALUES (31338, $1, 3, 'refund', 'refund:b', $1, 0, '0x', $2, '0x03', 'broadcast', $3)`,
      [account, hash(3), rows[1].id],
    );

    const all = await cli('solver:transactions');
    expect(all.code).toBe(0);
    const lines = all.stdout.trim().split('\n');
    expect(lines[1]).toContain(hash(3));
    expect(lines[1]).toContain(`replaces ${rows[1].id}`);
    expect(all.stdout).toContain('at the fee cap: the next block');

    const open = await cli('solver:transactions', '--state', 'open', '--chain', '31338', '--json');
    expect(open.code).toBe(0);
    const listed = JSON.parse(open.stdout) as { txHash: string; state: string; replaces: string | null }[];
    expect(listed.map((row) => row.txHash)).toEqual([hash(3), hash(2)]);
    expect(listed[0].replaces).toBe(rows[1].id);

    const none = await cli('solver:transactions', '--chain', '1');
    expect(none.stdout).toContain('No journaled transactions.');
    expect((await cli('solver:transactions', '--state', 'lost')).code).not.toBe(0);
    expect((await cli('solver:transactions', '--chain', 'mainnet')).code).not.toBe(0);
  });
});
